// Unit tests for the 2026-07-28 revision ("modern era"): the pure checks of
// protocol/modern.hpp, what json_rpc's decode reads from params (the _meta
// envelope, name/uri, arguments.session_id), and mcp::session
// serving modern requests and deciding a connection's era, without an actor
// system. The actors (principal routes, the transport directory) are in
// modern_actors_test.cpp.

#include "mcp/session.hpp"
#include "mcp/wire.hpp"
#include "domain/clock.hpp"
#include "protocol/error_codes.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/mcp.hpp"
#include "protocol/modern.hpp"
#include "tools/registry.hpp"

#include <catch2/catch.hpp>
#include "test_client_state.hpp"
#include "test_json.hpp"
#include <date/date.h>
#include <rapidjson/document.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

using namespace ttm;
using namespace std::chrono_literals;


using mcp::rpc_output;

// The helpers of test_client_state.hpp and test_json.hpp.
using namespace ttm::test;

namespace {

const std::string pv_key = "io.modelcontextprotocol/protocolVersion";
const std::string caps_key = "io.modelcontextprotocol/clientCapabilities";
const std::string info_key = "io.modelcontextprotocol/clientInfo";
const std::string level_key = "io.modelcontextprotocol/logLevel";
const std::string server_info_key = "io.modelcontextprotocol/serverInfo";
const std::string subscription_key = "io.modelcontextprotocol/subscriptionId";

const std::string all_revisions
  = R"(["2026-07-28","2025-11-25","2025-06-18","2025-03-26"])";

/// A `_meta` object claiming `version_json` (JSON text) with empty client
/// capabilities; `extra` (",\"key\":value...") is appended.
std::string meta_json(const std::string& version_json = R"("2026-07-28")",
                      const std::string& extra = "") {
  return R"({")" + pv_key + R"(":)" + version_json + R"(,")" + caps_key
         + R"(":{})" + extra + "}";
}

/// `_meta` asking for log notifications from `level` up.
std::string meta_with_level(const std::string& level) {
  return meta_json(R"("2026-07-28")", R"(,")" + level_key + R"(":")" + level
                                        + "\"");
}

/// A request whose params are `members` (JSON object members, may be
/// empty) plus `"_meta": meta`.
std::string modern_request(const std::string& method,
                           const std::string& id = "1",
                           const std::string& members = "",
                           const std::string& meta = meta_json()) {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":")" + method
         + R"(","params":{)" + members + (members.empty() ? "" : ",")
         + R"("_meta":)" + meta + "}}";
}

std::string modern_call(const std::string& tool, const std::string& args,
                        const std::string& id = "1",
                        const std::string& meta = meta_json()) {
  return modern_request("tools/call", id,
                        R"("name":")" + tool + R"(","arguments":)" + args,
                        meta);
}

protocol::message decode_one(const std::string& text) {
  INFO("frame: " << text);
  auto f = mcp::decode(text);
  REQUIRE(f.error_code == 0);
  REQUIRE_FALSE(f.batch);
  REQUIRE(f.messages.size() == 1);
  return f.messages.front();
}

/// Requires a result carrying the 2026-07-28 additions (resultType and
/// _meta.serverInfo); returns the result.
const rapidjson::Value& modern_result(const rapidjson::Value& res) {
  INFO("response: " << to_json(res));
  const auto& r = result_object(res);
  CHECK_FALSE(res.HasMember("error"));
  REQUIRE(r.HasMember("resultType"));
  CHECK(str(r["resultType"]) == "complete");
  REQUIRE(r.HasMember("_meta"));
  const auto& si = r["_meta"][server_info_key.c_str()];
  REQUIRE(si.IsObject());
  CHECK(str(si["name"]) == "time-tracker-mcp");
  CHECK(str(si["title"]) == "Time Tracker MCP");
  CHECK(str(si["version"]) == "0.1.0");
  return r;
}

/// Requires a plain 2025-era result (none of the 2026-07-28 additions).
const rapidjson::Value& legacy_result(const rapidjson::Value& res) {
  INFO("response: " << to_json(res));
  const auto& r = result_object(res);
  CHECK_FALSE(r.HasMember("resultType"));
  CHECK_FALSE(r.HasMember("_meta"));
  CHECK_FALSE(r.HasMember("ttlMs"));
  CHECK_FALSE(r.HasMember("cacheScope"));
  return r;
}

/// A session that completed the 2025 handshake with `revision`.
mcp::session legacy_session(const std::string& revision = "2025-11-25") {
  auto s = session();
  auto res = call(s, initialize_request(revision));
  REQUIRE(res.HasMember("result"));
  REQUIRE(s.current_era() == protocol::era::legacy);
  send(s, R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  return s;
}

/// A stdio-like session that one valid claimed request made modern.
mcp::session modern_session(
  std::shared_ptr<domain::fake_clock> clock = nullptr) {
  auto s = session(std::move(clock));
  auto res = call(s, modern_request("server/discover", "0"));
  REQUIRE(res.HasMember("result"));
  REQUIRE(s.current_era() == protocol::era::modern);
  return s;
}

/// check_method's refusal of a modern request for `method`: -32601 (HTTP
/// 404) naming the method.
protocol::modern_refusal method_not_found(const std::string& method) {
  INFO("method: " << method);
  auto refusal = protocol::check_method(decode_one(modern_request(method)));
  REQUIRE(refusal.has_value());
  CHECK(refusal->code == -32601);
  CHECK(refusal->http_status == 404);
  CHECK(contains(refusal->message, "'" + method + "'"));
  return *refusal;
}

const std::string start_args
  = R"({"milestone_id":"M1","task_ids":["T1"],"timezone":"UTC"})";

std::string session_args(const std::string& sid) {
  return R"({"session_id":")" + sid + R"("})";
}

} // namespace

// -- protocol/error_codes.hpp, protocol/modern.hpp ------------------------------

TEST_CASE("modern: the 2026-07-28 error codes", "[modern]") {
  CHECK(protocol::header_mismatch == -32020);
  CHECK(protocol::missing_client_capability == -32021);
  CHECK(protocol::unsupported_protocol_version == -32022);
}

TEST_CASE("modern: is_modern_revision serves exactly 2026-07-28",
          "[modern]") {
  CHECK(protocol::is_modern_revision("2026-07-28"));
  CHECK(protocol::modern_revision == "2026-07-28");
  for (std::string v : {"2025-11-25", "2025-06-18", "2025-03-26", "2026-07-29",
                        "2027-01-01", "", "2026-07-28 ", " 2026-07-28",
                        "2026-07-2", "2026-07-280", "DRAFT-2026-v1"}) {
    INFO("version: '" << v << "'");
    CHECK_FALSE(protocol::is_modern_revision(v));
  }
  CHECK_FALSE(protocol::is_modern_revision(std::string{"2026-07-28\0", 11}));
  // The list of every revision starts with the modern one, newest first.
  auto all = parse(std::string{protocol::all_revisions_json});
  CHECK(all == parse(all_revisions));
  CHECK(str(all[0]) == std::string{protocol::modern_revision});
}

TEST_CASE("modern: names_modern_era is 2026-07-28 or later by ISO date",
          "[modern]") {
  for (std::string v : {"2026-07-28", "2026-07-29", "2026-08-01", "2026-12-31",
                        "2027-01-01", "2099-01-01"}) {
    INFO("version: " << v);
    CHECK(protocol::names_modern_era(v));
  }
  for (std::string v :
       {"2026-07-27", "2026-06-30", "2025-11-25", "2025-03-26", "2024-11-05",
        "", "2026-07-28T00:00", "2026-7-28", "2026/07/28", "20260728",
        "2026-07-28 ", " 2026-07-28", "2026_07_28", "DRAFT-2026"}) {
    INFO("version: '" << v << "'");
    CHECK_FALSE(protocol::names_modern_era(v));
  }
}

TEST_CASE("modern: names_modern_era refuses date-shaped text that is no "
          "date",
          "[modern]") {
  // Compared as text, letters would sort after every digit: digits are
  // required where a date has them.
  for (std::string v : {"2026-ab-cd", "2026-0z-28", "2026-07-2x"}) {
    INFO("version: " << v);
    CHECK_FALSE(protocol::names_modern_era(v));
  }
}

TEST_CASE("modern: is_modern_method lists what a modern request may call",
          "[modern]") {
  for (std::string m : {"server/discover", "tools/list", "tools/call",
                        "completion/complete", "subscriptions/listen"}) {
    INFO("method: " << m);
    CHECK(protocol::is_modern_method(m));
  }
  for (std::string m : {"initialize", "ping", "logging/setLevel",
                        "resources/subscribe", "sampling/createMessage", "Tools/list",
                        "tools/list ", "", "notifications/initialized"}) {
    INFO("method: '" << m << "'");
    CHECK_FALSE(protocol::is_modern_method(m));
  }
}

TEST_CASE("modern: unsupported_version is -32022 with the supported list "
          "and the requested version",
          "[modern]") {
  auto r = protocol::unsupported_version("2025-11-25");
  CHECK(r.code == -32022);
  CHECK(r.http_status == 400);
  CHECK(contains(r.message, "'2025-11-25'"));
  auto data = parse(r.data_json);
  REQUIRE(data.IsObject());
  CHECK(data.MemberCount() == 2);
  CHECK(data["supported"] == parse(all_revisions));
  CHECK(str(data["requested"]) == "2025-11-25");
  SECTION("the requested text is quoted as JSON") {
    std::string odd = "a\"b\\c\n\x01";
    auto q = protocol::unsupported_version(odd);
    CHECK(str(parse(q.data_json)["requested"]) == odd);
    auto empty = protocol::unsupported_version("");
    CHECK(str(parse(empty.data_json)["requested"]) == "");
  }
}

// -- decode: what it reads from params ------------------------------------------

TEST_CASE("modern: decode reads a claiming _meta envelope", "[modern]") {
  auto m = decode_one(modern_request(
    "tools/list", "1", "",
    meta_json(R"("2026-07-28")",
              R"(,")" + info_key + R"(":{"name":"c","version":"1"},")"
                + level_key + R"(":"info")")));
  CHECK(m.kind == protocol::message::request);
  CHECK(m.meta.claimed);
  CHECK(m.meta.version == "2026-07-28");
  CHECK(m.meta.problem.empty());
  CHECK(m.meta.log_level == "info");
  SECTION("any string version is a claim, served or not") {
    for (std::string v : {"2025-11-25", "1999-01-01", "", "x"}) {
      auto n = decode_one(modern_request("tools/list", "1", "",
                                         meta_json("\"" + v + "\"")));
      CHECK(n.meta.claimed);
      CHECK(n.meta.version == v);
      CHECK(n.meta.problem.empty());
      CHECK(n.meta.log_level.empty());
    }
  }
  SECTION("every log level name is accepted") {
    for (std::string level : {"debug", "info", "notice", "warning", "error",
                              "critical", "alert", "emergency"}) {
      auto n = decode_one(
        modern_request("tools/list", "1", "", meta_with_level(level)));
      CHECK(n.meta.problem.empty());
      CHECK(n.meta.log_level == level);
    }
  }
  SECTION("notifications claim too") {
    auto n = decode_one(R"({"jsonrpc":"2.0","method":"notifications/x",)"
                        R"("params":{"_meta":)"
                        + meta_json() + "}}");
    CHECK(n.kind == protocol::message::notification);
    CHECK(n.meta.claimed);
    CHECK(n.meta.version == "2026-07-28");
  }
  SECTION("the version keeps an embedded NUL (no C-string cut)") {
    auto n = decode_one(
      modern_request("tools/list", "1", "", meta_json(R"("2026-07-28\u0000x")")));
    CHECK(n.meta.claimed);
    CHECK(n.meta.version == std::string{"2026-07-28\0x", 12});
    CHECK_FALSE(protocol::is_modern_revision(n.meta.version));
  }
}

TEST_CASE("modern: decode without the protocolVersion key claims nothing",
          "[modern]") {
  for (std::string text : {
         request("tools/list"),
         request("tools/list", "1", "{}"),
         request("tools/list", "1", R"({"_meta":{}})"),
         request("tools/list", "1", R"({"_meta":"2026-07-28"})"),
         request("tools/list", "1", R"({"_meta":null})"),
         request("tools/list", "1",
                       R"({"_meta":[{")" + pv_key + R"(":"2026-07-28"}]})"),
         // Every other reserved key, even invalid, without the claim.
         request("tools/list", "1",
                       R"({"_meta":{")" + caps_key + R"(":7,")" + info_key
                         + R"(":7,")" + level_key + R"(":"loud"}})"),
         request("tools/list", "1",
                       R"({"_meta":{")" + caps_key + R"(":{},")" + level_key
                         + R"(":"debug"}})"),
         // Near misses of the key.
         request("tools/list", "1",
                       R"({"_meta":{"protocolVersion":"2026-07-28",")"
                         + caps_key + R"(":{}}})"),
         request("tools/list", "1",
                       R"({"_meta":{"io.modelcontextprotocol/ProtocolVersion":"2026-07-28"}})"),
         // The key outside _meta.
         request("tools/list", "1",
                       R"({")" + pv_key + R"(":"2026-07-28",")" + caps_key
                         + R"(":{}})"),
         // params as an array.
         request("tools/list", "1", "[" + meta_json() + "]"),
         R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":[{"_meta":)"
           + meta_json() + "}]}"}) {
    INFO("frame: " << text);
    auto m = decode_one(text);
    CHECK(m.kind == protocol::message::request);
    CHECK_FALSE(m.meta.claimed);
    CHECK(m.meta.version.empty());
    CHECK(m.meta.problem.empty());
    CHECK(m.meta.log_level.empty());
  }
}

TEST_CASE("modern: decode names what makes a claimed envelope unusable",
          "[modern]") {
  struct sample {
    std::string meta;
    std::string key;
    std::string what;
  };
  const std::string v = R"(")" + pv_key + R"(":"2026-07-28")";
  const std::string c = R"(")" + caps_key + R"(":{})";
  for (const auto& t : std::vector<sample>{
         {"{\"" + pv_key + "\":20260728," + c + "}", pv_key, "must be a string"},
         {"{\"" + pv_key + "\":null," + c + "}", pv_key, "must be a string"},
         {"{\"" + pv_key + "\":[\"2026-07-28\"]," + c + "}", pv_key,
          "must be a string"},
         {"{" + v + "}", caps_key, "is missing"},
         {"{" + v + ",\"" + caps_key + "\":null}", caps_key,
          "must be an object"},
         {"{" + v + ",\"" + caps_key + "\":[]}", caps_key, "must be an object"},
         {"{" + v + ",\"" + caps_key + "\":\"{}\"}", caps_key,
          "must be an object"},
         {"{" + v + "," + c + ",\"" + info_key + "\":\"me\"}", info_key,
          "must be an object"},
         {"{" + v + "," + c + ",\"" + info_key + "\":null}", info_key,
          "must be an object"},
         {"{" + v + "," + c + ",\"" + level_key + "\":\"verbose\"}", level_key,
          "must be one of debug, info, notice, warning, error, critical, "
          "alert, emergency"},
         {"{" + v + "," + c + ",\"" + level_key + "\":\"DEBUG\"}", level_key,
          "must be one of"},
         {"{" + v + "," + c + ",\"" + level_key + "\":3}", level_key,
          "must be one of"},
         {"{" + v + "," + c + ",\"" + level_key + "\":null}", level_key,
          "must be one of"},
         {"{" + v + "," + c + ",\"" + level_key + "\":\"debug\\u0000x\"}",
          level_key, "must be one of"},
         {"{" + v + "," + c + ",\"" + level_key + "\":\"\"}", level_key,
          "must be one of"},
       }) {
    INFO("_meta: " << t.meta);
    auto m = decode_one(modern_request("tools/list", "1", "", t.meta));
    CHECK(m.meta.claimed);
    CHECK(contains(m.meta.problem, "_meta['" + t.key + "']"));
    CHECK(contains(m.meta.problem, t.what));
    CHECK(m.meta.log_level.empty());
    auto r = protocol::check_envelope(m);
    REQUIRE(r.has_value());
    CHECK(r->code == -32602);
    CHECK(r->http_status == 400);
    CHECK(r->message == "Invalid params: " + m.meta.problem);
    CHECK(r->data_json.empty());
  }
  SECTION("the first problem is reported") {
    auto m = decode_one(modern_request(
      "tools/list", "1", "",
      "{\"" + pv_key + "\":1,\"" + level_key + "\":\"loud\"}"));
    CHECK(contains(m.meta.problem, pv_key));
    CHECK_FALSE(contains(m.meta.problem, caps_key));
    CHECK_FALSE(contains(m.meta.problem, level_key));
    CHECK(m.meta.version.empty());
  }
  SECTION("a bad version string is no envelope problem") {
    auto m = decode_one(modern_request("tools/list", "1", "",
                                       meta_json(R"("2025-11-25")")));
    CHECK(m.meta.problem.empty());
    CHECK_FALSE(protocol::check_envelope(m).has_value());
  }
}

TEST_CASE("modern: the codec lifts only the argument it is told to",
          "[modern]") {
  const std::string line = request(
    "tools/call", "1",
    R"({"name":"t","arguments":{"session_id":"s-1","other":"o-1"}})");
  auto generic = protocol::decode(line);
  REQUIRE(generic.messages.size() == 1);
  CHECK(generic.messages[0].name == "t");
  CHECK(generic.messages[0].handle.empty());
  auto other = protocol::decode(line, protocol::decode_options{"other", {}});
  CHECK(other.messages[0].handle == "o-1");
  // The MCP layer routes by the tracking session's argument.
  CHECK(mcp::routing_argument == "session_id");
  CHECK(mcp::decode(line).messages[0].handle == "s-1");
}

TEST_CASE("modern: decode reads params.name, params.uri and "
          "arguments.session_id",
          "[modern]") {
  auto call = decode_one(
    request("tools/call", "1",
                  R"({"name":"time_session_summary","arguments":{"session_id":"s-1","x":1}})"));
  CHECK(call.name == "time_session_summary");
  CHECK(call.handle == "s-1");
  CHECK_FALSE(call.meta.claimed);
  auto read = decode_one(
    request("resources/read", "1", R"({"uri":"file:///a b"})"));
  CHECK(read.name == "file:///a b");
  CHECK(read.handle.empty());
  auto both = decode_one(
    request("x", "1", R"({"name":"n","uri":"u"})"));
  CHECK(both.name == "n");
  auto name_not_string = decode_one(
    request("x", "1", R"({"name":7,"uri":"u"})"));
  CHECK(name_not_string.name == "u");
  auto unicode = decode_one(
    request("tools/call", "1", R"({"name":"caf\u00e9"})"));
  CHECK(unicode.name == "caf\xc3\xa9");
  for (std::string params :
       {R"({"name":null,"arguments":{"session_id":5}})",
        R"({"arguments":[{"session_id":"s"}]})",
        R"({"arguments":{"nested":{"session_id":"s"}}})",
        R"({"session_id":"s"})", R"(["name","s"])", "{}"}) {
    INFO("params: " << params);
    auto m = decode_one(request("tools/call", "1", params));
    CHECK(m.name.empty());
    CHECK(m.handle.empty());
  }
  SECTION("claimed requests too") {
    auto m = decode_one(modern_call("time_task_start",
                                    R"({"session_id":"abc","task_id":"t"})"));
    CHECK(m.meta.claimed);
    CHECK(m.name == "time_task_start");
    CHECK(m.handle == "abc");
  }
}

// -- the checks -------------------------------------------------------------------

TEST_CASE("modern: check_version and check_method", "[modern]") {
  auto ok = decode_one(modern_request("tools/list"));
  CHECK_FALSE(protocol::check_version(ok).has_value());
  CHECK_FALSE(protocol::check_method(ok).has_value());
  CHECK_FALSE(protocol::check_modern_request(ok).has_value());

  auto old = decode_one(
    modern_request("tools/list", "1", "", meta_json(R"("2025-11-25")")));
  auto r = protocol::check_version(old);
  REQUIRE(r.has_value());
  CHECK(r->code == -32022);
  CHECK(r->http_status == 400);
  CHECK(parse(r->data_json) == parse(R"({"supported":)" + all_revisions
                                     + R"(,"requested":"2025-11-25"})"));

  for (std::string m : {"server/discover", "tools/list", "tools/call",
                        "completion/complete", "subscriptions/listen"}) {
    INFO("method: " << m);
    CHECK_FALSE(protocol::check_method(decode_one(modern_request(m)))
                  .has_value());
  }
  for (std::string m : {"initialize", "ping", "logging/setLevel"}) {
    INFO("method: " << m);
    auto refusal = method_not_found(m);
    CHECK(contains(refusal.message,
                   "is not part of protocol revision 2026-07-28"));
    CHECK(refusal.data_json.empty());
  }
  for (std::string m : {"resources/subscribe", "sampling/createMessage", "nope"}) {
    INFO("method: " << m);
    CHECK_FALSE(contains(method_not_found(m).message, "not part of"));
  }
  SECTION("notifications have no method to refuse") {
    auto n = decode_one(R"({"jsonrpc":"2.0","method":"notifications/whatever",)"
                        R"("params":{"_meta":)"
                        + meta_json() + "}}");
    CHECK_FALSE(protocol::check_method(n).has_value());
  }
}

TEST_CASE("modern: check_modern_request checks envelope, version, method "
          "in that order",
          "[modern]") {
  auto code_of = [](const std::string& text) {
    auto r = protocol::check_modern_request(decode_one(text));
    return r ? r->code : 0;
  };
  // Broken envelope (no capabilities), old version, removed method.
  CHECK(code_of(modern_request("ping", "1", "",
                               "{\"" + pv_key + "\":\"2025-11-25\"}"))
        == -32602);
  // Version not a string: an envelope problem, not -32022.
  CHECK(code_of(modern_request("tools/list", "1", "", meta_json("1")))
        == -32602);
  // Good envelope, old version, removed method.
  CHECK(code_of(modern_request("ping", "1", "", meta_json(R"("2025-11-25")")))
        == -32022);
  CHECK(code_of(modern_request("ping")) == -32601);
  CHECK(code_of(modern_request("server/discover")) == 0);
}

// -- mcp::session: serving modern requests --

TEST_CASE("modern: server/discover describes the server without initialize",
          "[modern]") {
  auto s = session();
  CHECK(s.current_era() == std::nullopt);
  auto out = send(s, modern_request("server/discover", R"("d")"));
  CHECK(out.notifications.empty());
  auto res = parse(out.response);
  CHECK(str(res["id"]) == "d");
  const auto& r = modern_result(res);
  CHECK(r["supportedVersions"] == parse(all_revisions));
  // The same list -32022 names.
  CHECK(r["supportedVersions"]
        == parse(protocol::unsupported_version("x").data_json)["supported"]);
  const auto& caps = r["capabilities"];
  REQUIRE(caps.IsObject());
  REQUIRE(caps["tools"].IsObject());
  CHECK(caps["tools"]["listChanged"] == false);
  CHECK(caps["logging"].IsObject());
  CHECK(caps["completions"].IsObject());
  CHECK(str(r["instructions"]) == session_instructions);
  REQUIRE(r["ttlMs"].IsInt64());
  CHECK(r["ttlMs"].GetInt64() == 3600000);
  CHECK(str(r["cacheScope"]) == "public");
  CHECK_FALSE(r.HasMember("protocolVersion"));
  CHECK(s.current_era() == protocol::era::modern);
  CHECK_FALSE(s.initialized());
  CHECK(s.revision().empty());
}

TEST_CASE("modern: tools/list carries cache hints and is the same for every "
          "client",
          "[modern]") {
  auto a = session();
  auto b = modern_session();
  auto out_a = send(a, modern_request("tools/list", "7"));
  auto out_b = send(b, modern_request("tools/list", "7"));
  CHECK(out_a.response == out_b.response);
  auto res = parse(out_a.response);
  const auto& r = modern_result(res);
  // The 2026-07-28 list: a nullable result's schema unwrapped (SEP-2106).
  auto listed = parse(tools::make_registry({}, {"all"})->tools_json(true));
  CHECK(r["tools"] == listed);
  CHECK(r["ttlMs"] == 3600000);
  CHECK(str(r["cacheScope"]) == "public");
  // Nothing but the list, the hints and the modern additions.
  CHECK(r.MemberCount() == 5);
  SECTION("a cursor is still -32602, an error without the additions") {
    auto err = call(a, modern_request("tools/list", "8", R"("cursor":"c")"));
    CHECK(contains(error_message(err, -32602), "cursor"));
  }
  SECTION("completion/complete gets the additions but no cache hints") {
    auto done = call(a, modern_request(
                          "completion/complete", "9",
                          R"("ref":{"type":"ref/prompt","name":"standup"},)"
                          R"("argument":{"name":"timezone","value":"europe/ber"})"));
    const auto& c = modern_result(done);
    CHECK(c["completion"]["values"].Size() == 1);
    CHECK_FALSE(c.HasMember("ttlMs"));
  }
}

TEST_CASE("modern: tools/call results carry resultType and _meta",
          "[modern]") {
  auto s = session();
  auto res = call(s, modern_call("time_get_current", R"({"format":"friendly"})",
                                 "11"));
  CHECK(res["id"] == 11);
  const auto& r = modern_result(res);
  CHECK(r["isError"] == false);
  const auto& sc = r["structuredContent"];
  CHECK(str(sc["timestamp"]) == "December 14, 2025 9:45:32 AM EST");
  REQUIRE(r["content"].Size() == 1);
  CHECK(str(r["content"][0]["text"]) == to_json(sc));
  CHECK(tools::make_registry({}, {"all"})->find("time_get_current")->check_output(
          str(r["content"][0]["text"]))
        == "");

  SECTION("a failed call is a tool result with the additions") {
    auto bad = call(s, modern_call("time_get_current",
                                   R"({"timezone":"Mars/Olympus_Mons"})", "12"));
    const auto& b = modern_result(bad);
    CHECK(b["isError"] == true);
    CHECK(str(b["structuredContent"]["error_code"]) == "INVALID_TIMEZONE");
  }
  SECTION("invalid arguments are VALIDATION_ERROR tool results, never "
          "-32602") {
    for (std::string args : {R"({"format":"rfc"})", R"({"timezone":1})", "[]",
                             R"({"unknown":true})"}) {
      INFO("arguments: " << args);
      auto out = call(s, modern_call("time_get_current", args, "13"));
      CHECK_FALSE(out.HasMember("error"));
      const auto& v = modern_result(out);
      CHECK(v["isError"] == true);
      CHECK(str(v["structuredContent"]["error_code"]) == "VALIDATION_ERROR");
      CHECK(str(v["content"][0]["text"]) == to_json(v["structuredContent"]));
    }
  }
  SECTION("an unknown tool is still a JSON-RPC error") {
    auto unknown = call(s, modern_call("time_get_past", "{}", "14"));
    CHECK(contains(error_message(unknown, -32602), "time_get_past"));
  }
}

TEST_CASE("modern: log notifications follow each request's own logLevel",
          "[modern]") {
  auto s = modern_session();
  const auto invalid = R"({"format":"rfc"})";
  SECTION("none without a logLevel") {
    auto out = send(s, modern_call("time_get_current", invalid, "1"));
    CHECK_FALSE(out.response.empty());
    CHECK(out.notifications.empty());
    CHECK(send(s, modern_call("time_get_current", "{}", "2"))
            .notifications.empty());
  }
  SECTION("warning: for that request only") {
    auto out = send(s, modern_call("time_get_current", invalid, "1",
                                   meta_with_level("warning")));
    REQUIRE(out.notifications.size() == 1);
    auto n = parse(out.notifications[0]);
    CHECK(str(n["method"]) == "notifications/message");
    CHECK_FALSE(n.HasMember("id"));
    CHECK(str(n["params"]["level"]) == "warning");
    CHECK(contains(str(n["params"]["data"]), "format"));
    CHECK(parse(out.response)["id"] == 1);
    // The next request asks for nothing and gets nothing.
    CHECK(send(s, modern_call("time_get_current", invalid, "2"))
            .notifications.empty());
    // A success is below warning.
    CHECK(send(s, modern_call("time_get_current", "{}", "3",
                              meta_with_level("warning")))
            .notifications.empty());
  }
  SECTION("debug: a success is logged") {
    auto out = send(s, modern_call("time_get_current", "{}", "1",
                                   meta_with_level("debug")));
    REQUIRE(out.notifications.size() == 1);
    auto n = parse(out.notifications[0]);
    CHECK(str(n["params"]["level"]) == "debug");
    CHECK(contains(str(n["params"]["data"]), "time_get_current"));
  }
  SECTION("error: an invalid call is below it") {
    CHECK(send(s, modern_call("time_get_current", invalid, "1",
                              meta_with_level("error")))
            .notifications.empty());
  }
  SECTION("logging/setLevel is gone and sets nothing") {
    auto res = call(s, modern_request("logging/setLevel", "1",
                                      R"("level":"debug")"));
    error_message(res, -32601);
    CHECK(send(s, modern_call("time_get_current", invalid, "2"))
            .notifications.empty());
  }
}

TEST_CASE("modern: subscriptions/listen acknowledges, then completes",
          "[modern]") {
  for (std::string id : {"7", R"("sub-1")"}) {
    INFO("id: " << id);
    auto s = session();
    auto out = send(s, modern_request("subscriptions/listen", id,
                                      R"("notifications":{"toolsListChanged":true})"));
    REQUIRE(out.notifications.size() == 1);
    auto ack = parse(out.notifications[0]);
    CHECK(str(ack["method"]) == "notifications/subscriptions/acknowledged");
    CHECK_FALSE(ack.HasMember("id"));
    CHECK(ack["params"]["_meta"][subscription_key.c_str()] == parse(id));
    CHECK(ack["params"]["notifications"].IsObject());
    CHECK(ack["params"]["notifications"].ObjectEmpty());
    auto res = parse(out.response);
    CHECK(res["id"] == parse(id));
    const auto& r = modern_result(res);
    CHECK(r["_meta"][subscription_key.c_str()] == parse(id));
    CHECK(s.current_era() == protocol::era::modern);
  }
  SECTION("without an object 'notifications': -32602 and no acknowledgement") {
    auto s = session();
    for (std::string members : {std::string{}, std::string{R"("notifications":[])"},
                                std::string{R"("notifications":true)"}}) {
      INFO("params: " << members);
      auto out = send(s, modern_request("subscriptions/listen", "3", members));
      CHECK(out.notifications.empty());
      CHECK(contains(error_message(parse(out.response), -32602),
                     "notifications"));
    }
  }
}

TEST_CASE("modern: removed methods are -32601 and decide nothing",
          "[modern]") {
  auto s = session();
  for (std::string m : {"initialize", "ping", "logging/setLevel"}) {
    INFO("method: " << m);
    auto res = call(s, modern_request(m, "4"));
    CHECK(res["id"] == 4);
    auto text = error_message(res, -32601);
    CHECK(contains(text, m));
    CHECK(contains(text, "not part of protocol revision 2026-07-28"));
    CHECK(s.current_era() == std::nullopt);
  }
  for (std::string m : {"resources/unsubscribe", "resources/subscribe", "no/such"}) {
    INFO("method: " << m);
    CHECK(contains(error_message(call(s, modern_request(m, "5")), -32601), m));
    CHECK(s.current_era() == std::nullopt);
  }
  // A claimed initialize did not initialize; a plain one still can.
  CHECK_FALSE(s.initialized());
  auto init = call(s, initialize_request("2025-06-18"));
  CHECK(str(init["result"]["protocolVersion"]) == "2025-06-18");
  CHECK(s.current_era() == protocol::era::legacy);
  SECTION("the same once modern") {
    auto m = modern_session();
    for (std::string method : {"initialize", "ping", "logging/setLevel"})
      CHECK(contains(error_message(call(m, modern_request(method)), -32601),
                     "not part of protocol revision 2026-07-28"));
    CHECK(m.current_era() == protocol::era::modern);
  }
}

// -- mcp::session: the era of a connection (stdio) --

TEST_CASE("modern: the first valid claimed request pins the connection to "
          "2026-07-28",
          "[modern]") {
  auto s = session();
  auto first = call(s, modern_request("tools/list", "1"));
  modern_result(first);
  REQUIRE(s.current_era() == protocol::era::modern);

  SECTION("a plain initialize is then -32022") {
    auto res = call(s, initialize_request("2025-11-25", "2"));
    CHECK(res["id"] == 2);
    CHECK(contains(error_message(res, -32022), "initialize"));
    CHECK(res["error"]["data"] == parse(R"({"supported":)" + all_revisions
                                        + R"(,"requested":"2025-11-25"})"));
    CHECK_FALSE(s.initialized());
    CHECK(s.current_era() == protocol::era::modern);
    auto bare = call(s, request("initialize", "3", "{}"));
    error_message(bare, -32022);
    CHECK(str(bare["error"]["data"]["requested"]) == "");
  }
  SECTION("other plain requests are -32602 naming the envelope") {
    for (std::string m : {"tools/list", "ping", "tools/call", "server/discover",
                          "logging/setLevel"}) {
      INFO("method: " << m);
      auto text = error_message(call(s, request(m, "4", "{}")), -32602);
      CHECK(contains(text, pv_key));
      CHECK(contains(text, caps_key));
    }
    // _meta without the protocolVersion key is no claim.
    auto res = call(s, request("tools/list", "5",
                                     R"({"_meta":{")" + caps_key + R"(":{}}})"));
    error_message(res, -32602);
  }
  SECTION("claimed requests are still checked") {
    auto old = call(s, modern_request("tools/list", "6", "",
                                      meta_json(R"("2025-11-25")")));
    error_message(old, -32022);
    auto broken = call(s, modern_request("tools/list", "7", "",
                                         "{\"" + pv_key + "\":\"2026-07-28\"}"));
    CHECK(contains(error_message(broken, -32602), caps_key));
    CHECK(s.current_era() == protocol::era::modern);
    modern_result(call(s, modern_request("tools/list", "8")));
  }
  SECTION("batches are refused naming 2026-07-28") {
    auto res = call(s, "[" + modern_request("tools/list", "1") + ","
                         + modern_request("tools/list", "2") + "]");
    REQUIRE(res.IsObject());
    CHECK(res["id"].IsNull());
    CHECK(contains(error_message(res, -32600), "2026-07-28"));
  }
  SECTION("notifications get no response") {
    for (std::string n : {R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                          R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})"}) {
      auto out = send(s, n);
      CHECK(out.response.empty());
      CHECK(out.notifications.empty());
    }
    CHECK(s.current_era() == protocol::era::modern);
  }
}

TEST_CASE("modern: initialize pins the connection to 2025, _meta is then "
          "ignored",
          "[modern]") {
  auto s = legacy_session("2025-11-25");
  SECTION("claimed requests are served as 2025 ones") {
    auto list = call(s, modern_request("tools/list", "1"));
    CHECK(legacy_result(list)["tools"]
          == parse(tools::make_registry({}, {"all"})->list_result_json())["tools"]);
    auto tool = call(s, modern_call("time_get_current", "{}", "2"));
    CHECK(legacy_result(tool)["isError"] == false);
    auto invalid = call(s, modern_call("time_get_current",
                                       R"({"format":"rfc"})", "3"));
    CHECK(str(legacy_result(invalid)["structuredContent"]["error_code"])
          == "VALIDATION_ERROR");
    auto ping = call(s, modern_request("ping", "4"));
    CHECK(legacy_result(ping).ObjectEmpty());
    // The 2026-07-28 methods do not exist here.
    error_message(call(s, modern_request("server/discover", "5")), -32601);
    error_message(call(s, modern_request("subscriptions/listen", "6",
                                         R"("notifications":{})")),
                  -32601);
    CHECK(s.current_era() == protocol::era::legacy);
  }
  SECTION("an unserved or broken envelope is not checked") {
    for (std::string meta : {meta_json(R"("2025-11-25")"),
                             meta_json(R"("1999-01-01")"), meta_json("7"),
                             "{\"" + pv_key + "\":\"2026-07-28\"}"}) {
      INFO("_meta: " << meta);
      auto res = call(s, modern_request("tools/list", "7", "", meta));
      legacy_result(res);
    }
    CHECK(s.current_era() == protocol::era::legacy);
  }
  SECTION("a per-request logLevel is ignored; setLevel rules") {
    CHECK(send(s, modern_call("time_get_current", "{}", "8",
                              meta_with_level("debug")))
            .notifications.empty());
    call(s, request("logging/setLevel", "9", R"({"level":"debug"})"));
    CHECK(send(s, modern_call("time_get_current", "{}", "10",
                              meta_with_level("emergency")))
            .notifications.size()
          == 1);
  }
  SECTION("a claimed initialize is the refused second initialize") {
    error_message(call(s, modern_request("initialize", "11",
                                         R"("protocolVersion":"2025-06-18")")),
                  -32600);
    CHECK(s.revision() == "2025-11-25");
  }
}

TEST_CASE("modern: an older legacy revision keeps its -32602 for claimed "
          "calls",
          "[modern]") {
  auto s = legacy_session("2025-06-18");
  auto res = call(s, modern_call("time_get_current", R"({"format":"rfc"})"));
  CHECK(contains(error_message(res, -32602), "'format'"));
}

TEST_CASE("modern: an invalid claimed request does not decide the era",
          "[modern]") {
  auto s = session();
  auto old = call(s, modern_request("tools/list", "1", "",
                                    meta_json(R"("2025-11-25")")));
  CHECK(str(old["error"]["data"]["requested"]) == "2025-11-25");
  error_message(old, -32022);
  CHECK(s.current_era() == std::nullopt);
  auto future = call(s, modern_request("tools/list", "2", "",
                                       meta_json(R"("2099-01-01")")));
  error_message(future, -32022);
  auto broken = call(s, modern_request("tools/list", "3", "",
                                       "{\"" + pv_key + "\":\"2026-07-28\"}"));
  error_message(broken, -32602);
  auto bad_level = call(s, modern_request("tools/list", "4", "",
                                          meta_with_level("loud")));
  CHECK(contains(error_message(bad_level, -32602), level_key));
  CHECK(s.current_era() == std::nullopt);
  // Claimed notifications decide nothing either.
  send(s, R"({"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":)"
            + meta_json() + "}}");
  CHECK(s.current_era() == std::nullopt);
  SECTION("initialize still works") {
    auto init = call(s, initialize_request("2025-11-25"));
    CHECK(str(init["result"]["protocolVersion"]) == "2025-11-25");
    CHECK(s.current_era() == protocol::era::legacy);
  }
  SECTION("so does a valid claimed request") {
    modern_result(call(s, modern_request("server/discover", "5")));
    CHECK(s.current_era() == protocol::era::modern);
  }
}

// -- mcp::session: tracking sessions reported to the transport's directory --

TEST_CASE("modern: a tracking session is reported as created once its slot "
          "is granted",
          "[modern]") {
  auto s = modern_session();
  auto step = s.handle(mcp::decode(
    modern_call("time_session_start", start_args, "1")));
  REQUIRE(step.waiting());
  CHECK(step.output.created.empty());
  auto done = s.resume(true);
  REQUIRE_FALSE(done.waiting());
  auto res = parse(done.output.response);
  auto sid = str(modern_result(res)["structuredContent"]["session_id"]);
  CHECK(sid == step.slot_for());
  CHECK(done.output.created == std::vector<std::string>{sid});
  CHECK(done.output.gone.empty());

  // Reported once: later outputs carry no news.
  auto summary = send(s, modern_call("time_session_summary",
                                     session_args(sid), "2"));
  CHECK(summary.created.empty());
  CHECK(summary.gone.empty());
  auto ended = send(s, modern_call("time_session_end", session_args(sid), "3"));
  CHECK(ended.created.empty());
  CHECK(ended.gone.empty());

  SECTION("a refused slot creates nothing") {
    auto again = s.handle(mcp::decode(
      modern_call("time_session_start", start_args, "4")));
    REQUIRE(again.waiting());
    auto refused = s.resume(false);
    REQUIRE_FALSE(refused.waiting());
    auto r = parse(refused.output.response);
    CHECK(str(modern_result(r)["structuredContent"]["error_code"])
          == "LIMIT_REACHED");
    CHECK(refused.output.created.empty());
    CHECK(refused.output.gone.empty());
    CHECK(s.tracker().size() == 1);
  }
  SECTION("an evicted session is reported gone with the next output") {
    s.evict(sid);
    auto next = send(s, modern_request("tools/list", "5"));
    CHECK(next.gone == std::vector<std::string>{sid});
    CHECK(next.created.empty());
    CHECK(send(s, modern_request("tools/list", "6")).gone.empty());
  }
  SECTION("2025 sessions report theirs too") {
    auto l = legacy_session();
    auto out = send(l, R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"time_session_start","arguments":)"
                         + start_args + "}}");
    auto lsid = str(parse(out.response)["result"]["structuredContent"]
                                         ["session_id"]);
    CHECK(out.created == std::vector<std::string>{lsid});
  }
}

TEST_CASE("modern: expired tracking sessions are reported gone", "[modern]") {
  auto clock = std::make_shared<domain::fake_clock>(test_now());
  auto s = modern_session(clock);
  auto start = [&](const std::string& id) {
    auto out = send(s, modern_call("time_session_start", start_args, id));
    auto sid = str(parse(out.response)["result"]["structuredContent"]
                                       ["session_id"]);
    REQUIRE(out.created == std::vector<std::string>{sid});
    return sid;
  };
  SECTION("by the supervisor's sweep") {
    auto sid = start("1");
    clock->advance(4h + 1s);
    CHECK(s.expire_due() == std::vector<std::string>{sid});
    auto next = send(s, modern_request("tools/list", "2"));
    CHECK(next.gone == std::vector<std::string>{sid});
    CHECK(next.created.empty());
    CHECK(send(s, modern_request("tools/list", "3")).gone.empty());
  }
  SECTION("by the call that finds it due") {
    auto sid = start("1");
    clock->advance(4h + 1s);
    auto step = s.handle(mcp::decode(
      modern_call("time_session_summary", session_args(sid), "2")));
    REQUIRE_FALSE(step.waiting());
    CHECK(step.expired == std::vector<std::string>{sid});
    CHECK(step.output.gone == std::vector<std::string>{sid});
    auto r = parse(step.output.response);
    CHECK(str(modern_result(r)["structuredContent"]["error_code"])
          == "SESSION_EXPIRED");
  }
  SECTION("found due in a batch that then waits for a slot (2025-03-26)") {
    auto l = session(clock);
    call(l, initialize_request("2025-03-26"));
    auto legacy_start = [](const std::string& id) {
      return R"({"jsonrpc":"2.0","id":)" + id
             + R"(,"method":"tools/call","params":{"name":"time_session_start","arguments":)"
             + start_args + "}}";
    };
    auto out = send(l, legacy_start("1"));
    auto old = str(parse(out.response)["result"]["structuredContent"]
                                       ["session_id"]);
    CHECK(out.created == std::vector<std::string>{old});
    clock->advance(4h + 1s);
    auto paused = l.handle(mcp::decode(
      R"([{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"time_session_summary","arguments":)"
      + session_args(old) + "}}," + legacy_start("3") + "]"));
    REQUIRE(paused.waiting());
    CHECK(paused.expired == std::vector<std::string>{old});
    auto done = l.resume(true);
    REQUIRE_FALSE(done.waiting());
    CHECK(done.output.gone == std::vector<std::string>{old});
    CHECK(done.output.created == std::vector<std::string>{paused.slot_for()});
    CHECK(send(l, request("tools/list", "4")).gone.empty());
  }
}

TEST_CASE("modern: another session's tracking session id is "
          "indistinguishable from one never issued",
          "[modern]") {
  auto clock = std::make_shared<domain::fake_clock>(test_now());
  auto owner = modern_session(clock);
  auto other = modern_session(clock);
  auto out = send(owner, modern_call("time_session_start", start_args, "1"));
  auto sid = str(parse(out.response)["result"]["structuredContent"]
                                     ["session_id"]);
  const std::string never = "0f0e0d0c-0b0a-4908-8706-050403020100";
  auto foreign = send(other, modern_call("time_session_summary",
                                         session_args(sid), "2"));
  auto unknown = send(other, modern_call("time_session_summary",
                                         session_args(never), "2"));
  CHECK(contains(foreign.response, "SESSION_NOT_FOUND"));
  CHECK(replace_all(foreign.response, sid, "<id>")
        == replace_all(unknown.response, never, "<id>"));
  CHECK(foreign.gone.empty());
  CHECK(foreign.created.empty());
}
