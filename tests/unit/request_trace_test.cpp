// Request ids and trace context (issue 31, item 1): the W3C traceparent
// parser, the id's precedence, error.data.request_id and structuredContent
// request_id, and the structured log lines (item 2) as the sink sees them.

#include "log.hpp"
#include "log_capture.hpp"
#include "mcp/session.hpp"
#include "mcp/wire.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/request_ids.hpp"
#include "protocol/trace_context.hpp"

#include <catch2/catch.hpp>
#include "test_client_state.hpp"
#include "test_json.hpp"
#include <rapidjson/document.h>

#include <mutex>
#include <set>
#include <string>
#include <vector>

using namespace ttm;
using namespace ttm::test;
using protocol::id_origin;

namespace {

constexpr const char* valid_tp
  = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

/// Ids "gen-1", "gen-2", …: a test's id source.
protocol::id_source counting_ids() {
  auto n = std::make_shared<int>(0);
  return [n] { return "gen-" + std::to_string(++*n); };
}

/// A frame as an edge hands it on: decoded, its trace resolved.
protocol::frame edge_frame(const std::string& json,
                           protocol::trace_context from_headers = {}) {
  auto f = mcp::decode(json);
  f.trace = std::move(from_headers);
  protocol::resolve(f.trace, f, counting_ids());
  return f;
}


mcp::session ready_session() {
  auto s = session();
  auto out = s.handle(edge_frame(initialize_request("2025-11-25")));
  REQUIRE_FALSE(out.waiting());
  REQUIRE(parse(out.output.response).HasMember("result"));
  return s;
}

rapidjson::Document answer(mcp::session& s, const protocol::frame& f) {
  auto step = s.handle(f);
  while (step.waiting())
    step = s.resume(true);
  REQUIRE_FALSE(step.output.response.empty());
  return parse(step.output.response);
}

} // namespace

// -- traceparent ---------------------------------------------------------------

TEST_CASE("trace context: a valid traceparent is parsed", "[trace]") {
  auto tp = protocol::parse_traceparent(valid_tp);
  REQUIRE(tp);
  CHECK(tp->trace_id == "4bf92f3577b34da6a3ce929d0e0e4736");
  CHECK(tp->parent_id == "00f067aa0ba902b7");
  CHECK(tp->flags == "01");
  CHECK(protocol::parse_traceparent(
    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"));
}

TEST_CASE("trace context: a malformed traceparent is refused", "[trace]") {
  for (const char* bad : {
         "",
         "00",
         // other versions (ff is invalid, 01 unknown to level 1)
         "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
         "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
         // all-zero ids
         "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
         "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
         // uppercase hex, non-hex
         "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
         "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
         "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x",
         // lengths and separators
         "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
         "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
         "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
         " 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
       }) {
    INFO("traceparent: '" << bad << "'");
    CHECK_FALSE(protocol::parse_traceparent(bad));
  }
}

TEST_CASE("trace context: X-Request-Id is bounded token characters",
          "[trace]") {
  CHECK(protocol::valid_request_id("abc-123_x.Y~z"));
  CHECK(protocol::valid_request_id(std::string(128, 'a')));
  CHECK_FALSE(protocol::valid_request_id(""));
  CHECK_FALSE(protocol::valid_request_id(std::string(129, 'a')));
  for (const char* bad : {"a b", "a\"b", "a\nb", "a\\b", "a,b", "a;b",
                          "caf\xc3\xa9", "a{b}", "a\tb"}) {
    INFO("id: '" << bad << "'");
    CHECK_FALSE(protocol::valid_request_id(bad));
  }
}

TEST_CASE("trace context: the id's precedence", "[trace]") {
  const std::string meta_tp
    = "00-11111111111111111111111111111111-2222222222222222-01";
  const std::string with_meta
    = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"traceparent":")"
      + meta_tp + R"(","tracestate":"vendor=meta"}}})";
  const std::string plain = request("ping");

  SECTION("X-Request-Id first; the trace id still from traceparent") {
    auto t = protocol::from_headers("client-id-1", std::string{valid_tp},
                                    "vendor=x");
    auto f = edge_frame(with_meta, t);
    CHECK(f.trace.request_id == "client-id-1");
    CHECK(f.trace.origin == id_origin::header);
    CHECK(f.trace.trace_id == "4bf92f3577b34da6a3ce929d0e0e4736");
    CHECK(f.trace.tracestate == "vendor=x");
  }
  SECTION("X-Request-Id beside _meta.traceparent") {
    auto f = edge_frame(with_meta,
                        protocol::from_headers("client-id-1", {}, {}));
    CHECK(f.trace.request_id == "client-id-1");
    CHECK(f.trace.trace_id == "11111111111111111111111111111111");
    CHECK(f.trace.parent_id == "2222222222222222");
    CHECK(f.trace.tracestate == "vendor=meta");
  }
  SECTION("an invalid X-Request-Id is ignored: the traceparent header") {
    auto f = edge_frame(with_meta, protocol::from_headers(
                                     "bad id", std::string{valid_tp}, {}));
    CHECK(f.trace.request_id == "4bf92f3577b34da6a3ce929d0e0e4736");
    CHECK(f.trace.origin == id_origin::traceparent);
  }
  SECTION("the header's traceparent before _meta's") {
    auto f = edge_frame(with_meta,
                        protocol::from_headers({}, std::string{valid_tp}, {}));
    CHECK(f.trace.request_id == "4bf92f3577b34da6a3ce929d0e0e4736");
  }
  SECTION("_meta.traceparent (stdio, or no header)") {
    auto f = edge_frame(with_meta);
    CHECK(f.trace.request_id == "11111111111111111111111111111111");
    CHECK(f.trace.origin == id_origin::meta);
  }
  SECTION("a malformed _meta.traceparent is ignored: generated") {
    auto f = edge_frame(
      R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"traceparent":"00-zz-yy-01","tracestate":"a=b"}}})");
    CHECK(f.trace.request_id == "gen-1");
    CHECK(f.trace.origin == id_origin::generated);
    CHECK(f.trace.trace_id.empty());
    CHECK(f.trace.tracestate.empty());
  }
  SECTION("nothing: generated") {
    auto f = edge_frame(plain);
    CHECK(f.trace.request_id == "gen-1");
    CHECK(f.trace.trace_id.empty());
  }
  SECTION("a malformed traceparent header: the body's or generated") {
    auto t = protocol::from_headers({}, std::string{"00-abc"}, "x=y");
    CHECK(t.origin == id_origin::none);
    CHECK(t.tracestate.empty());
    CHECK(edge_frame(plain, t).trace.request_id == "gen-1");
  }
}

TEST_CASE("trace context: generated ids are 32 hex digits and unique",
          "[trace]") {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    auto id = protocol::random_request_id();
    REQUIRE(id.size() == 32);
    CHECK(id.find_first_not_of("0123456789abcdef") == std::string::npos);
    seen.insert(id);
  }
  CHECK(seen.size() == 1000);
}

// -- error.data.request_id -----------------------------------------------------

TEST_CASE("trace context: stamp_error merges into error.data", "[trace]") {
  SECTION("no data: created") {
    auto r = protocol::encode_error(protocol::request_id{protocol::request_id::integer, "7"},
                                    -32601, "Method not found");
    REQUIRE(protocol::stamp_error(r, "rid-1"));
    auto d = parse(r);
    CHECK(str(d["error"]["data"]["request_id"]) == "rid-1");
    CHECK(d["error"]["code"].GetInt() == -32601);
    CHECK(d["id"].GetInt() == 7);
  }
  SECTION("an object: merged, its members kept") {
    auto r = protocol::encode_error(protocol::request_id::make_null(), -32022,
                                    "Unsupported", R"({"supported":["a"]})");
    REQUIRE(protocol::stamp_error(r, "rid-2"));
    auto d = parse(r);
    CHECK(str(d["error"]["data"]["request_id"]) == "rid-2");
    CHECK(str(d["error"]["data"]["supported"][0]) == "a");
    auto empty = protocol::encode_error(protocol::request_id::make_null(), 1,
                                        "x", "{}");
    REQUIRE(protocol::stamp_error(empty, "rid-3"));
    CHECK(str(parse(empty)["error"]["data"]["request_id"]) == "rid-3");
  }
  SECTION("a string id that looks like an error is skipped correctly") {
    auto r = protocol::encode_error(
      protocol::request_id{protocol::request_id::string,
                           R"("a\",\"error\":{\"code\":1")"},
      -32600, "bad");
    CHECK(protocol::error_code_of(r) == -32600);
    REQUIRE(protocol::stamp_error(r, "rid-4"));
    CHECK(str(parse(r)["error"]["data"]["request_id"]) == "rid-4");
  }
  SECTION("not an object, or already there: never replaced") {
    auto r = protocol::encode_error(protocol::request_id::make_null(), 1, "x",
                                    R"("text")");
    auto before = r;
    protocol::stamp_error(r, "rid-5");
    CHECK(r == before);
    r = protocol::encode_error(protocol::request_id::make_null(), 1, "x",
                               R"({"request_id":"theirs"})");
    protocol::stamp_error(r, "rid-5");
    CHECK(str(parse(r)["error"]["data"]["request_id"]) == "theirs");
  }
  SECTION("a result is left alone") {
    auto r = protocol::encode_result(
      protocol::request_id{protocol::request_id::integer, "1"},
      R"({"error":{"code":1}})");
    auto before = r;
    CHECK_FALSE(protocol::stamp_error(r, "rid"));
    CHECK(r == before);
    CHECK(protocol::error_code_of(r) == 0);
  }
}

TEST_CASE("trace context: the session's JSON-RPC errors carry the id",
          "[trace]") {
  auto s = ready_session();
  SECTION("unknown method") {
    auto d = answer(s, edge_frame(request("no/such", "3"),
                                  protocol::from_headers("rid-a", {}, {})));
    CHECK(d["error"]["code"].GetInt() == -32601);
    CHECK(str(d["error"]["data"]["request_id"]) == "rid-a");
  }
  SECTION("unknown tool: invalid params") {
    auto d = answer(
      s, edge_frame(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{}}})"));
    CHECK(d["error"]["code"].GetInt() == -32602);
    CHECK(str(d["error"]["data"]["request_id"]) == "gen-1");
  }
  SECTION("a frame that is not JSON") {
    auto d = answer(s, edge_frame("{not json"));
    CHECK(d["error"]["code"].GetInt() == -32700);
    CHECK(str(d["error"]["data"]["request_id"]) == "gen-1");
  }
  SECTION("a success has no request_id") {
    auto d = answer(s, edge_frame(request("ping", "5")));
    CHECK(d.HasMember("result"));
    CHECK(to_json(d).find("request_id") == std::string::npos);
  }
}

TEST_CASE("trace context: tool errors carry it in structuredContent",
          "[trace]") {
  auto s = ready_session();
  auto d = answer(
    s, edge_frame(
         R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"time_get_current","arguments":{"timezone":"Mars/Olympus"}}})",
         protocol::from_headers("rid-tool", {}, {})));
  const auto& r = d["result"];
  REQUIRE(r["isError"].GetBool());
  const auto& sc = r["structuredContent"];
  CHECK(str(sc["request_id"]) == "rid-tool");
  CHECK(str(sc["error_code"]) == "INVALID_TIMEZONE");
  // The text block is the same JSON.
  CHECK(parse(str(r["content"][0]["text"])) == sc);
  // A success: none.
  auto ok = answer(
    s, edge_frame(
         R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"time_get_current","arguments":{}}})",
         protocol::from_headers("rid-ok", {}, {})));
  CHECK_FALSE(ok["result"]["structuredContent"].HasMember("request_id"));
}

// -- log lines -----------------------------------------------------------------

TEST_CASE("logs: one completion line per request, with its fields",
          "[trace][log]") {
  auto s = ready_session();
  log_capture cap;
  answer(s, edge_frame(
              R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"time_get_current","arguments":{"timezone":"Mars/Olympus"}}})",
              protocol::from_headers("rid-1", std::string{valid_tp}, {})));
  answer(s, edge_frame(request("no/such", "8"),
                       protocol::from_headers("rid-2", {}, {})));
  answer(s, edge_frame(request("ping", "9"),
                       protocol::from_headers("rid-3", {}, {})));
  // A notification: no reply, a debug completion line (not at info).
  s.handle(edge_frame(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  auto done = cap.completions();
  REQUIRE(done.size() == 3);
  CHECK(done[0].lvl == log::level::info);
  CHECK(done[0].where == "mcp");
  CHECK(done[0].request_id == "rid-1");
  CHECK(done[0].trace_id == "4bf92f3577b34da6a3ce929d0e0e4736");
  CHECK(done[0].principal == "local");
  CHECK(done[0].method == "tools/call");
  CHECK(done[0].tool == "time_get_current");
  CHECK(done[0].outcome == "tool_error");
  CHECK(done[0].error_code == "INVALID_TIMEZONE");
  CHECK(done[0].duration_us >= 0);
  CHECK(done[1].request_id == "rid-2");
  CHECK(done[1].method == "no/such");
  CHECK(done[1].tool.empty());
  CHECK(done[1].outcome == "error");
  CHECK(done[1].error_code == "-32601");
  CHECK(done[2].outcome == "ok");
  CHECK(done[2].error_code.empty());
}

TEST_CASE("logs: every line while a request runs names it", "[trace][log]") {
  auto s = ready_session();
  log_capture cap{log::level::trace};
  answer(s, edge_frame(
              R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"time_get_current","arguments":{"timezone":"Mars/Olympus"}}})",
              protocol::from_headers("rid-every", {}, {})));
  s.handle(edge_frame(R"({"jsonrpc":"2.0","method":"notifications/whatever"})",
                      protocol::from_headers("rid-note", {}, {})));
  auto lines = cap.all();
  REQUIRE(lines.size() >= 3); // the debug lines, and the completions
  std::size_t note_lines = 0;
  for (const auto& l : lines) {
    INFO(l.where << ": " << l.msg);
    CHECK((l.request_id == "rid-every" || l.request_id == "rid-note"));
    note_lines += l.request_id == "rid-note";
  }
  // The notification's "ignored" line and its (debug) completion.
  CHECK(note_lines >= 2);
}

TEST_CASE("logs: the JSON line's shape", "[trace][log]") {
  log::fields f;
  f.request_id = "rid-\"1\"";
  f.trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
  f.principal = "alice";
  f.method = "tools/call";
  f.tool = "time_get_current";
  f.outcome = "tool_error";
  f.error_code = "INVALID_TIMEZONE";
  f.duration_us = 1234;
  // 2026-11-27T09:30:00.042Z
  const std::int64_t at = 1'795'771'800'042;
  auto line = log::format_line(log::format::json, at, log::level::info, "mcp",
                               "completed\nnext", f);
  REQUIRE(line.back() == '\n');
  CHECK(line.find('\n') == line.size() - 1); // one line
  auto d = parse(line.substr(0, line.size() - 1));
  REQUIRE(d.IsObject());
  CHECK(str(d["time"]) == "2026-11-27T09:30:00.042Z");
  CHECK(str(d["level"]) == "info");
  CHECK(str(d["component"]) == "mcp");
  CHECK(str(d["msg"]) == "completed\nnext");
  CHECK(str(d["request_id"]) == "rid-\"1\"");
  CHECK(str(d["trace_id"]) == "4bf92f3577b34da6a3ce929d0e0e4736");
  CHECK(str(d["principal"]) == "alice");
  CHECK(str(d["method"]) == "tools/call");
  CHECK(str(d["tool"]) == "time_get_current");
  CHECK(str(d["outcome"]) == "tool_error");
  CHECK(str(d["error_code"]) == "INVALID_TIMEZONE");
  CHECK(d["duration_ms"].GetDouble() == Approx(1.234));
  // Fields that do not apply are left out.
  auto bare = log::format_line(log::format::json, at, log::level::warning,
                               "stdio", "x", {});
  auto b = parse(bare.substr(0, bare.size() - 1));
  CHECK(b.MemberCount() == 4);
  CHECK_FALSE(b.HasMember("request_id"));
  CHECK_FALSE(b.HasMember("duration_ms"));
  // Text: today's shape, the id after the component; a completion line
  // adds its fields.
  auto text = log::format_line(log::format::text, at, log::level::info, "mcp",
                               "completed", f);
  CHECK(text
        == "2026-11-27T09:30:00.042Z info [mcp] request_id=rid-\"1\" "
           "completed method=tools/call tool=time_get_current "
           "outcome=tool_error error_code=INVALID_TIMEZONE "
           "duration_ms=1.234\n");
  CHECK(log::format_line(log::format::text, at, log::level::warning, "stdio",
                         "a\nb", {})
        == "2026-11-27T09:30:00.042Z warning [stdio] a b\n");
}

TEST_CASE("logs: a JSON line of values that are all escapes stays whole",
          "[trace][log]") {
  // The JSON line is written into a buffer sized up front for the worst
  // case (each byte as \u00XX): fill every field with such bytes.
  std::string hostile;
  for (int i = 0; i < 4096; ++i)
    hostile += static_cast<char>(i % 0x20);
  hostile += "\"\\\t";
  log::fields f;
  f.request_id = f.trace_id = f.principal = f.method = f.tool = f.outcome
    = f.error_code = hostile;
  f.duration_us = 999'999'999'999;
  auto line = log::format_line(log::format::json, 0, log::level::error,
                               hostile, hostile, f);
  REQUIRE(line.back() == '\n');
  CHECK(line.find('\n') == line.size() - 1);
  auto d = parse(line.substr(0, line.size() - 1));
  REQUIRE(d.IsObject());
  CHECK(str(d["time"]) == "1970-01-01T00:00:00.000Z");
  for (const char* key : {"component", "msg", "request_id", "trace_id",
                          "principal", "method", "tool", "outcome",
                          "error_code"})
    CHECK(str(d[key]) == hostile);
  CHECK(d["duration_ms"].GetDouble() == Approx(999'999'999.999));
}

TEST_CASE("logs: --log-format names", "[trace][log]") {
  CHECK(log::parse_format("text") == log::format::text);
  CHECK(log::parse_format("json") == log::format::json);
  CHECK_FALSE(log::parse_format("JSON"));
  CHECK_FALSE(log::parse_format(""));
}
