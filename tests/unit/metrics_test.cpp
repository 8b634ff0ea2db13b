// The metrics module (src/metrics.hpp) through its text page, the bounded
// description of an answered message (mcp/operation.hpp), and the rules for
// GET /metrics (edge/http_rules.hpp). The registry is one per process:
// checks read values before and after, or use label values of their own.

#include "edge/http_rules.hpp"
#include "mcp/operation.hpp"
#include "metrics.hpp"
#include "protocol/json_rpc.hpp"
#include "tools/registry.hpp"

#include <catch2/catch.hpp>

#include <sstream>
#include <string>

using namespace ttm;

namespace {

/// The page's lines that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& page,
                                        const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in{page};
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0)
      out.push_back(line);
  return out;
}

/// The value of the sample line that is exactly `series` (name{labels}),
/// or -1 when the page has none.
double sample(const std::string& page, const std::string& series) {
  for (const auto& l : lines_starting(page, series + " "))
    return std::stod(l.substr(series.size() + 1));
  return -1;
}

protocol::request_id id_of(const char* json) {
  protocol::request_id id;
  id.kind = protocol::request_id::integer;
  id.json = json;
  return id;
}

} // namespace

TEST_CASE("the page has every family, typed and explained", "[metrics]") {
  // A family with labels appears with its first label set.
  metrics::observe_operation("ping", "", "", "2025-06-18",
                             metrics::transport_pipe, 0.00001);
  metrics::observe_session(metrics::transport_pipe, 1);
  metrics::refusal(404);
  auto page = metrics::page();
  for (const char* family :
       {"mcp_server_operation_duration_seconds histogram",
        "mcp_server_session_duration_seconds histogram",
        "time_tracker_mcp_sessions_open gauge",
        "time_tracker_tracking_sessions_open gauge",
        "time_tracker_focus_sessions_open gauge",
        "time_tracker_journal_transactions_total counter",
        "time_tracker_journal_transaction_events histogram",
        "time_tracker_journal_commit_duration_seconds histogram",
        "time_tracker_journal_busy_waits_total counter",
        "time_tracker_journal_fences_total counter",
        "time_tracker_http_refusals_total counter",
        "time_tracker_build_info gauge",
        "process_resident_memory_bytes gauge", "process_open_fds gauge",
        "process_start_time_seconds gauge",
        "process_cpu_seconds_total counter"}) {
    INFO(family);
    CHECK(page.find(std::string{"# TYPE "} + family + "\n")
          != std::string::npos);
    std::string name{family, std::string{family}.find(' ')};
    CHECK(page.find("# HELP " + name + " ") != std::string::npos);
  }
  CHECK(sample(page, "time_tracker_build_info{version=\"" TTM_VERSION "\"}")
        == 1);
  CHECK(sample(page, "process_resident_memory_bytes") > 1e6);
  CHECK(sample(page, "process_open_fds") >= 3);
  CHECK(sample(page, "process_start_time_seconds") > 1.6e9);
}

TEST_CASE("an operation is one histogram sample under its labels",
          "[metrics]") {
  const std::string series
    = "mcp_server_operation_duration_seconds_count{error_type=\"\","
      "gen_ai_tool_name=\"unit_test_tool\",mcp_method_name=\"tools/call\","
      "mcp_protocol_version=\"2025-06-18\",network_transport=\"tcp\"}";
  auto before = std::max(0.0, sample(metrics::page(), series));
  metrics::observe_operation("tools/call", "unit_test_tool", "",
                             "2025-06-18", metrics::transport_tcp, 0.00003);
  metrics::observe_operation("tools/call", "unit_test_tool", "",
                             "2025-06-18", metrics::transport_tcp, 0.004);
  auto page = metrics::page();
  CHECK(sample(page, series) == before + 2);
  // The fine buckets below 10 ms, then the conventions' own.
  const std::string bucket
    = "mcp_server_operation_duration_seconds_bucket{error_type=\"\","
      "gen_ai_tool_name=\"unit_test_tool\",mcp_method_name=\"tools/call\","
      "mcp_protocol_version=\"2025-06-18\",network_transport=\"tcp\",le=\"";
  CHECK(sample(page, bucket + "5e-05\"}") == before + 1);
  CHECK(sample(page, bucket + "0.005\"}") == before + 2);
  for (const char* le : {"1e-05", "0.01", "0.02", "0.05", "0.1", "0.2", "0.5",
                         "1", "2", "5", "10", "30", "60", "120", "300",
                         "+Inf"})
    CHECK(sample(page, bucket + le + "\"}") >= 0);
}

TEST_CASE("label values outside the bounded set are _OTHER, and a family "
          "takes at most max_series label sets",
          "[metrics]") {
  CHECK(metrics::label_ok("tools/call"));
  CHECK(metrics::label_ok("-32602"));
  CHECK_FALSE(metrics::label_ok(""));
  CHECK_FALSE(metrics::label_ok("a b"));
  CHECK_FALSE(metrics::label_ok("quote\"d"));
  CHECK_FALSE(metrics::label_ok(std::string(65, 'x')));
  metrics::observe_operation("cardinality/test", "has space", "", "2025-06-18",
                             metrics::transport_pipe, 0.001);
  auto page = metrics::page();
  CHECK(page.find("gen_ai_tool_name=\"has space\"") == std::string::npos);
  CHECK(page.find("gen_ai_tool_name=\"_OTHER\",mcp_method_name=\"cardinality/"
                  "test\"")
        != std::string::npos);
  // A flood of distinct values (a client making up names, were they not
  // bounded before): the series stop at the cap, the rest is _OTHER.
  for (std::size_t i = 0; i < metrics::max_series + 100; ++i)
    metrics::observe_operation("cardinality/flood",
                               "tool_" + std::to_string(i), "", "2025-06-18",
                               metrics::transport_pipe, 0.001);
  page = metrics::page();
  auto series
    = lines_starting(page, "mcp_server_operation_duration_seconds_count{");
  CHECK(series.size() <= metrics::max_series + 1);
  CHECK(page.find("mcp_server_operation_duration_seconds_count{error_type=\""
                  "_OTHER\",gen_ai_tool_name=\"_OTHER\",mcp_method_name=\""
                  "_OTHER\",mcp_protocol_version=\"_OTHER\","
                  "network_transport=\"_OTHER\"}")
        != std::string::npos);
}

TEST_CASE("refusals are counted by HTTP status, other statuses are not",
          "[metrics]") {
  const std::string s401 = "time_tracker_http_refusals_total{code=\"401\"}";
  auto before = std::max(0.0, sample(metrics::page(), s401));
  metrics::refusal(401);
  metrics::refusal(401);
  metrics::refusal(200);
  metrics::refusal(202);
  auto page = metrics::page();
  CHECK(sample(page, s401) == before + 2);
  CHECK(page.find("code=\"200\"") == std::string::npos);
  CHECK(page.find("code=\"202\"") == std::string::npos);
}

TEST_CASE("journal and session metrics", "[metrics]") {
  auto page = metrics::page();
  auto tx = sample(page, "time_tracker_journal_transactions_total");
  auto waits = sample(page, "time_tracker_journal_busy_waits_total");
  auto fences = sample(page, "time_tracker_journal_fences_total");
  auto events = sample(page, "time_tracker_journal_transaction_events_sum");
  metrics::journal_commit(3, 0.002);
  metrics::journal_busy_wait();
  metrics::journal_fence();
  metrics::set_focus_sessions(7);
  metrics::add_mcp_sessions(2);
  metrics::add_mcp_sessions(-1);
  metrics::observe_session(metrics::transport_pipe, 42);
  page = metrics::page();
  CHECK(sample(page, "time_tracker_journal_transactions_total") == tx + 1);
  CHECK(sample(page, "time_tracker_journal_busy_waits_total") == waits + 1);
  CHECK(sample(page, "time_tracker_journal_fences_total") == fences + 1);
  CHECK(sample(page, "time_tracker_journal_transaction_events_sum")
        == events + 3);
  CHECK(sample(page, "time_tracker_focus_sessions_open") == 7);
  CHECK(sample(page, "mcp_server_session_duration_seconds_bucket{"
                     "network_transport=\"pipe\",le=\"60\"}")
        >= 1);
  // No session ids, principals or task ids: those labels do not exist.
  for (const char* label : {"session", "principal", "task", "request_id"})
    CHECK(page.find(std::string{label} + "=\"") == std::string::npos);
}

TEST_CASE("a reply's error type: JSON-RPC code, tool error code, isError",
          "[metrics]") {
  auto id = id_of("7");
  CHECK(mcp::error_type_of(R"({"jsonrpc":"2.0","id":7,"result":{}})", id,
                           true)
        == "");
  CHECK(mcp::error_type_of(R"({"jsonrpc":"2.0","id":7,"error":{"code":-32602,)"
                           R"("message":"Invalid params: \"error\":{\"code\":1"}})",
                           id, true)
        == "-32602");
  // The text block holds the structured content escaped: its error_code
  // is not the one read; the structuredContent's is.
  CHECK(mcp::error_type_of(
          R"({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text",)"
          R"("text":"{\"error\":true,\"error_code\":\"X\"}"}],)"
          R"("structuredContent":{"error":true,"error_code":"SESSION_NOT_FOUND",)"
          R"("message":"no"},"isError":true}})",
          id, true)
        == "SESSION_NOT_FOUND");
  CHECK(mcp::error_type_of(
          R"({"jsonrpc":"2.0","id":7,"result":{"content":[],)"
          R"("structuredContent":null,"isError":true}})",
          id, true)
        == "tool_error");
  // Only a tools/call result is a tool error.
  CHECK(mcp::error_type_of(
          R"({"jsonrpc":"2.0","id":7,"result":{"content":[],)"
          R"("structuredContent":null,"isError":true}})",
          id, false)
        == "");
  CHECK(mcp::error_type_of(
          R"({"jsonrpc":"2.0","id":7,"result":{"content":[],)"
          R"("structuredContent":{"a":1},"isError":false}})",
          id, true)
        == "");
  // A string id with quotes in it: the envelope is skipped by its length.
  protocol::request_id sid;
  sid.kind = protocol::request_id::string;
  sid.json = R"("a\",\"error\":{\"code\":1")";
  CHECK(mcp::error_type_of(std::string{R"({"jsonrpc":"2.0","id":)"} + sid.json
                             + R"(,"result":{}})",
                           sid, true)
        == "");
}

TEST_CASE("a message's method and tool are the server's, else _OTHER",
          "[metrics]") {
  auto reg = tools::make_registry();
  protocol::message m;
  m.kind = protocol::message::request;
  m.id = id_of("1");
  m.method = "tools/call";
  m.name = "time_get_current";
  auto op = mcp::describe(m, R"({"jsonrpc":"2.0","id":1,"result":{}})", *reg);
  CHECK(op.method == "tools/call");
  CHECK(op.tool == "time_get_current");
  CHECK(op.error_type.empty());
  m.name = "made_up_by_the_client";
  CHECK(mcp::describe(m, {}, *reg).tool == "_OTHER");
  m.method = "no/such/method";
  op = mcp::describe(m, R"({"jsonrpc":"2.0","id":1,"error":{"code":-32601}})",
                     *reg);
  CHECK(op.method == "_OTHER");
  CHECK(op.tool.empty());
  CHECK(op.error_type == "-32601");
  m.kind = protocol::message::notification;
  m.method = "notifications/initialized";
  CHECK(mcp::describe(m, {}, *reg).method == "notifications/initialized");
  m.method = "notifications/whatever";
  CHECK(mcp::describe(m, {}, *reg).method == "_OTHER");
}

TEST_CASE("GET /metrics: routed on both listeners, Host and Origin checked "
          "on the MCP one, tokens never asked for",
          "[metrics]") {
  using namespace ttm::edge;
  CHECK(route_path(http_method::get, "/metrics", "/mcp", false).kind
        == path_decision::metrics);
  CHECK(route_path(http_method::post, "/metrics", "/mcp", false).status
        == 405);
  CHECK(route_metrics_only(http_method::get, "/metrics?x").kind
        == path_decision::metrics);
  CHECK(route_metrics_only(http_method::post, "/mcp").status == 404);
  CHECK(route_metrics_only(http_method::get, "/healthz").status == 404);
  request_head h;
  h.method = http_method::get;
  h.target = "/metrics";
  h.host = "127.0.0.1:8787";
  h.host_count = 1;
  access_policy open{8787, std::nullopt, {}, {}, {}, {}};
  access_policy tokens{8787, std::nullopt, {}, {}, {"s3cret"}, {"alice"}};
  CHECK(decide_metrics(open, h, true).kind == path_decision::metrics);
  CHECK(decide_metrics(tokens, h, true).kind == path_decision::metrics);
  CHECK(decide_metrics(open, h, false).kind == path_decision::metrics);
  CHECK(decide_metrics(tokens, h, false).status == 403);
  auto evil = h;
  evil.host = "evil.example:8787";
  CHECK(decide_metrics(open, evil, true).status == 403);
  auto cross = h;
  cross.origin = "https://evil.example";
  CHECK(decide_metrics(open, cross, true).status == 403);
}
