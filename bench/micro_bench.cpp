// In-process micro-benchmarks (Google Benchmark). They print figures and
// assert nothing: speed is measured here, never in the unit tests.
//
//   build/time-tracker-microbench                      # all
//   build/time-tracker-microbench --benchmark_filter=get_current

#include "actors/client_state.hpp"
#include "actors/messages.hpp"
#include "actors/supervisor.hpp"
#include "actors/transport.hpp"
#include "domain/clock.hpp"
#include "log.hpp"
#include "protocol/json_rpc.hpp"
#include "tools/registry.hpp"

#include <benchmark/benchmark.h>
#include <caf/all.hpp>
#include <rapidjson/document.h>

#include <condition_variable>
#include <mutex>

using namespace ttm;

namespace {

const std::string call_line
  = R"({"jsonrpc":"2.0","id":42,"method":"tools/call","params":{)"
    R"("name":"time_get_current","arguments":{"timezone":"America/New_York",)"
    R"("format":"iso8601"}}})";

actors::client_config make_client_config() {
  actors::client_config cfg;
  cfg.registry = tools::make_registry();
  cfg.clock = std::make_shared<domain::system_clock_source>();
  cfg.local_zone = "UTC";
  cfg.info = {"time-tracker-mcp", "Time Tracker MCP", TTM_VERSION, ""};
  return cfg;
}

actors::client_state initialized_session() {
  actors::client_state st{make_client_config()};
  st.handle(protocol::decode(
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{)"
    R"("protocolVersion":"2025-11-25","capabilities":{},)"
    R"("clientInfo":{"name":"bench","version":"1"}}})"));
  return st;
}

void json_rpc_decode(benchmark::State& state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(protocol::decode(call_line));
}
BENCHMARK(json_rpc_decode);

void json_rpc_encode_result(benchmark::State& state) {
  protocol::request_id id{protocol::request_id::integer, "42"};
  std::string result = R"({"content":[],"isError":false})";
  for (auto _ : state)
    benchmark::DoNotOptimize(protocol::encode_result(id, result));
}
BENCHMARK(json_rpc_encode_result);

/// The tool alone: schema validation, zone lookup, formatting, encoding.
void get_current_tool(benchmark::State& state, const char* args_json) {
  auto reg = tools::make_registry();
  const auto* t = reg->find("time_get_current");
  domain::system_clock_source clock;
  std::string local = "UTC";
  tools::tool_context ctx{clock, local, [](protocol::log_level, std::string) {}};
  rapidjson::Document args;
  args.Parse(args_json);
  for (auto _ : state)
    benchmark::DoNotOptimize(t->call(args, ctx));
}
BENCHMARK_CAPTURE(get_current_tool, iso8601_new_york,
                  R"({"timezone":"America/New_York"})");
BENCHMARK_CAPTURE(get_current_tool, friendly_kathmandu,
                  R"({"timezone":"Asia/Kathmandu","format":"friendly"})");
BENCHMARK_CAPTURE(get_current_tool, unix_ms_local, R"({"format":"unix_ms"})");
BENCHMARK_CAPTURE(get_current_tool, invalid_zone_with_suggestions,
                  R"({"timezone":"America/NewYork"})");

/// What the client actor does per request: decode a line, dispatch, encode.
void get_current_request(benchmark::State& state) {
  auto st = initialized_session();
  for (auto _ : state)
    benchmark::DoNotOptimize(st.handle(protocol::decode(call_line)));
}
BENCHMARK(get_current_request);

/// Waits for one reply per request, like a client that sends the next
/// request when the previous one is answered.
struct waiting_sink final : actors::reply_sink {
  std::mutex mtx;
  std::condition_variable cv;
  std::size_t delivered = 0;
  void deliver(std::string) override {
    std::lock_guard<std::mutex> g{mtx};
    ++delivered;
    cv.notify_one();
  }
  void close() override {
  }
  void wait_for(std::size_t n) {
    std::unique_lock<std::mutex> g{mtx};
    cv.wait(g, [&] { return delivered >= n; });
  }
};

/// Edge -> transport actor -> client actor -> transport -> sink, on the real
/// threaded scheduler.
void actor_round_trip(benchmark::State& state) {
  caf::actor_system_config cfg;
  cfg.set("logger.file-verbosity", caf::atom("quiet"));
  cfg.set("logger.console-verbosity", caf::atom("quiet"));
  caf::actor_system sys{cfg};
  auto sup = sys.spawn(actors::supervisor_behavior,
                       actors::supervisor_config{10});
  auto transport = sys.spawn(actors::transport_behavior,
                             actors::transport_config{make_client_config(),
                                                      sup});
  auto sink = std::make_shared<waiting_sink>();
  auto send = [&](const std::string& line) {
    caf::anon_send(transport, actors::inbound_atom::value,
                   std::string{"bench"}, protocol::decode(line),
                   actors::sink_ptr{sink});
  };
  send(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{)"
       R"("protocolVersion":"2025-11-25","capabilities":{}}})");
  sink->wait_for(1);
  auto frame = protocol::decode(call_line);
  std::size_t n = 1;
  for (auto _ : state) {
    caf::anon_send(transport, actors::inbound_atom::value,
                   std::string{"bench"}, frame, actors::sink_ptr{sink});
    sink->wait_for(++n);
  }
  caf::anon_send_exit(transport, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(sup, caf::exit_reason::user_shutdown);
}
BENCHMARK(actor_round_trip)->UseRealTime();

} // namespace

int main(int argc, char** argv) {
  log::set_threshold(log::level::warning);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
