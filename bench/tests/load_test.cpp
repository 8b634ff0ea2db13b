// Unit tests of the load generator's pure parts: the histogram, reply
// checking (JSON and SSE; the modern era's resultType), request building in
// both eras (the modern `_meta` envelope and headers) and the command line.

#include "histogram.hpp"
#include "mcp.hpp"
#include "options.hpp"
#include "stats.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace ttb;

TEST_CASE("bench histogram: buckets are contiguous and narrow", "[bench]") {
  for (std::size_t i = 0; i + 1 < 4000; ++i) {
    REQUIRE(histogram::bucket_high(i) + 1 == histogram::bucket_low(i + 1));
    auto low = histogram::bucket_low(i);
    auto width = histogram::bucket_high(i) - low + 1;
    if (low < 256) // exact below 256 ns
      REQUIRE(width == 1);
    else
      REQUIRE(static_cast<double>(width) / static_cast<double>(low)
              <= 1.0 / 128 + 1e-12);
  }
  for (std::uint64_t v : {0ull, 1ull, 255ull, 256ull, 257ull, 1000ull,
                          123456789ull, 1ull << 39})
    REQUIRE(histogram::bucket_low(histogram::bucket_of(v)) <= v);
}

TEST_CASE("bench histogram: percentiles within 1 %", "[bench]") {
  std::mt19937_64 rng{42};
  std::lognormal_distribution<double> dist{std::log(300000.0), 0.8};
  std::vector<std::uint64_t> values;
  histogram h;
  for (int i = 0; i < 100000; ++i) {
    auto v = static_cast<std::uint64_t>(dist(rng));
    values.push_back(v);
    h.record(v);
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    auto exact = values[static_cast<std::size_t>(
                          std::ceil(q * values.size()))
                        - 1];
    auto got = h.quantile(q);
    REQUIRE(std::abs(static_cast<double>(got) - static_cast<double>(exact))
            <= 0.01 * static_cast<double>(exact));
  }
  REQUIRE(h.max() == values.back());
  REQUIRE(h.min() == values.front());
  REQUIRE(h.quantile(1.0) == values.back());
  histogram other;
  other.record(5);
  h.merge(other);
  REQUIRE(h.count() == 100001);
  REQUIRE(h.min() == 5);
}

TEST_CASE("bench op_table: the send lag merges and is no row", "[bench]") {
  error_log errors{0};
  op_table a{errors};
  op_table b{errors};
  a.record("tools/call x", 200000);
  a.record_send_lag(1000);
  b.record_send_lag(3000);
  b.record_send_lag(500000);
  a.merge(b);
  REQUIRE(a.send_lag().count() == 3);
  REQUIRE(a.send_lag().min() == 1000);
  REQUIRE(a.send_lag().max() == 500000);
  // Only the exchanges are rows ("all requests" is their sum).
  REQUIRE(a.rows().size() == 1);
  REQUIRE(a.rows()[0]->latency.count() == 1);
}

namespace {

incoming http_reply(std::string content_type, std::string body,
                    int status = 200) {
  incoming in;
  in.status = status;
  in.content_type = std::move(content_type);
  in.body = std::move(body);
  return in;
}

const char* ok_call
  = R"({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text",)"
    R"("text":"{\"a\":1}"}],"structuredContent":{"a":1},"isError":false}})";

} // namespace

TEST_CASE("bench replies: JSON results and errors", "[bench]") {
  std::string err;
  auto doc = mcp::check_reply(http_reply("application/json", ok_call), 7,
                              mcp::want::tool_ok, err);
  REQUIRE(err.empty());
  REQUIRE(doc);
  rapidjson::Document scratch;
  const auto* p = mcp::tool_payload(*doc, scratch);
  REQUIRE(p);
  REQUIRE((*p)["a"].GetInt() == 1);

  mcp::check_reply(http_reply("application/json", ok_call), 8,
                   mcp::want::tool_ok, err);
  REQUIRE(err.find("id does not match") != std::string::npos);

  err.clear();
  mcp::check_reply(http_reply("application/json", ok_call), 7,
                   mcp::want::tool_error, err);
  REQUIRE(err.find("expected isError") != std::string::npos);

  err.clear();
  mcp::check_reply(
    http_reply("application/json",
               R"({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":)"
               R"("text","text":"boom"}],"isError":true}})"),
    7, mcp::want::tool_ok, err);
  REQUIRE(err.find("isError: true: boom") != std::string::npos);

  err.clear();
  auto rpc = R"({"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"no"}})";
  mcp::check_reply(http_reply("application/json", rpc), 7,
                   mcp::want::tool_ok, err);
  REQUIRE(err == "JSON-RPC error -32602 no");
  err.clear();
  REQUIRE(mcp::check_reply(http_reply("application/json", rpc), 7,
                           mcp::want::rpc_error, err));
  REQUIRE(err.empty());

  mcp::check_reply(http_reply("application/json", ok_call, 404), 7,
                   mcp::want::tool_ok, err);
  REQUIRE(err.rfind("HTTP 404", 0) == 0);
  err.clear();
  mcp::check_reply(http_reply("text/plain", ok_call), 7, mcp::want::tool_ok,
                   err);
  REQUIRE(err.find("Content-Type") != std::string::npos);
  err.clear();
  mcp::check_reply(http_reply("application/json", "{"), 7,
                   mcp::want::tool_ok, err);
  REQUIRE(err.find("not JSON") != std::string::npos);
}

TEST_CASE("bench replies: SSE streams", "[bench]") {
  std::string err;
  std::string stream
    = "event: message\r\n"
      "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
      "\"params\":{\"level\":\"debug\",\"data\":\"x\"}}\r\n"
      "\r\n"
      ": a comment\n"
      "id: 1\n"
      "data: {\"jsonrpc\":\"2.0\",\"id\":7,\n"
      "data: \"result\":{}}\n";
  auto doc = mcp::check_reply(
    http_reply("text/event-stream; charset=utf-8", stream), 7,
    mcp::want::result, err);
  REQUIRE(err.empty());
  REQUIRE(doc);
  REQUIRE((*doc)["result"].IsObject());

  mcp::check_reply(http_reply("text/event-stream", stream), 8,
                   mcp::want::result, err);
  REQUIRE(err.find("2 events") != std::string::npos);
}

TEST_CASE("bench replies: notifications and DELETE", "[bench]") {
  std::string err;
  mcp::check_reply(http_reply("", "", 202), 0, mcp::want::notification, err);
  REQUIRE(err.empty());
  mcp::check_reply(http_reply("", "", 405), 0, mcp::want::session_end, err);
  REQUIRE(err.empty());
  mcp::check_reply(http_reply("", "", 404), 0, mcp::want::session_end, err);
  REQUIRE(!err.empty());
  err.clear();
  incoming broken;
  broken.transport_error = "HTTP read: end of stream";
  mcp::check_reply(broken, 1, mcp::want::result, err);
  REQUIRE(err == "HTTP read: end of stream");
}

namespace {

/// The value of header `name` in `m`, or nullptr.
const std::string* header(const outgoing& m, std::string_view name) {
  for (const auto& [n, v] : m.headers)
    if (n == name)
      return &v;
  return nullptr;
}

std::string str(const rapidjson::Value& v) {
  REQUIRE(v.IsString());
  return v.GetString();
}

} // namespace

TEST_CASE("bench requests: built in one place", "[bench]") {
  mcp::request_builder b{"2025-06-18"};
  REQUIRE(!b.modern());
  REQUIRE(b.needs_initialize());
  rapidjson::Document d;
  auto init = b.initialize(3);
  d.Parse(init.body.c_str());
  REQUIRE(d["id"].GetInt() == 3);
  REQUIRE(init.id == 3);
  REQUIRE(str(d["params"]["protocolVersion"]) == "2025-06-18");
  REQUIRE(str(d["params"]["clientInfo"]["name"]) == "time-tracker-bench");
  REQUIRE(init.headers.empty()); // initialize negotiates in its body
  auto call = b.tools_call(4, "get_\"time", R"({"x":1})");
  d.Parse(call.body.c_str());
  REQUIRE(!d.HasParseError());
  REQUIRE(str(d["params"]["name"]) == "get_\"time");
  REQUIRE(!d["params"].HasMember("_meta"));
  REQUIRE(call.headers.size() == 1);
  REQUIRE(*header(call, "MCP-Protocol-Version") == "2025-06-18");
  REQUIRE(call.session.empty());
  auto note = b.initialized();
  REQUIRE(note.notification);
  d.Parse(note.body.c_str());
  REQUIRE(str(d["method"]) == "notifications/initialized");
  d.Parse(b.ping(5).body.c_str());
  REQUIRE(str(d["method"]) == "ping");
  REQUIRE(std::string{b.ping_method()} == "ping");
  auto del = b.end_session("abc");
  REQUIRE(del.verb == outgoing::del);
  REQUIRE(del.session == "abc");
  d.Parse(mcp::request_builder::session_start_args("M2", mcp::task_ids(3))
            .c_str());
  REQUIRE(d["task_ids"].Size() == 3);
  REQUIRE(str(d["task_ids"][2]) == "M2-003");
  d.Parse(mcp::request_builder::report_args("s\"1", "csv").c_str());
  REQUIRE(str(d["session_id"]) == "s\"1");
  REQUIRE(str(d["format"]) == "csv");
}

TEST_CASE("bench requests: the era of a revision", "[bench]") {
  using mcp::era;
  REQUIRE(mcp::era_of("2026-07-28") == era::modern);
  REQUIRE(mcp::era_of("2027-01-05") == era::modern);
  REQUIRE(mcp::era_of("2025-11-25") == era::legacy);
  REQUIRE(mcp::era_of("2025-03-26") == era::legacy);
  REQUIRE(mcp::era_of("2026-07-27") == era::legacy);
  REQUIRE(mcp::era_of("2026-7-28") == era::legacy);
  REQUIRE(mcp::era_of("2026-07-2x") == era::legacy);
  REQUIRE(mcp::era_of("draft") == era::legacy);
  REQUIRE(mcp::era_of("") == era::legacy);
}

TEST_CASE("bench requests: modern (2026-07-28) body _meta and headers",
          "[bench]") {
  for (std::string v : {"2026-07-28", "2027-01-05"}) {
    mcp::request_builder b{v};
    REQUIRE(b.modern());
    REQUIRE(!b.needs_initialize());
    auto check_meta = [&](const rapidjson::Value& params) {
      REQUIRE(params.HasMember("_meta"));
      const auto& meta = params["_meta"];
      REQUIRE(meta.MemberCount() == 3);
      REQUIRE(str(meta["io.modelcontextprotocol/protocolVersion"]) == v);
      const auto& caps = meta["io.modelcontextprotocol/clientCapabilities"];
      REQUIRE(caps.IsObject());
      REQUIRE(caps.MemberCount() == 0);
      const auto& info = meta["io.modelcontextprotocol/clientInfo"];
      REQUIRE(str(info["name"]) == "time-tracker-bench");
      REQUIRE(str(info["version"]) == mcp::client_version);
    };

    auto call = b.tools_call(9, "time_get_current",
                             R"({"timezone":"America/New_York"})");
    rapidjson::Document d;
    d.Parse(call.body.c_str());
    REQUIRE(!d.HasParseError());
    REQUIRE(str(d["jsonrpc"]) == "2.0");
    REQUIRE(d["id"].GetInt() == 9);
    REQUIRE(call.id == 9);
    REQUIRE(!call.notification);
    REQUIRE(str(d["method"]) == "tools/call");
    REQUIRE(str(d["params"]["name"]) == "time_get_current");
    REQUIRE(str(d["params"]["arguments"]["timezone"]) == "America/New_York");
    check_meta(d["params"]);
    REQUIRE(call.verb == outgoing::post);
    REQUIRE(call.session.empty()); // no Mcp-Session-Id
    REQUIRE(call.headers.size() == 3);
    REQUIRE(*header(call, "MCP-Protocol-Version") == v);
    REQUIRE(*header(call, "Mcp-Method") == "tools/call");
    REQUIRE(*header(call, "Mcp-Name") == "time_get_current");

    auto disc = b.discover(10);
    d.Parse(disc.body.c_str());
    REQUIRE(!d.HasParseError());
    REQUIRE(str(d["method"]) == "server/discover");
    REQUIRE(d["id"].GetInt() == 10);
    check_meta(d["params"]);
    REQUIRE(d["params"].MemberCount() == 1);
    REQUIRE(disc.headers.size() == 2);
    REQUIRE(*header(disc, "MCP-Protocol-Version") == v);
    REQUIRE(*header(disc, "Mcp-Method") == "server/discover");
    REQUIRE(!header(disc, "Mcp-Name"));

    // No ping in 2026-07-28: its stand-in is server/discover.
    REQUIRE(std::string{b.ping_method()} == "server/discover");
    auto ping = b.ping(11);
    REQUIRE(ping.body == b.discover(11).body);
    REQUIRE(*header(ping, "Mcp-Method") == "server/discover");
  }

  // Mcp-Name of a name that is not plain ASCII goes as =?base64?...?=.
  mcp::request_builder b{"2026-07-28"};
  auto call = b.tools_call(1, "h\xc3\xa9llo", "{}");
  REQUIRE(*header(call, "Mcp-Name") == "=?base64?aMOpbGxv?=");
  REQUIRE(mcp::header_value("time_session_end") == "time_session_end");
  REQUIRE(mcp::header_value(" x") == "=?base64?IHg=?=");
  REQUIRE(mcp::header_value("a\tb") == "=?base64?YQli?=");
  REQUIRE(mcp::header_value("ab\x7f") == "=?base64?YWJ/?=");

  // A session_id argument also as Mcp-Param-Session-Id (x-mcp-header),
  // in 2026-07-28 only.
  auto args = mcp::request_builder::task_args("s-42", "M2-001");
  REQUIRE(*header(b.tools_call(2, "time_task_start", args),
                  "Mcp-Param-Session-Id")
          == "s-42");
  REQUIRE(!header(b.tools_call(3, "time_get_current", "{}"),
                  "Mcp-Param-Session-Id"));
  mcp::request_builder legacy{"2025-11-25"};
  REQUIRE(!header(legacy.tools_call(5, "time_task_start", args),
                  "Mcp-Param-Session-Id"));
}

TEST_CASE("bench replies: modern results must be complete", "[bench]") {
  std::string err;
  // ok_call has no resultType: fine in 2025, wrong in 2026-07-28.
  REQUIRE(mcp::check_reply(http_reply("application/json", ok_call), 7,
                           mcp::want::tool_ok, err, mcp::era::legacy));
  REQUIRE(err.empty());
  REQUIRE(!mcp::check_reply(http_reply("application/json", ok_call), 7,
                            mcp::want::tool_ok, err, mcp::era::modern));
  REQUIRE(err.find("no resultType") != std::string::npos);

  err.clear();
  auto complete
    = R"({"jsonrpc":"2.0","id":7,"result":{"resultType":"complete",)"
      R"("content":[],"structuredContent":{"a":1},"_meta":{}}})";
  REQUIRE(mcp::check_reply(http_reply("application/json", complete), 7,
                           mcp::want::tool_ok, err, mcp::era::modern));
  REQUIRE(err.empty());
  auto discover
    = R"({"jsonrpc":"2.0","id":3,"result":{"resultType":"complete",)"
      R"("supportedVersions":["2026-07-28"]}})";
  REQUIRE(mcp::check_reply(http_reply("application/json", discover), 3,
                           mcp::want::result, err, mcp::era::modern));
  REQUIRE(err.empty());

  auto partial
    = R"({"jsonrpc":"2.0","id":3,"result":{"resultType":"partial"}})";
  REQUIRE(!mcp::check_reply(http_reply("application/json", partial), 3,
                            mcp::want::result, err, mcp::era::modern));
  REQUIRE(err == "resultType is 'partial', not 'complete'");

  // A JSON-RPC error has no result to check.
  err.clear();
  auto rpc = R"({"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"no"}})";
  REQUIRE(mcp::check_reply(http_reply("application/json", rpc), 7,
                           mcp::want::rpc_error, err, mcp::era::modern));
  REQUIRE(err.empty());
}

namespace {

parse_result parse(std::vector<std::string> args) {
  std::vector<char*> argv;
  static std::string name = "time-tracker-bench";
  argv.push_back(name.data());
  for (auto& a : args)
    argv.push_back(a.data());
  return parse_options(static_cast<int>(argv.size()), argv.data());
}

} // namespace

TEST_CASE("bench options: defaults and errors", "[bench]") {
  auto r = parse({"--url", "http://127.0.0.1:1/mcp"});
  REQUIRE(r.opts);
  REQUIRE(r.opts->clients == 64);
  REQUIRE(r.opts->run_for == nanos{std::chrono::seconds{10}});
  REQUIRE(r.opts->warmup == nanos{std::chrono::seconds{2}});

  r = parse({"--scenario=workflow", "--requests", "10", "--stdio", "--",
             "server", "stdio"});
  REQUIRE(r.opts);
  REQUIRE(r.opts->clients == 1);
  REQUIRE(r.opts->tasks == 5);
  REQUIRE(r.opts->warmup.count() == 0);
  REQUIRE(r.opts->command == std::vector<std::string>{"server", "stdio"});

  r = parse({"--url", "http://h/mcp", "--scenario", "fill-tracking"});
  REQUIRE(r.opts->tasks == 500);
  REQUIRE(r.opts->sessions == 100);

  REQUIRE(parse_duration("250ms") == nanos{std::chrono::milliseconds{250}});
  REQUIRE(parse_duration("1.5s") == nanos{std::chrono::milliseconds{1500}});
  REQUIRE(parse_duration("2m") == nanos{std::chrono::minutes{2}});
  REQUIRE(!parse_duration("fast"));

  r = parse({"--url", "http://h/mcp", "--scenario", "idle-sessions",
             "--protocol-version", "2025-11-25"});
  REQUIRE(r.opts);
  r = parse({"--url", "http://h/mcp", "--scenario", "handshake",
             "--protocol-version", "2026-07-28"});
  REQUIRE(r.opts);

  r = parse({"--url", "http://h/mcp", "--scenario", "workflow",
             "--report-format", "html", "--summaries", "3"});
  REQUIRE(r.opts);
  REQUIRE(r.opts->report_format == "html");
  REQUIRE(r.opts->summaries == 3);

  r = parse({"--url", "http://h/mcp", "--raw-post", "--scenario", "ping"});
  REQUIRE(r.opts);
  REQUIRE(r.opts->raw_post);

  for (auto bad : std::vector<std::vector<std::string>>{
         {},
         {"--url", "https://h/mcp"},
         {"--url", "http://h/mcp", "--stdio", "--", "x"},
         {"--url", "http://h/mcp", "--args", "[1]"},
         {"--url", "http://h/mcp", "--mix", "ping=1"},
         {"--url", "http://h/mcp", "--scenario", "mixed", "--mix", "nap=1"},
         {"--url", "http://h/mcp", "--duration", "1s", "--requests", "5"},
         {"--url", "http://h/mcp", "--scenario", "idle-sessions", "--rate",
          "5"},
         {"--scenario", "idle-sessions", "--stdio", "--", "x"},
         {"--url", "http://h/mcp", "--bogus"},
         {"--url", "http://h/mcp", "--scenario", "workflow",
          "--report-format", "pdf"},
         {"--url", "http://h/mcp", "--scenario", "workflow", "--summaries",
          "0"},
         {"--url", "http://h/mcp", "--raw-post", "--scenario", "workflow"},
         {"--raw-post", "--stdio", "--", "x"},
         {"--url", "http://h/mcp", "--raw-post=1"},
         {"--url", "http://h/mcp", "--scenario", "idle-sessions",
          "--protocol-version", "2026-07-28"},
         {"--url", "http://h/mcp", "--scenario", "idle-sessions",
          "--protocol-version=2027-01-05"},
       }) {
    auto res = parse(bad);
    REQUIRE(!res.opts);
    REQUIRE(res.exit_code == 2);
  }
  auto res = parse({"--url", "http://h/mcp", "--scenario", "idle-sessions",
                    "--protocol-version", "2026-07-28"});
  REQUIRE(res.message.find("stateless") != std::string::npos);
}
