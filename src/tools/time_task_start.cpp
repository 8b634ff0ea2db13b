#include "domain/time_format.hpp"
#include "tools/registry.hpp"
#include "tools/session_common.hpp"

namespace ttm::tools {

namespace {

struct task_start_args {
  std::string session_id;
  std::string task_id;
  std::optional<std::string> task_name;
  std::optional<std::string> external_task_id;
  std::optional<std::string> work_item_id;
  domain::string_map metadata;
};

struct task_start_result : counts_fields {
  std::string task_id;
  std::int64_t run = 1;
  std::string start_time;
  std::string start_time_friendly;
  std::string session_elapsed;
  std::int64_t session_elapsed_ms = 0;
  std::string session_elapsed_iso;
  bool already_running = false;
};

outcome<task_start_result> run(const task_start_args& args,
                               tool_context& ctx) {
  return on_session<task_start_result>(
    ctx, args.session_id,
    [&](domain::tracking_session& s,
        domain::instant now) -> outcome<task_start_result> {
      auto started = ctx.tracker.start_task(
        s,
        {args.task_id, args.task_name, args.external_task_id,
         args.work_item_id, args.metadata},
        now);
      if (auto* err = std::get_if<domain::tracking_error>(&started))
        return to_tool_error(std::move(*err));
      const auto& st = std::get<domain::task_started>(started);
      task_start_result res;
      res.task_id = st.task->id;
      res.run = static_cast<std::int64_t>(st.run->number);
      res.start_time = domain::format_iso8601(st.run->start.wall, s.tz);
      res.start_time_friendly
        = domain::format_friendly_time(st.run->start.wall, s.tz);
      auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        s.elapsed(now.mono));
      res.session_elapsed = domain::format_duration(elapsed);
      res.session_elapsed_ms = elapsed.count();
      res.session_elapsed_iso = domain::format_duration_iso(elapsed);
      res.already_running = st.already_running;
      res.set(s.counts());
      return res;
    });
}

} // namespace

tool make_time_task_start() {
  using a = task_start_args;
  auto in = std::make_shared<input_schema<a>>();
  add_session_id_arg(*in, &a::session_id);
  in->add("task_id", &a::task_id,
          "One of the session's task_ids.")
    .required()
    .min_length(1)
    .max_length(max_id_length);
  in->add("task_name", &a::task_name, "Human-readable name.")
    .max_length(max_name_length);
  in->add("external_task_id", &a::external_task_id,
          "Platform task id.")
    .max_length(max_id_length);
  in->add("work_item_id", &a::work_item_id,
          "Jira/GitHub issue id.")
    .max_length(max_id_length);
  add_metadata_arg(*in, &a::metadata, "String metadata.");

  using r = task_start_result;
  auto out = std::make_shared<output_schema<r>>();
  out->add("task_id", &r::task_id, "The task.");
  out->add("run", &r::run,
           "1 for the task's first run; a task started again after it ended "
           "gets a new run (2, 3, ...), and every run is kept.");
  out->add("start_time", &r::start_time, "ISO 8601 start of this run.");
  out->add("start_time_friendly", &r::start_time_friendly,
           "Start time of day, e.g. '9:47:15 AM'.");
  out->add("session_elapsed", &r::session_elapsed,
           "Time since the session started, e.g. '5 minutes 23 seconds'.");
  out->add("session_elapsed_ms", &r::session_elapsed_ms,
           "In milliseconds.");
  out->add("session_elapsed_iso", &r::session_elapsed_iso,
           "In ISO 8601.");
  add_counts(*out);
  out->add("already_running", &r::already_running,
           "True when the task was already running: the call changed "
           "nothing and start_time is the original one.");
  tool_spec<a, r> spec;
  spec.name = "time_task_start";
  spec.toolset = "tracking";
  spec.role = role::task_start;
  spec.instructions
    = {phase::each,
       "time_task_start / time_task_end around each task"};
  spec.title = "Start a task";
  spec.description
    = "Starts a run of a task; idempotent while it runs; tasks may overlap.";
  spec.input = std::move(in);
  spec.output = std::move(out);
  spec.annotations = hint::idempotent;
  spec.handler = run;
  return make_tool(std::move(spec));
}

} // namespace ttm::tools
