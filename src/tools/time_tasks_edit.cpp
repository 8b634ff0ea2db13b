// time_tasks_edit: up to 100 operations on a session's tasks in one call,
// applied all or none (one journal event, so one transaction).

#include "domain/absolute_time.hpp"
#include "domain/ascii.hpp"
#include "domain/time_format.hpp"
#include "domain/time_input.hpp"
#include "tools/registry.hpp"
#include "tools/session_common.hpp"

namespace ttm::tools {

inline constexpr std::size_t max_edit_operations = 100;
inline constexpr std::size_t max_note_length = 4096;

namespace {

struct edit_op_args {
  std::string op;
  std::string task_id;
  std::optional<std::string> task_name;
  std::optional<std::string> external_task_id;
  std::optional<std::string> work_item_id;
  std::optional<std::string> status;
  domain::string_map metadata;
  std::optional<std::string> text;
  std::optional<std::int64_t> run;
  std::optional<std::string> start_time;
  std::optional<std::string> end_time;
  std::optional<std::string> reason;
  std::optional<std::string> estimate;
};

struct tasks_edit_args {
  std::string session_id;
  std::vector<edit_op_args> operations;
};

struct op_result {
  std::int64_t index = 0;
  std::string op;
  std::string task_id;
  std::optional<std::int64_t> run;
  bool unchanged = false;
  std::string task_status;
  std::optional<std::int64_t> active_ms;
  std::optional<bool> paused;
};

struct tasks_edit_result : counts_fields {
  std::string session_id;
  std::vector<op_result> operations;
  std::int64_t task_count = 0;
};

} // namespace

template <>
struct nested_arg<edit_op_args> {
  static const object_schema<edit_op_args>& schema() {
    static const auto decl = [] {
      using o = edit_op_args;
      object_schema<o> s;
      s.add("op", &o::op,
            "start, end, pause, resume, note, add (a new task joins the "
            "session), remove (a task never started leaves it) or correct "
            "(a run's start_time, end_time and/or status, with a reason).")
        .required()
        .one_of({"start", "end", "pause", "resume", "note", "add",
                 "remove", "correct"});
      s.add("task_id", &o::task_id, "The task the operation applies to.")
        .required()
        .min_length(1)
        .max_length(max_id_length);
      s.add("task_name", &o::task_name,
            "start: optional task name; add: the name the task's runs take "
            "when started without one.")
        .max_length(max_name_length);
      s.add("external_task_id", &o::external_task_id,
            "start: optional platform task id.")
        .max_length(max_id_length);
      s.add("work_item_id", &o::work_item_id,
            "start: optional Jira/GitHub issue id.")
        .max_length(max_id_length);
      s.add("status", &o::status,
            "end: 'completed' (default), 'skipped' or 'failed'; correct: "
            "the run's new status.")
        .one_of({"completed", "skipped", "failed"});
      s.add("metadata", &o::metadata,
            "start: the run's metadata; end: completion metadata.")
        .max_properties(max_metadata_entries)
        .item_max_length(max_metadata_value_length);
      s.add("text", &o::text,
            "note: the note (attached, timestamped, to the task's current "
            "or latest run).")
        .min_length(1)
        .max_length(max_note_length);
      s.add("run", &o::run,
            "correct: which run of the task (1 for the first); the latest "
            "when absent.");
      s.add("start_time", &o::start_time,
            "correct: the run's true start, in any time form (a local time "
            "is read in the session's zone); before the session's start "
            "moves it back too.")
        .max_length(64);
      s.add("end_time", &o::end_time,
            "correct: the run's true end, in any time form (ends a running "
            "run: a forgotten end).")
        .max_length(64);
      s.add("estimate", &o::estimate,
            "add: the new task's estimate: minutes (15), '1.5h' or ISO 8601 "
            "('PT1H30M').")
        .max_length(32);
      s.add("reason", &o::reason,
            "correct: why (required); kept in the audit trail.")
        .min_length(1)
        .max_length(max_note_length);
      return s;
    }();
    return decl;
  }
};

template <>
struct nested<op_result> {
  static const object_schema<op_result>& schema() {
    static const auto decl = [] {
      object_schema<op_result> s;
      s.add("index", &op_result::index, "The operation's index (from 0).");
      s.add("op", &op_result::op, "The operation.");
      s.add("task_id", &op_result::task_id, "Its task.");
      s.add("run", &op_result::run,
            "The run it applied to; null for add and remove.");
      s.add("unchanged", &op_result::unchanged,
            "True when the operation changed nothing: start of a running "
            "task, end of an ended run, pause of a paused run, resume of a "
            "running one (idempotent, like already_running).");
      s.add("task_status", &op_result::task_status,
            "The task's status after the whole edit (not_started when it "
            "has no run, removed when it left the session).");
      s.add("active_ms", &op_result::active_ms,
            "The run's active time (running, not paused) so far, in "
            "milliseconds; null for add and remove.");
      s.add("paused", &op_result::paused,
            "Whether the run is paused after the edit; null for add and "
            "remove.");
      return s;
    }();
    return decl;
  }
};

namespace {

domain::task_op to_op(const edit_op_args& a) {
  domain::task_op op;
  op.kind = *domain::task_op_kind_from(a.op); // the schema's enum
  op.task = {a.task_id, a.task_name, a.external_task_id, a.work_item_id,
             op.kind == domain::task_op::start ? a.metadata
                                               : domain::string_map{}};
  if (op.kind == domain::task_op::end) {
    auto st = a.status.value_or("completed");
    op.status = st == "skipped"  ? domain::run_status::skipped
                : st == "failed" ? domain::run_status::failed
                                 : domain::run_status::completed;
    op.metadata = a.metadata;
  }
  if (a.text)
    op.text = *a.text;
  if (a.estimate) {
    auto e = parse_estimate(*a.estimate);
    if (auto* ms = std::get_if<std::chrono::milliseconds>(&e))
      op.estimate = *ms;
  }
  if (op.kind == domain::task_op::correct) {
    op.text = a.reason.value_or("");
    op.run = a.run ? static_cast<std::size_t>(*a.run) : 0;
    if (a.status)
      op.new_status = *a.status == "skipped" ? domain::run_status::skipped
                      : *a.status == "failed" ? domain::run_status::failed
                                              : domain::run_status::completed;
  }
  return op;
}

/// A correction's time through the grammar every tool reads (an instant
/// with its offset, a local time in the session's zone, "20 minutes ago",
/// ...), or why not.
std::variant<domain::wall_time, domain::time_input_error>
instant_of(const std::string& text, const domain::zone& z,
           domain::wall_time now) {
  domain::time_input_options opts;
  opts.now = now;
  opts.in = &z;
  // A local time in a DST gap or overlap: read as Temporal's 'compatible'.
  opts.on_conflict = domain::disambiguation::compatible;
  auto r = domain::parse_time_input(text, opts);
  if (auto* err = std::get_if<domain::time_input_error>(&r))
    return std::move(*err);
  return std::get<domain::time_input>(r).instant;
}

/// An argument that does not fit its operation: refused before anything
/// is applied, naming the operation.
std::optional<tool_error> misfit(const edit_op_args& a, std::size_t k) {
  auto bad = [&](const std::string& what) {
    return tool_error{"VALIDATION_ERROR",
                      "Operation " + std::to_string(k) + " (" + a.op
                        + " of task '" + a.task_id + "'): " + what
                        + "; nothing was changed.",
                      {}, {}, static_cast<std::int64_t>(k)};
  };
  bool start = a.op == "start";
  if (!start && (a.external_task_id || a.work_item_id))
    return bad("external_task_id and work_item_id go with 'start' only");
  if (a.task_name && !start && a.op != "add")
    return bad("task_name goes with 'start' or 'add' only");
  bool correct = a.op == "correct";
  if (a.status && a.op != "end" && !correct)
    return bad("'status' goes with 'end' or 'correct' only");
  if (!correct && (a.run || a.start_time || a.end_time || a.reason))
    return bad("run, start_time, end_time and reason go with 'correct' only");
  if (correct && !a.reason)
    return bad("a correction needs a 'reason'");
  if (correct && !a.start_time && !a.end_time && !a.status)
    return bad("a correction needs start_time, end_time or status");
  if (correct && a.run && *a.run < 1)
    return bad("'run' counts from 1");
  if (!a.metadata.empty() && !start && a.op != "end")
    return bad("'metadata' goes with 'start' or 'end' only");
  if (a.op == "note" && !a.text)
    return bad("a note needs 'text'");
  if (a.text && a.op != "note")
    return bad("'text' goes with 'note' only");
  if (a.estimate && a.op != "add")
    return bad("'estimate' goes with 'add' only");
  if (a.estimate) {
    auto e = parse_estimate(*a.estimate);
    if (auto* why = std::get_if<std::string>(&e))
      return bad(*why);
  }
  return std::nullopt;
}

outcome<tasks_edit_result> run(const tasks_edit_args& args,
                               tool_context& ctx) {
  std::vector<domain::task_op> ops;
  ops.reserve(args.operations.size());
  for (std::size_t k = 0; k < args.operations.size(); ++k) {
    const auto& a = args.operations[k];
    if (auto err = misfit(a, k))
      return std::move(*err);
    ops.push_back(to_op(a));
  }
  return on_session<tasks_edit_result>(
    ctx, args.session_id,
    [&](domain::tracking_session& s,
        domain::instant now) -> outcome<tasks_edit_result> {
      // Times are read in the session's zone, so only now.
      for (std::size_t k = 0; k < ops.size(); ++k) {
        const auto& a = args.operations[k];
        for (auto [name, text, into] :
             {std::make_tuple("start_time", &a.start_time,
                              &ops[k].start_time),
              std::make_tuple("end_time", &a.end_time, &ops[k].end_time)}) {
          if (!*text)
            continue;
          auto t = instant_of(**text, s.tz, now.wall);
          if (auto* err = std::get_if<domain::time_input_error>(&t))
            return tool_error{err->code,
                              "Operation " + std::to_string(k)
                                + " (correct of task '" + a.task_id + "'), "
                                + name + ": " + err->message
                                + " Nothing was changed.",
                              err->suggestions, {},
                              static_cast<std::int64_t>(k)};
          *into = std::get<domain::wall_time>(t);
        }
      }
      auto edited = ctx.tracker.edit_tasks(s, ops, now);
      if (auto* f = std::get_if<domain::edit_failure>(&edited)) {
        const auto& a = args.operations[f->index];
        auto err = to_tool_error(std::move(f->error));
        err.message = "Operation " + std::to_string(f->index) + " (" + a.op
                      + " of task '" + a.task_id + "') failed: "
                      + err.message + " Nothing was changed.";
        err.operation = static_cast<std::int64_t>(f->index);
        return err;
      }
      const auto& done = std::get<std::vector<domain::op_done>>(edited);
      tasks_edit_result res;
      res.session_id = s.id;
      res.operations.reserve(done.size());
      for (std::size_t k = 0; k < done.size(); ++k) {
        const auto& d = done[k];
        op_result o;
        o.index = static_cast<std::int64_t>(k);
        o.op = domain::to_string(d.kind);
        o.task_id = d.task_id;
        o.unchanged = d.unchanged;
        auto i = s.task_index.find(d.task_id);
        if (i == s.task_index.end()) {
          o.task_status = "removed";
        } else {
          const auto& t = s.tasks[i->second];
          const auto* cur = t.current();
          o.task_status = cur ? domain::to_string(cur->status)
                              : "not_started";
          if (d.run > 0 && d.run <= t.runs.size()) {
            const auto& r = t.runs[d.run - 1];
            o.run = static_cast<std::int64_t>(d.run);
            o.active_ms = to_ms(r.duration(now.mono));
            o.paused = r.paused();
          }
        }
        res.operations.push_back(std::move(o));
      }
      res.task_count = static_cast<std::int64_t>(s.tasks.size());
      res.set(s.counts());
      return res;
    });
}

} // namespace

tool make_time_tasks_edit() {
  using a = tasks_edit_args;
  auto in = std::make_shared<input_schema<a>>();
  add_session_id_arg(*in, &a::session_id);
  in->add("operations", &a::operations,
          "The operations, applied in order, all or none (1 to 100). Each "
          "has 'op' and 'task_id'; start takes task_name, "
          "external_task_id, work_item_id and metadata; end takes status "
          "and metadata; note takes text (at most 4,096 characters); correct "
          "takes run, start_time, end_time, status and reason.")
    .required()
    .min_items(1)
    .max_items(max_edit_operations);

  using r = tasks_edit_result;
  auto out = std::make_shared<output_schema<r>>();
  out->add("session_id", &r::session_id, "The session.");
  out->add("operations", &r::operations,
           "Each operation's outcome, in the order given.");
  out->add("task_count", &r::task_count,
           "Tasks in the session after the edit (add and remove change it).");
  add_counts(*out);
  tool_spec<a, r> spec;
  spec.name = "time_tasks_edit";
  spec.cost = cost::heavy; // up to 100 operations, each re-checked
  spec.toolset = "edit";
  spec.title = "Edit a session's tasks (bulk, atomic)";
  spec.description
    = "Applies up to 100 operations to the tasks of an active tracking "
      "session in one call, atomically: all of them, in order, or none. "
      "Operations: start and end (as time_task_start and time_task_end), "
      "pause and resume (a paused run accrues no time; repeating either is "
      "harmless and reported as unchanged), note (a timestamped note on "
      "the task's current or latest run), add (a new task joins the "
      "session), remove (a task never started leaves it) and correct (set "
      "a run's start_time and/or end_time and/or its status, with a reason: "
      "end after start, nothing in the future, no overlap with the task's "
      "other runs; a start before the session's moves the session's start "
      "too; the original values stay in the audit trail and the run's "
      "durations come from the corrected instants). A failing operation "
      "fails the whole call with its index (operation_index), its "
      "error_code and a message, and nothing is changed. Returns each "
      "operation's outcome and the session's task counts after the edit.";
  spec.input = std::move(in);
  spec.output = std::move(out);
  spec.handler = run;
  return make_tool(std::move(spec));
}

} // namespace ttm::tools
