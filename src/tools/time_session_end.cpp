#include "tools/registry.hpp"
#include "tools/session_common.hpp"

namespace ttm::tools {

namespace {

struct session_end_args {
  std::string session_id;
  bool include_task_details = true;
};

/// Adds the arguments time_session_end and time_session_summary share.
void add_summary_args(input_schema<session_end_args>& in) {
  add_session_id_arg(in, &session_end_args::session_id);
  in.add("include_task_details", &session_end_args::include_task_details,
         "Include the per-task timing breakdown ('tasks').")
    .default_to(true);
}

outcome<summary_result> end(const session_end_args& args,
                            tool_context& ctx) {
  return on_session<summary_result>(
    ctx, args.session_id,
    [&](domain::tracking_session& s,
        domain::instant now) -> outcome<summary_result> {
      bool ended_now = ctx.tracker.end_session(s, now);
      auto res = summarize(s, now, args.include_task_details);
      res.already_ended = !ended_now;
      return res;
    });
}

outcome<summary_result> summary(const session_end_args& args,
                                tool_context& ctx) {
  return on_session<summary_result>(
    ctx, args.session_id,
    [&](domain::tracking_session& s,
        domain::instant now) -> outcome<summary_result> {
      return summarize(s, now, args.include_task_details);
    });
}

} // namespace

tool make_time_session_end() {
  auto in = std::make_shared<input_schema<session_end_args>>();
  add_summary_args(*in);
  return make_tool(
    "time_session_end", "End a tracking session",
    "Ends a tracking session and returns its complete summary, ready for an "
    "execution report: start/end times, total duration, counts, and per-task "
    "durations. Tasks still running are closed as 'interrupted'. "
    "busy_duration_ms (union of task runs) and task_time_ms (their sum) "
    "show parallel work without double counting. Calling it again returns "
    "the same summary with already_ended true.",
    tool_annotations{false, false, true, false}, std::move(in),
    make_summary_schema(true), end);
}

tool make_time_session_summary() {
  auto in = std::make_shared<input_schema<session_end_args>>();
  add_summary_args(*in);
  return make_tool(
    "time_session_summary", "Summarize a tracking session",
    "Returns the current state of a tracking session without ending it: "
    "elapsed time, counts, and per-task durations (running tasks show their "
    "time so far; end_time is now). Use it for progress checks and "
    "mid-execution reports. Works on ended sessions too.",
    tool_annotations{true, false, true, false}, std::move(in),
    make_summary_schema(false), summary);
}

} // namespace ttm::tools
