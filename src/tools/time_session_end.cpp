#include "reports/report.hpp"
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
         "Include per-task timings.")
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
  return read_session<summary_result>(
    ctx, args.session_id,
    [&](domain::tracking_session& s,
        domain::instant now) -> outcome<summary_result> {
      if (ctx.ui_view) // the MCP App's timeline (docs/app.md)
        ctx.view_svg = reports::render_svg_timeline(
          reports::build_report(s, now, s.tz), {true});
      return summarize(s, now, args.include_task_details);
    });
}

} // namespace

tool make_time_session_end() {
  auto in = std::make_shared<input_schema<session_end_args>>();
  add_summary_args(*in);
  tool_spec<session_end_args, summary_result> spec;
  spec.name = "time_session_end";
  spec.cost = cost::heavy; // grows with the session's tasks
  spec.toolset = "tracking";
  spec.role = role::session_end;
  spec.instructions = {phase::end, "time_session_end at the end"};
  spec.title = "End a tracking session";
  spec.description
    = "Ends the session (running tasks: interrupted) and returns its final "
      "summary; repeated: the same, already_ended.";
  spec.input = std::move(in);
  spec.output = make_summary_schema(true);
  spec.annotations = hint::idempotent;
  spec.handler = end;
  return make_tool(std::move(spec));
}

tool make_time_session_summary() {
  auto in = std::make_shared<input_schema<session_end_args>>();
  add_summary_args(*in);
  tool_spec<session_end_args, summary_result> spec;
  spec.name = "time_session_summary";
  spec.cost = cost::heavy; // grows with the session's tasks
  spec.toolset = "tracking";
  spec.role = role::session_summary;
  spec.instructions = {phase::periodic, "time_session_summary for progress"};
  spec.title = "Summarize a tracking session";
  spec.description
    = "A session's progress without ending it: elapsed time, counts, "
      "per-task durations.";
  spec.input = std::move(in);
  spec.output = make_summary_schema(false);
  spec.annotations = hint::read_only | hint::idempotent;
  spec.ui_resource = std::string{timeline_view_uri};
  spec.handler = summary;
  return make_tool(std::move(spec));
}

} // namespace ttm::tools
