// Every tool's argument decoding, validation and handler, through the tool
// registry (all toolsets): each input line is one call, its first byte
// picking a tool by its index in the registry (so a new tool is fuzzed
// without a change here), the rest its arguments JSON. "$SID" in the
// arguments stands for a tracking session started before the calls, so the
// tracking tools get past the session lookup. Checked beyond "no crash":
// every answered call's structuredContent matches the tool's output schema.

#include "fuzz_check.hpp"

#include <date/date.h>

#include "domain/clock.hpp"
#include "domain/tracking.hpp"
#include "tools/registry.hpp"

#include <rapidjson/document.h>

#include <chrono>

namespace {

using namespace ttm;
using tools::call_result;

const tools::registry& all_tools() {
  static const auto r = tools::make_registry({}, {"all"});
  return *r;
}

/// Runs what a paused call waits for as the MCP layer would, with an
/// answer that lets it finish: a granted slot, an empty history, the
/// principal's state with the preferences it set.
call_result finish(call_result res, tools::tool_context& ctx) {
  for (int i = 0; i < 4; ++i) {
    switch (res.status) {
      case call_result::needs_slot:
        res = res.resume(domain::slot_answer{true}, ctx);
        break;
      case call_result::needs_history:
        res = res.resume_history(domain::history_page{}, ctx);
        break;
      case call_result::needs_principal: {
        domain::principal_state st;
        st.prefs = res.principal.prefs;
        res = res.resume_principal(st, ctx);
        break;
      }
      default:
        return res;
    }
  }
  return res;
}

call_result call(const tools::tool& t, const std::string& args_json,
                 tools::tool_context& ctx) {
  rapidjson::Document args;
  args.Parse(args_json.c_str(), args_json.size());
  if (args.HasParseError()) {
    call_result unread;
    unread.status = call_result::invalid_arguments;
    return unread;
  }
  auto res = finish(t.call(args, ctx), ctx);
  if (res.status == call_result::ok || res.status == call_result::failed) {
    auto problem = t.check_output(res.structured);
    FUZZ_CHECK(problem.empty(), t.name() + ": " + problem + "\nargs: "
                                  + args_json + "\nresult: " + res.structured);
  }
  return res;
}

std::string replace_all(std::string s, std::string_view from,
                        const std::string& to) {
  for (auto at = s.find(from); at != std::string::npos;
       at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const auto& reg = all_tools();
  const auto& list = reg.tools();
  using namespace std::chrono;
  // 2026-03-29 00:30 UTC: half an hour before Europe/Berlin's spring gap.
  domain::fake_clock clock{domain::wall_time{date::sys_days{date::year{2026} / 3 / 29}
                                             + minutes{30}}};
  domain::tracker tracker{domain::tracking_limits{}};
  const std::string local = "Europe/Berlin";
  tools::tool_context ctx{clock, local, [](protocol::log_level, std::string) {},
                          tracker};

  std::string sid;
  if (const auto* start = reg.find_role(tools::role::session_start)) {
    auto res = call(*start, R"({"milestone_id":"m1","task_ids":["a","b","c"]})",
                    ctx);
    rapidjson::Document d;
    d.Parse(res.structured.c_str(), res.structured.size());
    FUZZ_CHECK(res.status == call_result::ok && d.IsObject()
                 && d.HasMember("session_id") && d["session_id"].IsString(),
               res.structured);
    sid = d["session_id"].GetString();
  }

  auto in = fuzz::bytes(data, size);
  int calls = 0;
  for (const auto& line : fuzz::split(in, '\n')) {
    if (line.empty() || ++calls > 8)
      continue;
    auto pick = static_cast<std::uint8_t>(line.front());
    const auto& t = list[pick % list.size()];
    // Bit 7: a minute passes first (durations, idle times).
    if (pick & 0x80)
      clock.advance(minutes{1} * (1 + pick % 7));
    call(t, replace_all(line.substr(1), "$SID", sid), ctx);
  }
  return 0;
}
