// Unit tests for mcp::session (src/mcp/session.hpp): one MCP session driven with decoded
// frames, without an actor system.

#include "mcp/session.hpp"
#include "mcp/wire.hpp"
#include "domain/clock.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/mcp.hpp"
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

/// A session that completed the handshake with `revision`.
mcp::session ready(const std::string& revision = "2025-11-25") {
  auto s = session();
  auto res = call(s, initialize_request(revision));
  REQUIRE(res.HasMember("result"));
  REQUIRE(s.revision() == revision);
  CHECK(send(s, R"({"jsonrpc":"2.0","method":"notifications/initialized"})")
          .response.empty());
  return s;
}

std::string tools_call(const std::string& args_json,
                       const std::string& id = "1",
                       const std::string& name = "time_get_current") {
  return R"({"jsonrpc":"2.0","id":)" + id
         + R"(,"method":"tools/call","params":{"name":")" + name
         + R"(","arguments":)" + args_json + "}}";
}

} // namespace

// -- before initialize ----------------------------------------------------------

TEST_CASE("mcp: before initialize only ping and initialize are served") {
  auto s = session();
  CHECK_FALSE(s.initialized());
  CHECK(s.revision().empty());
  SECTION("ping") {
    auto res = call(s, request("ping", "5"));
    CHECK(res["id"].GetInt() == 5);
    REQUIRE(res["result"].IsObject());
    CHECK(res["result"].ObjectEmpty());
  }
  SECTION("other requests are refused with -32600 naming initialize") {
    for (std::string method : {"tools/list", "tools/call", "logging/setLevel",
                               "resources/list", "no/such/method"}) {
      INFO("method: " << method);
      auto res = call(s, request(method, R"("m")", "{}"));
      CHECK(str(res["id"]) == "m");
      CHECK(contains(error_message(res, -32600), "initialize"));
    }
    CHECK_FALSE(s.initialized());
  }
  SECTION("notifications get no response") {
    for (std::string method : {"notifications/initialized",
                               "notifications/cancelled", "whatever"}) {
      auto out = send(s, R"({"jsonrpc":"2.0","method":")" + method + "\"}");
      CHECK(out.response.empty());
      CHECK(out.notifications.empty());
    }
  }
  SECTION("batches are refused") {
    auto res = call(s, "[" + request("ping") + "," + initialize_request(
                                                        "2025-03-26", "2")
                         + "]");
    REQUIRE(res.IsObject());
    CHECK(res["id"].IsNull());
    error_message(res, -32600);
    CHECK_FALSE(s.initialized());
  }
}

// -- initialize -------------------------------------------------------------------

TEST_CASE("mcp: initialize negotiates the protocol revision") {
  for (std::string revision : {"2025-03-26", "2025-06-18", "2025-11-25"}) {
    INFO("requested: " << revision);
    auto s = session();
    auto res = call(s, initialize_request(revision, "1"));
    CHECK(str(res["result"]["protocolVersion"]) == revision);
    CHECK(s.initialized());
    CHECK(s.revision() == revision);
  }
  SECTION("unknown revisions get the newest") {
    auto s = session();
    auto res = call(s, initialize_request("1999-01-01"));
    CHECK(str(res["result"]["protocolVersion"]) == "2025-11-25");
    CHECK(s.revision() == "2025-11-25");
  }
}

TEST_CASE("mcp: initialize result describes the server") {
  auto s = session();
  auto res = call(s, initialize_request("2025-06-18", R"("init")"));
  CHECK(str(res["id"]) == "init");
  const auto& r = res["result"];
  REQUIRE(r.IsObject());
  CHECK(str(r["serverInfo"]["name"]) == "time-tracker-mcp");
  CHECK(str(r["serverInfo"]["title"]) == "Time Tracker MCP");
  CHECK(str(r["serverInfo"]["version"]) == "0.1.0");
  REQUIRE(r["capabilities"]["tools"].IsObject());
  REQUIRE(r["capabilities"]["tools"]["listChanged"].IsBool());
  CHECK_FALSE(r["capabilities"]["tools"]["listChanged"].GetBool());
  REQUIRE(r["capabilities"]["logging"].IsObject());
  CHECK(r["capabilities"]["logging"].ObjectEmpty());
  CHECK(str(r["instructions"]) == session_instructions);
}

TEST_CASE("mcp: initialize with bad params leaves the session uninitialized") {
  auto s = session();
  for (std::string params :
       {R"({})", R"({"protocolVersion":20251125})",
        R"({"protocolVersion":null})", R"({"protocolVersion":["2025-11-25"]})",
        R"(["2025-11-25"])", R"({"clientInfo":{"name":"x"}})"}) {
    INFO("params: " << params);
    auto res = call(s, request("initialize", "3", params));
    CHECK(res["id"].GetInt() == 3);
    error_message(res, -32602);
    CHECK_FALSE(s.initialized());
    CHECK(s.revision().empty());
  }
  SECTION("no params at all") {
    auto res = call(s, request("initialize", "4"));
    CHECK(contains(error_message(res, -32602), "protocolVersion"));
    CHECK_FALSE(s.initialized());
  }
  SECTION("still refuses other requests, then accepts a good initialize") {
    error_message(call(s, request("tools/list")), -32600);
    auto res = call(s, initialize_request("2025-03-26"));
    CHECK(str(res["result"]["protocolVersion"]) == "2025-03-26");
    CHECK(s.revision() == "2025-03-26");
  }
}

TEST_CASE("mcp: a second initialize is refused and changes nothing") {
  auto s = ready("2025-06-18");
  auto res = call(s, initialize_request("2025-11-25", "9"));
  CHECK(res["id"].GetInt() == 9);
  error_message(res, -32600);
  CHECK(s.revision() == "2025-06-18");
}

// -- after initialize ---------------------------------------------------------------

TEST_CASE("mcp: unknown methods after initialize are -32601") {
  auto s = ready();
  auto res = call(s, request("resources/subscribe", R"("r1")"));
  CHECK(str(res["id"]) == "r1");
  CHECK(contains(error_message(res, -32601), "resources/subscribe"));
  // ping still works
  CHECK(call(s, request("ping", "2"))["result"].IsObject());
}

TEST_CASE("mcp: tools/list returns the registry's list") {
  auto s = ready();
  auto res = call(s, request("tools/list", "2"));
  CHECK(res["result"] == parse(tools::make_registry({}, {"all"})->list_result_json()));
  SECTION("empty params are fine") {
    auto r = call(s, request("tools/list", "3", "{}"));
    CHECK(r["result"]["tools"].IsArray());
  }
  SECTION("a cursor is refused") {
    for (std::string cursor : {R"("abc")", "1", "null"}) {
      auto r = call(s, request("tools/list", "4",
                               R"({"cursor":)" + cursor + "}"));
      CHECK(r["id"].GetInt() == 4);
      CHECK(contains(error_message(r, -32602), "cursor"));
    }
  }
}

TEST_CASE("mcp: tools/call without a known tool name is -32602") {
  auto s = ready();
  SECTION("no name") {
    auto r = call(s, request("tools/call", "5", R"({"arguments":{}})"));
    CHECK(contains(error_message(r, -32602), "name"));
  }
  SECTION("name not a string") {
    auto r = call(s, request("tools/call", "5", R"({"name":7})"));
    error_message(r, -32602);
  }
  SECTION("no params") {
    auto r = call(s, request("tools/call", "5"));
    error_message(r, -32602);
  }
  SECTION("params array") {
    auto r = call(s, request("tools/call", "5", R"(["time_get_current"])"));
    error_message(r, -32602);
  }
  SECTION("unknown tool") {
    auto r = call(s, tools_call("{}", "6", "time_get_past"));
    CHECK(r["id"].GetInt() == 6);
    CHECK(contains(error_message(r, -32602), "time_get_past"));
  }
}

TEST_CASE("mcp: tools/call success carries text and structured content") {
  auto s = ready();
  auto res = call(s, tools_call(R"({"format":"friendly"})", "11"));
  CHECK(res["id"].GetInt() == 11);
  const auto& r = res["result"];
  REQUIRE(r.IsObject());
  REQUIRE(r["isError"].IsBool());
  CHECK_FALSE(r["isError"].GetBool());
  const auto& sc = r["structuredContent"];
  REQUIRE(sc.IsObject());
  CHECK(str(sc["timestamp"]) == "December 14, 2025 9:45:32 AM EST");
  CHECK(str(sc["timezone"]) == "America/New_York");
  REQUIRE(r["content"].IsArray());
  REQUIRE(r["content"].Size() == 1);
  CHECK(str(r["content"][0]["type"]) == "text");
  CHECK(parse(str(r["content"][0]["text"])) == sc);
  auto registry = tools::make_registry({}, {"all"});
  const auto* tool = registry->find("time_get_current");
  REQUIRE(tool != nullptr);
  CHECK(tool->check_output(str(r["content"][0]["text"])) == "");
  SECTION("arguments may be omitted") {
    auto d = call(s, request("tools/call", "12", R"({"name":"time_get_current"})"));
    CHECK_FALSE(d["result"]["isError"].GetBool());
    CHECK(str(d["result"]["structuredContent"]["timestamp"])
          == "2025-12-14T09:45:32.123-05:00");
  }
}

TEST_CASE("mcp: a bad zone is a tool result with isError, not an RPC error") {
  for (std::string revision : {"2025-03-26", "2025-06-18", "2025-11-25"}) {
    INFO("revision: " << revision);
    auto s = ready(revision);
    auto res = call(s, tools_call(R"({"timezone":"Mars/Olympus_Mons"})", "8"));
    CHECK_FALSE(res.HasMember("error"));
    const auto& r = res["result"];
    REQUIRE(r.IsObject());
    CHECK(r["isError"].GetBool());
    const auto& sc = r["structuredContent"];
    CHECK(sc["error"].GetBool());
    CHECK(str(sc["error_code"]) == "INVALID_TIMEZONE");
    CHECK(parse(str(r["content"][0]["text"])) == sc);
  }
}

TEST_CASE("mcp: schema violations depend on the negotiated revision") {
  SECTION("2025-11-25: a tool result with VALIDATION_ERROR") {
    auto s = ready("2025-11-25");
    auto res = call(s, tools_call(R"({"format":"rfc"})", "21"));
    CHECK(res["id"].GetInt() == 21);
    CHECK_FALSE(res.HasMember("error"));
    const auto& r = res["result"];
    CHECK(r["isError"].GetBool());
    const auto& sc = r["structuredContent"];
    CHECK(sc["error"].GetBool());
    CHECK(str(sc["error_code"]) == "VALIDATION_ERROR");
    CHECK(contains(str(sc["message"]), "'format'"));
    CHECK(parse(str(r["content"][0]["text"])) == sc);
    auto registry = tools::make_registry({}, {"all"});
    const auto* tool = registry->find("time_get_current");
    CHECK(tool->check_output(str(r["content"][0]["text"])) == "");
  }
  for (std::string revision : {"2025-06-18", "2025-03-26"}) {
    DYNAMIC_SECTION(revision << ": JSON-RPC error -32602") {
      auto s = ready(revision);
      auto res = call(s, tools_call(R"({"format":"rfc"})", R"("v")"));
      CHECK(str(res["id"]) == "v");
      CHECK(contains(error_message(res, -32602), "'format'"));
      auto wrong_type = call(s, tools_call(R"({"timezone":1})", "2"));
      CHECK(contains(error_message(wrong_type, -32602), "'timezone'"));
      auto not_object = call(s, tools_call("[]", "3"));
      CHECK(contains(error_message(not_object, -32602), "object"));
    }
  }
}

// -- batches -----------------------------------------------------------------------

TEST_CASE("mcp: batches are served after negotiating 2025-03-26") {
  auto s = ready("2025-03-26");
  SECTION("responses in order, notifications answered by nothing") {
    auto res = call(
      s, "[" + request("ping", R"("a")") + ","
           + R"({"jsonrpc":"2.0","method":"notifications/initialized"})" + ","
           + request("tools/list", "2") + "," + tools_call("{}", "3") + ","
           + request("nope", "4") + "]");
    REQUIRE(res.IsArray());
    REQUIRE(res.Size() == 4);
    CHECK(str(res[0]["id"]) == "a");
    CHECK(res[0]["result"].IsObject());
    CHECK(res[1]["id"].GetInt() == 2);
    CHECK(res[1]["result"]["tools"].IsArray());
    CHECK(res[2]["id"].GetInt() == 3);
    CHECK_FALSE(res[2]["result"]["isError"].GetBool());
    CHECK(res[3]["id"].GetInt() == 4);
    error_message(res[3], -32601);
  }
  SECTION("an all-notification batch gets no response") {
    auto out = send(s, R"([{"jsonrpc":"2.0","method":"notifications/initialized"},)"
                       R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}])");
    CHECK(out.response.empty());
  }
  SECTION("initialize inside a batch is refused for that element") {
    auto res = call(s, "[" + initialize_request("2025-03-26", "7") + ","
                         + request("ping", "8") + "]");
    REQUIRE(res.IsArray());
    REQUIRE(res.Size() == 2);
    CHECK(res[0]["id"].GetInt() == 7);
    error_message(res[0], -32600);
    CHECK(res[1]["id"].GetInt() == 8);
    CHECK(res[1]["result"].IsObject());
    CHECK(s.revision() == "2025-03-26");
  }
  SECTION("invalid elements get their own error") {
    auto res = call(s, "[42," + request("ping", "9") + "]");
    REQUIRE(res.IsArray());
    REQUIRE(res.Size() == 2);
    CHECK(res[0]["id"].IsNull());
    error_message(res[0], -32600);
    CHECK(res[1]["id"].GetInt() == 9);
  }
  SECTION("an empty batch is one error with id null") {
    auto res = call(s, "[]");
    REQUIRE(res.IsObject());
    CHECK(res["id"].IsNull());
    error_message(res, -32600);
  }
}

TEST_CASE("mcp: batches are refused in 2025-06-18 and 2025-11-25") {
  for (std::string revision : {"2025-06-18", "2025-11-25"}) {
    INFO("revision: " << revision);
    auto s = ready(revision);
    auto res = call(s, "[" + request("ping", "1") + "," + request("ping", "2")
                         + "]");
    REQUIRE(res.IsObject());
    CHECK(res["id"].IsNull());
    CHECK(contains(error_message(res, -32600), "batch"));
  }
}

// -- frame-level errors and messages that get no reply -------------------------------

TEST_CASE("mcp: frame-level errors get one error with id null") {
  for (bool initialized : {false, true}) {
    auto s = initialized ? ready() : session();
    INFO("initialized: " << initialized);
    auto parse_err = call(s, R"({"jsonrpc":"2.0","id":1,"method":)");
    CHECK(parse_err["id"].IsNull());
    error_message(parse_err, -32700);
    auto deep = call(s, std::string(200, '[') + std::string(200, ']'));
    CHECK(deep["id"].IsNull());
    error_message(deep, -32600);
    // What the stdio edge hands over for a line over max_line_bytes.
    protocol::frame oversized;
    oversized.error_code = protocol::invalid_request;
    oversized.error_message = "Invalid Request: message exceeds 4194304 bytes";
    auto out = s.handle(oversized).output;
    auto res = parse(out.response);
    CHECK(res["id"].IsNull());
    CHECK(error_message(res, -32600) == oversized.error_message);
    CHECK(out.notifications.empty());
  }
}

TEST_CASE("mcp: invalid messages are answered with their error") {
  auto s = ready();
  auto res = call(s, R"({"jsonrpc":"1.0","id":5,"method":"ping"})");
  CHECK(res["id"].GetInt() == 5);
  error_message(res, -32600);
  auto bad_id = call(s, R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})");
  CHECK(bad_id["id"].IsNull());
  error_message(bad_id, -32600);
}

TEST_CASE("mcp: responses and cancellations from the client get no reply") {
  for (bool initialized : {false, true}) {
    auto s = initialized ? ready() : session();
    for (std::string frame :
         {R"({"jsonrpc":"2.0","id":5,"result":{}})",
          R"({"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"no"}})",
          R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"r"}})",
          R"({"jsonrpc":"2.0","method":"notifications/cancelled"})"}) {
      INFO("frame: " << frame);
      auto out = send(s, frame);
      CHECK(out.response.empty());
      CHECK(out.notifications.empty());
    }
    CHECK(s.initialized() == initialized);
  }
}

// -- logging --------------------------------------------------------------------------

TEST_CASE("mcp: logging/setLevel validates the level") {
  auto s = ready();
  for (std::string params : {R"({})", R"({"level":"verbose"})",
                             R"({"level":"DEBUG"})", R"({"level":3})",
                             R"({"level":null})"}) {
    INFO("params: " << params);
    auto res = call(s, request("logging/setLevel", "1", params));
    CHECK(contains(error_message(res, -32602), "level"));
  }
  auto none = call(s, request("logging/setLevel", "1"));
  error_message(none, -32602);
  auto array = call(s, request("logging/setLevel", "1", R"(["debug"])"));
  error_message(array, -32602);
  for (std::string level : {"debug", "info", "notice", "warning", "error",
                            "critical", "alert", "emergency"}) {
    auto res = call(s, request("logging/setLevel", "2",
                               R"({"level":")" + level + "\"}"));
    CHECK(res["id"].GetInt() == 2);
    REQUIRE(res["result"].IsObject());
    CHECK(res["result"].ObjectEmpty());
  }
}

TEST_CASE("mcp: logging/setLevel refuses a level with an embedded NUL") {
  // on_set_level passes GetString() (a C string) to parse_log_level, so
  // "debug\u0000x" is read as "debug" and accepted.
  auto s = ready();
  auto res = call(s, request("logging/setLevel", "1",
                             R"({"level":"debug\u0000x"})"));
  CHECK(res.HasMember("error"));
  CHECK_FALSE(res.HasMember("result"));
}

TEST_CASE("mcp: log notifications follow the client's level") {
  auto s = ready();
  SECTION("none before any setLevel") {
    auto out = send(s, tools_call("{}"));
    CHECK_FALSE(out.response.empty());
    CHECK(out.notifications.empty());
    auto bad = send(s, tools_call(R"({"timezone":"Nowhere/Land"})"));
    CHECK(bad.notifications.empty());
    auto invalid = send(s, tools_call(R"({"format":1})"));
    CHECK(invalid.notifications.empty());
  }
  SECTION("debug: a successful call logs one debug message") {
    call(s, request("logging/setLevel", "1", R"({"level":"debug"})"));
    auto out = send(s, tools_call("{}", "2"));
    CHECK(parse(out.response)["id"].GetInt() == 2);
    REQUIRE(out.notifications.size() == 1);
    auto n = parse(out.notifications[0]);
    CHECK(str(n["jsonrpc"]) == "2.0");
    CHECK(str(n["method"]) == "notifications/message");
    CHECK_FALSE(n.HasMember("id"));
    CHECK(str(n["params"]["level"]) == "debug");
    CHECK(str(n["params"]["logger"]) == "time-tracker-mcp");
    CHECK(n["params"]["data"].IsString());
    CHECK(contains(str(n["params"]["data"]), "time_get_current"));
  }
  SECTION("error: a successful call logs nothing") {
    call(s, request("logging/setLevel", "1", R"({"level":"error"})"));
    auto out = send(s, tools_call("{}", "2"));
    CHECK_FALSE(out.response.empty());
    CHECK(out.notifications.empty());
  }
  SECTION("warning: invalid arguments are logged, successes are not") {
    call(s, request("logging/setLevel", "1", R"({"level":"warning"})"));
    CHECK(send(s, tools_call("{}", "2")).notifications.empty());
    auto out = send(s, tools_call(R"({"format":"rfc"})", "3"));
    REQUIRE(out.notifications.size() == 1);
    auto n = parse(out.notifications[0]);
    CHECK(str(n["params"]["level"]) == "warning");
    CHECK(contains(str(n["params"]["data"]), "format"));
  }
  SECTION("the level can be raised again") {
    call(s, request("logging/setLevel", "1", R"({"level":"debug"})"));
    CHECK(send(s, tools_call("{}", "2")).notifications.size() == 1);
    call(s, request("logging/setLevel", "3", R"({"level":"emergency"})"));
    CHECK(send(s, tools_call("{}", "4")).notifications.empty());
  }
}

// -- ids ------------------------------------------------------------------------------

TEST_CASE("mcp: ids are echoed exactly") {
  auto s = session();
  for (std::string id :
       {"0", "-1", "9223372036854775807", "-9223372036854775808",
        "18446744073709551615", R"("")", R"("abc")", R"("a\"b\\c")",
        R"("caf\u00e9 \ud83d\ude00")", R"("  spaced  ")"}) {
    INFO("id: " << id);
    auto out = send(s, request("ping", id));
    auto expected_id = mcp::decode(request("ping", id)).messages[0].id.json;
    CHECK(out.response.rfind(R"({"jsonrpc":"2.0","id":)" + expected_id + ",", 0)
          == 0);
    auto res = parse(out.response);
    CHECK(res["id"] == parse(id));
  }
  SECTION("in errors and tool results too") {
    auto before = send(s, request("tools/list", "18446744073709551615"));
    CHECK(contains(before.response, R"("id":18446744073709551615,)"));
    auto r = ready();
    auto result = send(r, tools_call("{}", "-9223372036854775808"));
    CHECK(contains(result.response, R"("id":-9223372036854775808,)"));
    auto err = send(r, tools_call("{}", R"("x\"y")", "nope"));
    CHECK(str(parse(err.response)["id"]) == "x\"y");
  }
}

// -- completion ---------------------------------------------------------------

TEST_CASE("mcp: completion/complete completes prompt arguments") {
  auto s = session();
  auto init = call(s, initialize_request("2025-11-25"));
  CHECK(init["result"]["capabilities"]["completions"].IsObject());
  auto res = call(s, request("completion/complete", "2",
                             R"({"ref":{"type":"ref/prompt","name":"standup"},)"
                             R"("argument":{"name":"timezone","value":"Asia/Tok"}})"));
  REQUIRE(res.HasMember("result"));
  REQUIRE(res["result"]["completion"]["values"].IsArray());
  REQUIRE(res["result"]["completion"]["values"].Size() == 1);
  CHECK(res["result"]["completion"]["values"][0] == "Asia/Tokyo");
  CHECK(res["result"]["completion"]["total"] == 1);
  CHECK(res["result"]["completion"]["hasMore"] == false);
  // An argument without suggestions: an empty list.
  auto none = call(s, request("completion/complete", "5",
                              R"({"ref":{"type":"ref/prompt","name":"execution_report"},)"
                              R"("argument":{"name":"session_id","value":"x"}})"));
  CHECK(none["result"]["completion"]["values"].Empty());
  // An unknown prompt, or an argument it does not have: -32602.
  CHECK(contains(error_message(call(s, request("completion/complete", "6",
                                               R"({"ref":{"type":"ref/prompt","name":"p"},)"
                                               R"("argument":{"name":"a","value":"x"}})")),
                               -32602),
                 "unknown prompt"));
  CHECK(contains(error_message(call(s, request("completion/complete", "7",
                                               R"({"ref":{"type":"ref/prompt","name":"standup"},)"
                                               R"("argument":{"name":"a","value":"x"}})")),
                               -32602),
                 "has no argument"));
  // Malformed requests are -32602 naming what is wrong.
  CHECK(contains(error_message(call(s, request("completion/complete", "3",
                                               R"({"argument":{}})")),
                               -32602),
                 "ref"));
  CHECK(contains(
    error_message(call(s, request("completion/complete", "4",
                                  R"({"ref":{"type":"ref/tool"},)"
                                  R"("argument":{"name":"a","value":"x"}})")),
                  -32602),
    "ref.type"));
}
