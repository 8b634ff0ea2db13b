// The MCP-over-HTTP rules as plain functions, without Beast or a socket:
// one section per row of the README's HTTP status tables ("Streamable HTTP"
// and "HTTP status (2026-07-28)"). The I/O that follows these decisions is
// tested end to end by tests/integration/http_*.test.mjs.

#include "edge/http_rules.hpp"

#include "protocol/error_codes.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace ttm::edge;
namespace protocol = ttm::protocol;

namespace {

constexpr std::size_t max_body = 1024 * 1024;

access_policy open_policy() {
  return access_policy{8787, std::nullopt, {"mcp.example.com"},
                       {"https://app.example.com"}, {}, {}};
}

access_policy token_policy() {
  return access_policy{8787, std::nullopt, {}, {}, {"s3cret", "other"},
                       {"alice"}};
}

/// A good 2025 POST: Host, JSON, Accept both.
request_head post() {
  request_head h;
  h.method = http_method::post;
  h.target = "/mcp";
  h.host = "127.0.0.1:8787";
  h.host_count = 1;
  h.content_type = "application/json";
  h.accept = "application/json, text/event-stream";
  return h;
}

/// The same with a 2026-07-28 header.
request_head modern_post(std::optional<std::string_view> method = "tools/call",
                         std::optional<std::string_view> name
                         = "time_get_current") {
  auto h = post();
  h.protocol_version = "2026-07-28";
  h.mcp_method = method;
  h.mcp_name = name;
  return h;
}

head_decision head(const request_head& h,
                   const access_policy& a = open_policy()) {
  return decide_head(a, h, max_body);
}

std::string meta(const std::string& version = "2026-07-28") {
  return R"("_meta":{"io.modelcontextprotocol/protocolVersion":")" + version
         + R"(","io.modelcontextprotocol/clientCapabilities":{}})";
}

std::string modern_call(const std::string& tool = "time_get_current",
                        const std::string& version = "2026-07-28") {
  return R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":")"
         + tool + R"(","arguments":{},)" + meta(version) + "}}";
}

body_decision body(const request_head& h, const std::string& json) {
  auto hd = head(h);
  REQUIRE(hd.kind == head_decision::read_body);
  return decide_body(hd, protocol::decode(json));
}

const std::string initialize
  = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{)"
    R"("protocolVersion":"2025-11-25","capabilities":{},)"
    R"("clientInfo":{"name":"t","version":"1"}}})";
const std::string tools_list
  = R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})";
const std::string initialized
  = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";

void check_refused(const head_decision& d, int status, int code) {
  CHECK(d.kind == head_decision::refuse);
  CHECK(d.why.status == status);
  CHECK(d.why.code == code);
}

void check_refused(const body_decision& d, int status, int code) {
  CHECK(d.kind == body_decision::refuse);
  CHECK(d.why.status == status);
  CHECK(d.why.code == code);
}

} // namespace

TEST_CASE("http rules 2025: 200 routes, JSON or SSE", "[http_rules]") {
  SECTION("initialize without a session opens one") {
    auto d = body(post(), initialize);
    CHECK(d.kind == body_decision::open);
    CHECK(d.expects_response);
    CHECK(d.id.json == "1");
    CHECK_FALSE(d.modern);
  }
  SECTION("a request with a session goes to it") {
    auto h = post();
    h.session_id = " abc123 ";
    h.protocol_version = "2025-11-25";
    auto hd = head(h);
    CHECK(hd.session == "abc123");
    auto d = decide_body(hd, protocol::decode(tools_list));
    CHECK(d.kind == body_decision::forward);
    CHECK(d.expects_response);
  }
  SECTION("JSON unless SSE is needed or the only choice") {
    CHECK_FALSE(answer_with_sse({true, true}, false));
    CHECK(answer_with_sse({true, true}, true));
    CHECK_FALSE(answer_with_sse({true, false}, true));
    CHECK(answer_with_sse({false, true}, false));
    CHECK(sse_body({"{\"n\":1}"}, {"{\"r\":2}"})
          == "event: message\ndata: {\"n\":1}\n\n"
             "event: message\ndata: {\"r\":2}\n\n");
  }
}

TEST_CASE("http rules 2025: 202 for notifications and responses",
          "[http_rules]") {
  auto h = post();
  h.session_id = "abc123";
  auto d = body(h, initialized);
  CHECK(d.kind == body_decision::forward);
  CHECK_FALSE(d.expects_response); // answered 202 with no body
  auto r = body(h, R"({"jsonrpc":"2.0","id":5,"result":{}})");
  CHECK(r.kind == body_decision::forward);
  CHECK_FALSE(r.expects_response);
}

TEST_CASE("http rules 2025: 204 DELETE ends the session", "[http_rules]") {
  auto h = post();
  h.method = http_method::delete_;
  h.content_type.reset();
  h.session_id = "abc123";
  auto d = head(h);
  CHECK(d.kind == head_decision::end_session);
  CHECK(d.session == "abc123");
}

TEST_CASE("http rules 2025: every 400", "[http_rules]") {
  SECTION("no Mcp-Session-Id on anything but initialize") {
    auto d = body(post(), tools_list);
    check_refused(d, 400, http_refusal_code);
    CHECK(d.why.message.find("Mcp-Session-Id header is missing")
          != std::string::npos);
    CHECK(d.id.json == "2");
  }
  SECTION("a malformed session id") {
    auto h = post();
    h.session_id = std::string_view{"bad id"};
    auto hd = head(h);
    CHECK(hd.kind == head_decision::read_body); // judged with the body
    auto d = decide_body(hd, protocol::decode(tools_list));
    check_refused(d, 400, http_refusal_code);
    CHECK(d.why.message.find("1 to 128") != std::string::npos);
    std::string long_id(129, 'a');
    h.session_id = long_id;
    check_refused(decide_body(head(h), protocol::decode(tools_list)), 400,
                  http_refusal_code);
  }
  SECTION("an unsupported MCP-Protocol-Version") {
    auto h = post();
    h.session_id = "abc123";
    h.protocol_version = "2024-01-01";
    auto d = body(h, tools_list);
    check_refused(d, 400, http_refusal_code);
    CHECK(d.why.message.find("unsupported MCP-Protocol-Version '2024-01-01'")
          != std::string::npos);
  }
  SECTION("a body that is not JSON: -32700") {
    check_refused(body(post(), "{nope"), 400, protocol::parse_error);
  }
  SECTION("not JSON-RPC: -32600") {
    check_refused(body(post(), R"({"id":1})"), 400,
                  protocol::invalid_request);
    check_refused(body(post(), R"({"jsonrpc":"2.0","method":7})"), 400,
                  protocol::invalid_request);
  }
  SECTION("a malformed notification: -32600, its reason said once, no id "
          "(the spec's 400 for a notification it cannot accept)") {
    auto d = body(post(), R"({"jsonrpc":"2.0","method":"notifications/x",)"
                          R"("params":7})");
    check_refused(d, 400, protocol::invalid_request);
    CHECK(d.why.message.rfind("Invalid Request: ", 0) == 0);
    CHECK(d.why.message.find("Invalid Request: Invalid Request")
          == std::string::npos);
    CHECK(d.id.json.empty());
  }
  SECTION("a malformed HTTP request") {
    auto d = decide_read_error(read_failure::malformed, false, "bad method");
    CHECK(d.kind == read_error_decision::plain);
    CHECK(d.status == 400);
    CHECK(d.text == "malformed HTTP request: bad method");
    auto b = decide_read_error(read_failure::malformed, true, "bad chunk");
    CHECK(b.status == 400);
    CHECK(b.text == "malformed HTTP request body: bad chunk");
  }
  SECTION("Host missing (HTTP/1.1) or repeated") {
    auto h = post();
    h.host.reset();
    h.host_count = 0;
    check_refused(head(h), 400, http_refusal_code);
    h.version = 10; // HTTP/1.0 needs no Host
    CHECK(head(h).kind == head_decision::read_body);
    h = post();
    h.host_count = 2;
    auto d = head(h);
    check_refused(d, 400, http_refusal_code);
    CHECK(d.why.message == "Bad Request: more than one Host header");
  }
  SECTION("DELETE without a session id") {
    auto h = post();
    h.method = http_method::delete_;
    check_refused(head(h), 400, http_refusal_code);
  }
}

TEST_CASE("http rules: 401 without the bearer token", "[http_rules]") {
  auto h = post();
  SECTION("missing") {
    auto d = head(h, token_policy());
    check_refused(d, 401, http_refusal_code);
    CHECK(d.why.www_authenticate == R"(Bearer realm="time-tracker-mcp")");
    CHECK(d.why.close); // one guess per connection
  }
  SECTION("wrong, or not Bearer") {
    for (std::string_view v : {"Bearer s3cre", "Bearer S3CRET", "Basic s3cret",
                               "Bearer ", "s3cret"}) {
      INFO(v);
      h.authorization = v;
      auto d = head(h, token_policy());
      check_refused(d, 401, http_refusal_code);
      CHECK(d.why.www_authenticate
            == R"(Bearer realm="time-tracker-mcp", error="invalid_token")");
    }
  }
  SECTION("a 2026-07-28 request gets -32600") {
    auto m = modern_post();
    check_refused(head(m, token_policy()), 401, protocol::invalid_request);
  }
  SECTION("right: the principal of the token") {
    h.authorization = "bearer  s3cret ";
    CHECK(head(h, token_policy()).principal == "alice");
    h.authorization = "Bearer other";
    CHECK(head(h, token_policy()).principal == "token-2");
    h.authorization.reset();
    CHECK(head(h).principal == "local"); // no tokens configured
  }
}

TEST_CASE("http rules: 403 for a Host or Origin not allowed",
          "[http_rules]") {
  auto h = post();
  for (std::string_view ok : {"localhost:8787", "[::1]:8787", "LOCALHOST:8787",
                              "mcp.example.com"}) {
    h.host = ok;
    CHECK(head(h).kind == head_decision::read_body);
  }
  for (std::string_view bad : {"evil.com", "localhost", "127.0.0.1:8788"}) {
    INFO(bad);
    h.host = bad;
    check_refused(head(h), 403, http_refusal_code);
  }
  h = post();
  for (std::string_view ok : {"http://localhost:8787", "http://127.0.0.1:8787/",
                              "https://app.example.com"}) {
    h.origin = ok;
    CHECK(head(h).kind == head_decision::read_body);
  }
  h.origin = "http://evil.com";
  auto d = head(h);
  check_refused(d, 403, http_refusal_code);
  CHECK(d.why.message
        == "Forbidden: Origin 'http://evil.com' is not allowed "
           "(--allowed-origins)");
  SECTION("the bound address is a name too, on port 80 also without port") {
    access_policy a{80, std::string{"10.0.0.5"}, {}, {}, {}, {}};
    CHECK(a.host_allowed("10.0.0.5"));
    CHECK(a.host_allowed("10.0.0.5:80"));
    CHECK(a.origin_allowed("http://10.0.0.5"));
    CHECK_FALSE(a.host_allowed("10.0.0.6"));
  }
}

TEST_CASE("http rules: 404 for an unknown session or path", "[http_rules]") {
  auto r = session_not_found();
  CHECK(r.status == 404);
  CHECK(r.code == session_not_found_code);
  CHECK(r.code == -32001);
  auto p = route_path(http_method::post, "/other", "/mcp", false);
  CHECK(p.kind == path_decision::plain);
  CHECK(p.status == 404);
  CHECK(route_path(http_method::post, "/mcp?x=1", "/mcp", false).kind
        == path_decision::mcp);
  SECTION("and the probes") {
    auto h = route_path(http_method::get, "/healthz", "/mcp", true);
    CHECK(h.status == 200);
    CHECK(h.text == R"({"status":"ok"})");
    CHECK(route_path(http_method::head, "/readyz", "/mcp", false).status
          == 200);
    CHECK(route_path(http_method::get, "/readyz", "/mcp", true).status == 503);
    auto m = route_path(http_method::post, "/readyz", "/mcp", false);
    CHECK(m.status == 405);
    CHECK(m.allow == "GET, HEAD");
  }
}

TEST_CASE("http rules: /readyz says why it is not ready, 429 and 503 "
          "refusals of the limits and the drain", "[http_rules][rate_limit]") {
  auto r = route_path(http_method::get, "/readyz", "/mcp", false,
                      "the session journal is not open");
  CHECK(r.status == 503);
  CHECK(r.text
        == R"({"status":"unavailable","reason":"the session journal is not open"})");
  // Draining comes first; /healthz never depends on either.
  CHECK(route_path(http_method::get, "/readyz", "/mcp", true, "x").text
        == R"({"status":"draining"})");
  CHECK(route_path(http_method::get, "/healthz", "/mcp", true, "x").status
        == 200);

  for (bool modern : {false, true}) {
    auto limited = rate_refusal(
      {ttm::domain::rate_verdict::rate_limited, std::chrono::milliseconds{1001}},
      modern);
    CHECK(limited.status == 429);
    CHECK(limited.code == -32050); // both eras
    CHECK(limited.retry_after == "2"); // whole seconds, rounded up
    CHECK(limited.data_json == R"({"retry_after_ms":1001})");
    CHECK(limited.message.find("--rate-limit") != std::string::npos);
    CHECK_FALSE(limited.close);
    auto busy = rate_refusal(
      {ttm::domain::rate_verdict::too_many_in_flight, std::chrono::seconds{1}},
      modern);
    CHECK(busy.retry_after == "1");
    CHECK(busy.message.find("--max-in-flight") != std::string::npos);
    auto drain = draining_refusal(modern);
    CHECK(drain.status == 503);
    CHECK(drain.close);
    CHECK(drain.retry_after == "1");
    CHECK(drain.code == (modern ? protocol::invalid_request : -32000));
  }
}

TEST_CASE("http rules: 405 for GET and other methods, with Allow",
          "[http_rules]") {
  for (auto m : {http_method::get, http_method::head, http_method::other}) {
    auto h = post();
    h.method = m;
    auto d = head(h);
    check_refused(d, 405, http_refusal_code);
    CHECK(d.why.allow == "POST, DELETE");
  }
  SECTION("2026-07-28: GET, or DELETE with its header: -32600") {
    auto h = modern_post();
    h.method = http_method::delete_;
    auto d = head(h);
    check_refused(d, 405, protocol::invalid_request);
    CHECK(d.why.allow == "POST, DELETE");
    CHECK(d.why.message.find("no sessions to end") != std::string::npos);
    h.method = http_method::get;
    check_refused(head(h), 405, protocol::invalid_request);
  }
}

TEST_CASE("http rules: 406 when Accept allows neither JSON nor SSE",
          "[http_rules]") {
  auto h = post();
  for (std::string_view bad : {"text/html", "application/json;q=0",
                               "application/xml, text/plain"}) {
    INFO(bad);
    h.accept = bad;
    check_refused(head(h), 406, http_refusal_code);
  }
  h.accept.reset(); // no Accept: */*, answered as JSON
  auto d = head(h);
  CHECK(d.kind == head_decision::read_body);
  CHECK(d.accept.json);
  CHECK_FALSE(d.accept.sse);
  h.accept = "text/event-stream";
  CHECK(head(h).accept.sse);
  CHECK_FALSE(head(h).accept.json);
}

TEST_CASE("http rules: 413 for a body over the limit", "[http_rules]") {
  auto h = post();
  h.content_length = max_body;
  CHECK(head(h).kind == head_decision::read_body);
  h.content_length = max_body + 1;
  auto d = head(h);
  check_refused(d, 413, http_refusal_code);
  CHECK(d.why.message == "Payload Too Large: the body exceeds 1048576 bytes");
  // Without Content-Length (chunked), Beast's body limit decides.
  auto e = decide_read_error(read_failure::body_limit, true, "body limit");
  CHECK(e.kind == read_error_decision::too_large);
  CHECK(too_large(10, false).status == 413);
  CHECK(too_large(10, true).code == protocol::invalid_request);
  SECTION("after the access checks") {
    h.host = "evil.com";
    check_refused(head(h), 403, http_refusal_code);
  }
}

TEST_CASE("http rules: 415 for another Content-Type", "[http_rules]") {
  auto h = post();
  for (std::string_view bad : {"text/plain", "application/jsonx", ""}) {
    h.content_type = bad;
    check_refused(head(h), 415, http_refusal_code);
  }
  h.content_type.reset();
  check_refused(head(h), 415, http_refusal_code);
  h.content_type = "Application/JSON; charset=utf-8";
  CHECK(head(h).kind == head_decision::read_body);
}

TEST_CASE("http rules: 431 for headers over 16 KiB", "[http_rules]") {
  CHECK(max_header_bytes == 16 * 1024);
  auto d = decide_read_error(read_failure::header_limit, false, "");
  CHECK(d.kind == read_error_decision::plain);
  CHECK(d.status == 431);
  CHECK(d.text == "request headers exceed 16 KiB");
  CHECK(decide_read_error(read_failure::closed, false, "").kind
        == read_error_decision::close);
  CHECK(decide_read_error(read_failure::closed, true, "").kind
        == read_error_decision::close);
}

TEST_CASE("http rules: 503 for the session cap and the connection cap",
          "[http_rules]") {
  auto r = sessions_busy(std::chrono::seconds{5});
  CHECK(r.status == 503);
  CHECK(r.code == http_refusal_code);
  CHECK(r.retry_after == "5");
  CHECK(admit_connection(3, 4));
  CHECK_FALSE(admit_connection(4, 4));
  CHECK(decide_admission(4, 4, {}).kind == admission::refuse);
  const auto& bytes = connection_refusal_response();
  CHECK(bytes.rfind("HTTP/1.1 503 Service Unavailable\r\n", 0) == 0);
  CHECK(bytes.find("Retry-After: 1\r\n") != std::string::npos);
  CHECK(bytes.find("Connection: close\r\n") != std::string::npos);
}

TEST_CASE("http rules: Expect: 100-continue", "[http_rules]") {
  auto h = post();
  h.expect = " 100-Continue ";
  CHECK(head(h).send_continue);
  h.version = 10;
  CHECK_FALSE(head(h).send_continue);
}

TEST_CASE("http rules 2026-07-28: routes and 202", "[http_rules]") {
  SECTION("200: a call goes to the principal's client") {
    auto d = body(modern_post(), modern_call());
    CHECK(d.kind == body_decision::call);
    CHECK(d.modern);
    CHECK(d.expects_response);
    CHECK(d.id.json == "7");
  }
  SECTION("the _meta alone selects the era; Mcp-Session-Id is ignored") {
    auto h = modern_post();
    h.session_id = "bad id";
    auto hd = head(h);
    CHECK(hd.session.empty());
    CHECK(hd.legacy_refusal.empty());
    CHECK(decide_body(hd, protocol::decode(modern_call())).kind
          == body_decision::call);
  }
  SECTION("202: a notification") {
    auto d = body(modern_post("notifications/cancelled", std::nullopt),
                  R"({"jsonrpc":"2.0","method":"notifications/cancelled",)"
                  R"("params":{"requestId":3,)"
                    + meta() + "}}");
    CHECK(d.kind == body_decision::accept);
  }
  SECTION("Mcp-Name may be =?base64?...?=") {
    auto h = modern_post("tools/call", "=?base64?dGltZV9nZXRfY3VycmVudA==?=");
    CHECK(body(h, modern_call()).kind == body_decision::call);
  }
}

TEST_CASE("http rules 2026-07-28: every 400 and the 404", "[http_rules]") {
  SECTION("-32602: a bad _meta envelope") {
    auto bad = R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{)"
               R"("_meta":{"io.modelcontextprotocol/protocolVersion":)"
               R"("2026-07-28"}}})";
    check_refused(body(modern_post("tools/list", std::nullopt), bad), 400,
                  protocol::invalid_params);
    // A header naming 2026-07-28 but no _meta at all.
    check_refused(body(modern_post("tools/list"), tools_list), 400,
                  protocol::invalid_params);
  }
  SECTION("-32020: a header missing or different from the body") {
    auto h = modern_post();
    h.protocol_version.reset();
    auto d = body(h, modern_call()); // the body alone claims the era
    check_refused(d, 400, protocol::header_mismatch);
    CHECK(d.modern);
    h = modern_post();
    h.protocol_version = "2026-07-29";
    check_refused(body(h, modern_call()), 400, protocol::header_mismatch);
    check_refused(body(modern_post("tools/list"), modern_call()), 400,
                  protocol::header_mismatch);
    check_refused(body(modern_post(std::nullopt), modern_call()), 400,
                  protocol::header_mismatch);
    check_refused(body(modern_post("tools/call", std::nullopt), modern_call()),
                  400, protocol::header_mismatch);
    check_refused(body(modern_post("tools/call", "other"), modern_call()),
                  400, protocol::header_mismatch);
    check_refused(body(modern_post("tools/call", "=?base64?*?="),
                       modern_call()),
                  400, protocol::header_mismatch);
  }
  SECTION("-32022: an unsupported version") {
    auto h = modern_post();
    h.protocol_version = "2027-01-01";
    auto d = body(h, modern_call("time_get_current", "2027-01-01"));
    check_refused(d, 400, protocol::unsupported_protocol_version);
    CHECK(d.why.data_json.find(R"("requested":"2027-01-01")")
          != std::string::npos);
  }
  SECTION("-32600: a batch or a response") {
    check_refused(body(modern_post(), "[" + modern_call() + "]"), 400,
                  protocol::invalid_request);
    check_refused(body(modern_post(),
                       R"({"jsonrpc":"2.0","id":1,"result":{}})"),
                  400, protocol::invalid_request);
  }
  SECTION("404 -32601: a method this era does not have") {
    auto init = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{)"
                + meta() + "}}";
    auto d = body(modern_post("initialize", std::nullopt), init);
    check_refused(d, 404, protocol::method_not_found);
    CHECK(d.why.message.find("not part of protocol revision 2026-07-28")
          != std::string::npos);
  }
  SECTION("HTTP-level refusals say -32600, not -32000") {
    auto h = modern_post();
    h.content_type = "text/plain";
    check_refused(head(h), 415, protocol::invalid_request);
    h = modern_post();
    h.accept = "text/html";
    check_refused(head(h), 406, protocol::invalid_request);
    h = modern_post();
    h.host = "evil.com";
    check_refused(head(h), 403, protocol::invalid_request);
    CHECK(refusal_code(http_refusal_code, true) == protocol::invalid_request);
    CHECK(refusal_code(session_not_found_code, true) == -32001);
  }
}

TEST_CASE("http rules: at the connection cap the one idle longest makes room",
          "[http_rules]") {
  using std::chrono::seconds;
  auto t = std::chrono::steady_clock::time_point{} + seconds{100};
  std::vector<idle_connection> idle{{7, t + seconds{5}}, {3, t + seconds{1}},
                                    {9, t + seconds{1}}, {4, t + seconds{9}}};
  auto below = decide_admission(3, 4, idle);
  CHECK(below.kind == admission::admit);
  auto at_cap = decide_admission(4, 4, idle);
  CHECK(at_cap.kind == admission::evict);
  CHECK(at_cap.victim == 3); // oldest; ties: the older connection
  auto over = decide_admission(5, 4, {{4, t}});
  CHECK(over.kind == admission::evict);
  CHECK(over.victim == 4);
  CHECK(decide_admission(4, 4, {}).kind == admission::refuse);
  CHECK(decide_admission(0, 0, {}).kind == admission::refuse);
}

TEST_CASE("http rules: at the connection cap a socket stalled inside its "
          "header goes first, an established client last",
          "[http_rules][issue34]") {
  using std::chrono::milliseconds;
  using std::chrono::seconds;
  auto t = std::chrono::steady_clock::time_point{} + seconds{100};
  auto now = t + seconds{10};
  auto grace = slow_header_grace;
  // Busy connections, and an established client sending its next request
  // within the grace, never go.
  CHECK_FALSE(evictable(1, conn_phase::busy, true, t, now));
  CHECK_FALSE(evictable(1, conn_phase::busy, false, t, now));
  CHECK_FALSE(evictable(1, conn_phase::in_header, true, now - grace / 2, now));
  auto standing = [&](conn_phase p, bool served, auto since) {
    auto c = evictable(7, p, served, since, now);
    REQUIRE(c);
    CHECK(c->id == 7);
    CHECK(c->idle_since == since);
    return c->standing;
  };
  // Not yet served: stalled past the grace since the accept, silent or
  // inside its header; unserved before; fresh within its first chance.
  CHECK(standing(conn_phase::in_header, false, now - grace)
        == idle_connection::stalled);
  CHECK(standing(conn_phase::waiting, false, now - grace)
        == idle_connection::stalled);
  CHECK(standing(conn_phase::in_header, false, now - grace / 2)
        == idle_connection::unserved);
  CHECK(standing(conn_phase::waiting, false, now - first_request_chance)
        == idle_connection::unserved);
  CHECK(standing(conn_phase::waiting, false, now - milliseconds{1})
        == idle_connection::fresh);
  CHECK(standing(conn_phase::in_header, false,
                 now - first_request_chance + milliseconds{1})
        == idle_connection::fresh);
  // Answered early and dropping the rest of its body: goes first, however
  // new.
  CHECK(standing(conn_phase::lingering, true, now) == idle_connection::stalled);
  CHECK(standing(conn_phase::lingering, false, now) == idle_connection::stalled);
  // Served: kept alive between requests however long; stalled inside a
  // header past the grace.
  CHECK(standing(conn_phase::waiting, true, now - seconds{50})
        == idle_connection::kept_alive);
  CHECK(standing(conn_phase::in_header, true, now - grace)
        == idle_connection::stalled);

  // The order: stalled, then unserved, then kept alive; in each the one
  // waiting longest.
  std::vector<idle_connection> conns{
    {1, t, idle_connection::kept_alive},
    {2, t + seconds{3}, idle_connection::unserved},
    {3, t + seconds{2}, idle_connection::stalled},
    {4, t + seconds{1}, idle_connection::stalled},
    {5, t + seconds{1}, idle_connection::unserved}};
  auto pick = [](const std::vector<idle_connection>& v) {
    auto a = decide_admission(4, 4, v);
    REQUIRE(a.kind == admission::evict);
    return a.victim;
  };
  CHECK(pick(conns) == 4);
  conns.erase(conns.begin() + 3);
  CHECK(pick(conns) == 3);
  conns.erase(conns.begin() + 2);
  CHECK(pick(conns) == 5);
  conns.pop_back();
  CHECK(pick(conns) == 2);
  conns.pop_back();
  CHECK(pick(conns) == 1);
}

TEST_CASE("http rules: at the connection cap a connection whose input the "
          "server has not read yet is not taken within the grace",
          "[http_rules][issue34]") {
  using std::chrono::seconds;
  auto t = std::chrono::steady_clock::time_point{} + seconds{100};
  std::vector<std::uint64_t> unread_ids;
  std::vector<std::uint64_t> probed;
  unread_probe unread = [&](std::uint64_t id) {
    probed.push_back(id);
    return std::find(unread_ids.begin(), unread_ids.end(), id)
           != unread_ids.end();
  };
  std::vector<idle_connection> conns{
    {1, t + seconds{1}, idle_connection::unserved},
    {2, t + seconds{2}, idle_connection::unserved},
    {3, t, idle_connection::kept_alive},
    {4, t + seconds{3}, idle_connection::stalled}};
  auto decide = [&] { return decide_admission(4, 4, conns, unread); };
  SECTION("a stalled one goes whatever it has sent; nothing is probed") {
    unread_ids = {4};
    auto a = decide();
    CHECK(a.kind == admission::evict);
    CHECK(a.victim == 4);
    CHECK(probed.empty());
  }
  conns.pop_back();
  SECTION("the oldest unserved one with its request still in the socket "
          "stays; the next goes") {
    unread_ids = {1};
    auto a = decide();
    CHECK(a.kind == admission::evict);
    CHECK(a.victim == 2);
    CHECK(probed == std::vector<std::uint64_t>{1, 2});
  }
  SECTION("owed reads come before a kept-alive client: wait") {
    unread_ids = {1, 2};
    CHECK(decide().kind == admission::wait);
  }
  SECTION("a kept-alive client whose next request has come stays") {
    conns = {{3, t, idle_connection::kept_alive}};
    unread_ids = {3};
    CHECK(decide().kind == admission::wait);
    unread_ids.clear();
    auto a = decide();
    CHECK(a.kind == admission::evict);
    CHECK(a.victim == 3);
  }
  SECTION("a fresh one stays; before a kept-alive client goes, wait") {
    conns = {{1, t + seconds{1}, idle_connection::fresh},
             {2, t + seconds{2}, idle_connection::unserved},
             {3, t, idle_connection::kept_alive}};
    auto a = decide();
    CHECK(a.kind == admission::evict);
    CHECK(a.victim == 2);
    conns.erase(conns.begin() + 1);
    CHECK(decide().kind == admission::wait);
    conns.pop_back();
    CHECK(decide().kind == admission::wait);
    CHECK(probed == std::vector<std::uint64_t>{2});
  }
  SECTION("without a probe, the order alone") {
    auto a = decide_admission(4, 4, conns);
    CHECK(a.kind == admission::evict);
    CHECK(a.victim == 1);
  }
  SECTION("a new connection whose request is here takes the place of the "
          "oldest fresh one that has shown none, never of one owed reads "
          "or of a kept-alive client") {
    conns = {{1, t + seconds{1}, idle_connection::fresh},
             {2, t + seconds{2}, idle_connection::fresh},
             {3, t, idle_connection::kept_alive}};
    auto ready = [&] { return decide_admission(4, 4, conns, unread, true); };
    CHECK(decide().kind == admission::wait);
    auto a = ready();
    CHECK(a.kind == admission::evict);
    CHECK(a.victim == 1);
    unread_ids = {1};
    a = ready();
    CHECK(a.kind == admission::evict);
    CHECK(a.victim == 2);
    unread_ids = {1, 2};
    CHECK(ready().kind == admission::wait);
  }
}

TEST_CASE("http rules: a new connection that sent part of a header and "
          "stopped has had its first chance, and its header's end is seen",
          "[http_rules][issue34]") {
  using std::chrono::milliseconds;
  auto now = std::chrono::steady_clock::time_point{} + std::chrono::seconds{100};
  auto since = now - milliseconds{1};
  auto standing = [&](conn_phase p, bool partial) {
    auto c = evictable(7, p, false, since, now, partial);
    REQUIRE(c);
    return c->standing;
  };
  CHECK(standing(conn_phase::in_header, false) == idle_connection::fresh);
  CHECK(standing(conn_phase::in_header, true) == idle_connection::unserved);
  // Silent (nothing read yet): its chance stands whatever the flag says.
  CHECK(standing(conn_phase::waiting, true) == idle_connection::fresh);
  // An established client is judged by its grace, not by this.
  CHECK_FALSE(evictable(7, conn_phase::in_header, true, since, now, true));

  CHECK(holds_header_end("GET / HTTP/1.1\r\nHost: a\r\n\r\n"));
  CHECK(holds_header_end("GET / HTTP/1.1\nHost: a\n\n"));
  CHECK_FALSE(holds_header_end("POST /mcp HTTP/1.1\r\nHost: a\r\nX-Slow: a"));
  CHECK_FALSE(holds_header_end(""));
}
