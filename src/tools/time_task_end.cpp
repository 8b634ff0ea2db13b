#include "domain/time_format.hpp"
#include "tools/registry.hpp"
#include "tools/session_common.hpp"

namespace ttm::tools {

namespace {

struct task_end_args {
  std::string session_id;
  std::string task_id;
  std::string status;
  domain::string_map metadata;
};

struct task_end_result : counts_fields {
  std::string task_id;
  std::int64_t run = 1;
  std::string start_time;
  std::string end_time;
  std::string duration;
  std::int64_t duration_ms = 0;
  std::string duration_iso;
  std::string duration_source;
  std::string status;
  bool already_ended = false;
};

outcome<task_end_result> run(const task_end_args& args, tool_context& ctx) {
  auto status = args.status == "skipped"  ? domain::run_status::skipped
                : args.status == "failed" ? domain::run_status::failed
                                          : domain::run_status::completed;
  return on_session<task_end_result>(
    ctx, args.session_id,
    [&](domain::tracking_session& s,
        domain::instant now) -> outcome<task_end_result> {
      auto ended = ctx.tracker.end_task(s, args.task_id, status,
                                        args.metadata, now);
      if (auto* err = std::get_if<domain::tracking_error>(&ended))
        return to_tool_error(std::move(*err));
      const auto& e = std::get<domain::task_ended>(ended);
      const auto& run = *e.run;
      task_end_result res;
      res.task_id = e.task->id;
      res.run = static_cast<std::int64_t>(run.number);
      res.start_time = domain::format_iso8601(run.start.wall, s.tz);
      res.end_time = domain::format_iso8601(run.end->wall, s.tz);
      auto took = run.duration(now.mono);
      res.duration = domain::format_duration(took);
      res.duration_ms = to_ms(took);
      res.duration_iso = domain::format_duration_iso(took);
      res.duration_source = run.corrections.empty()
                              ? domain::duration_source(run.start, *run.end)
                              : "corrected";
      res.status = domain::to_string(run.status);
      res.already_ended = e.already_ended;
      res.set(s.counts());
      return res;
    });
}

} // namespace

tool make_time_task_end() {
  using a = task_end_args;
  auto in = std::make_shared<input_schema<a>>();
  add_session_id_arg(*in, &a::session_id);
  in->add("task_id", &a::task_id, "The running task.")
    .required()
    .min_length(1)
    .max_length(max_id_length);
  in->add("status", &a::status,
          "failed (retry: time_task_start: a new run).")
    .one_of({"completed", "skipped", "failed"})
    .default_to("completed");
  add_metadata_arg(*in, &a::metadata, "String metadata.");

  using r = task_end_result;
  auto out = std::make_shared<output_schema<r>>();
  out->add("task_id", &r::task_id, "The task.");
  out->add("run", &r::run, "Which run of the task ended (1 for the first).");
  out->add("start_time", &r::start_time, "ISO 8601 start of the run.");
  out->add("end_time", &r::end_time, "ISO 8601 end of the run.");
  out->add("duration", &r::duration,
           "Human-readable duration, e.g. '2 minutes 34 seconds'.");
  out->add("duration_ms", &r::duration_ms,
           "Duration in milliseconds, from the monotonic clock (immune to "
           "wall-clock changes).");
  out->add("duration_iso", &r::duration_iso,
           "ISO 8601 duration, e.g. PT2M34S.");
  out->add("duration_source", &r::duration_source,
           "monotonic; wall_clock when the run spans a restart of the "
           "machine (recovered from the journal), so the wall clock "
           "measured it; corrected when the run's times were corrected "
           "(time_tasks_edit).")
    .one_of({"monotonic", "wall_clock", "corrected"});
  out->add("status", &r::status, "completed, skipped or failed.")
    .one_of({"completed", "skipped", "failed"});
  add_counts(*out);
  out->add("already_ended", &r::already_ended,
           "True when the run had already ended (a repeated call): nothing "
           "changed; the run's fields are those recorded when it ended, the "
           "counts are current.");
  tool_spec<a, r> spec;
  spec.name = "time_task_end";
  spec.toolset = "tracking";
  spec.role = role::task_end;
  spec.title = "End a task";
  spec.description
    = "Ends a task's run with its duration and the session's counts; "
      "repeated: the same result, already_ended.";
  spec.input = std::move(in);
  spec.output = std::move(out);
  spec.annotations = hint::idempotent;
  spec.handler = run;
  return make_tool(std::move(spec));
}

} // namespace ttm::tools
