// time_undo: reverts a session's most recent change (a task start or end,
// a whole bulk edit, the session's end), back through its last 50.

#include "domain/time_format.hpp"
#include "tools/registry.hpp"
#include "tools/session_common.hpp"

namespace ttm::tools {

namespace {

struct undo_args {
  std::string session_id;
};

struct undone_detail {
  std::string change; ///< task_started, task_ended, tasks_edited, ...
  std::string time;   ///< when the change was made
  std::optional<std::string> task_id;
  std::optional<std::int64_t> operation_count;
};

struct undo_result : counts_fields {
  std::string session_id;
  undone_detail undone;
  std::string description; ///< a sentence: what was undone, what is left
  std::string status;  ///< "active" or "ended" after the undo
  bool reopened = false;
  std::int64_t undoable_left = 0;
  std::int64_t task_count = 0;
};

} // namespace

template <>
struct nested<undone_detail> {
  static const object_schema<undone_detail>& schema() {
    static const auto decl = [] {
      using o = undone_detail;
      object_schema<o> s;
      s.add("change", &o::change,
            "task_started, task_ended, tasks_edited or session_ended.");
      s.add("time", &o::time, "When it was made (ISO 8601).");
      s.add("task_id", &o::task_id, "The task of a start or an end.");
      s.add("operation_count", &o::operation_count,
            "A bulk edit's number of operations.");
      return s;
    }();
    return decl;
  }
};

namespace {

/// "the end of task 'build' at 10:05:00", for the reply's message.
std::string describe(const domain::change& c, const std::string& time) {
  switch (c.kind) {
    case domain::change::task_started:
      return "the start of task '" + c.task.task_id + "' at " + time;
    case domain::change::task_ended:
      return "the end of task '" + c.task_id + "' at " + time;
    case domain::change::tasks_edited:
      return "the bulk edit of " + std::to_string(c.ops.size())
             + (c.ops.size() == 1 ? " operation" : " operations") + " at "
             + time;
    case domain::change::session_ended:
      return "the session's end at " + time + " (it is active again)";
    default:
      return std::string{domain::to_string(c.kind)} + " at " + time;
  }
}

/// The undo itself, on a session the caller may change.
outcome<undo_result> undo_now(tool_context& ctx, domain::tracking_session& s,
                              domain::instant now) {
  auto r = ctx.tracker.undo(s, now);
  if (auto* err = std::get_if<domain::tracking_error>(&r))
    return to_tool_error(std::move(*err));
  auto& u = std::get<domain::undone>(r);
  undo_result res;
  res.session_id = s.id;
  const auto& c = u.what;
  res.undone.change = domain::to_string(c.kind);
  res.undone.time = domain::format_iso8601(c.at.wall, s.tz);
  if (c.kind == domain::change::task_started)
    res.undone.task_id = c.task.task_id;
  else if (c.kind == domain::change::task_ended)
    res.undone.task_id = c.task_id;
  else if (c.kind == domain::change::tasks_edited)
    res.undone.operation_count = static_cast<std::int64_t>(c.ops.size());
  res.description = "Undid " + describe(c, res.undone.time) + "; "
                    + std::to_string(u.left)
                    + (u.left == 1 ? " change" : " changes")
                    + " can still be undone.";
  res.status = s.ended() ? "ended" : "active";
  res.reopened = u.reopened;
  res.undoable_left = static_cast<std::int64_t>(u.left);
  res.task_count = static_cast<std::int64_t>(s.tasks.size());
  res.set(s.counts());
  return res;
}

slot_outcome<undo_result> run(const undo_args& args, tool_context& ctx) {
  // Undoing an end opens the session again: it needs a slot under the
  // shares and the cap exactly as a start does (else a client could hold
  // any number open by starting, ending and undoing the ends).
  std::optional<std::string> reopens;
  auto first = on_session<undo_result>(
    ctx, args.session_id,
    [&](domain::tracking_session& s,
        domain::instant now) -> outcome<undo_result> {
      if (domain::tracker::undo_reopens(s)) {
        reopens = s.id;
        return undo_result{};
      }
      return undo_now(ctx, s, now);
    });
  if (!reopens) {
    if (auto* ok = std::get_if<undo_result>(&first))
      return std::move(*ok);
    return std::move(std::get<tool_error>(first));
  }
  return slot_wait<undo_result>{
    *reopens, [id = *reopens](const domain::slot_answer& answer,
                              tool_context& ctx) -> outcome<undo_result> {
      if (!answer.granted)
        return limit_reached(answer, ctx);
      return on_session<undo_result>(
        ctx, id, [&](domain::tracking_session& s, domain::instant now) {
          return undo_now(ctx, s, now);
        });
    }};
}

} // namespace

tool make_time_undo() {
  using a = undo_args;
  auto in = std::make_shared<input_schema<a>>();
  add_session_id_arg(*in, &a::session_id);

  using r = undo_result;
  auto out = std::make_shared<output_schema<r>>();
  out->add("session_id", &r::session_id, "The session.");
  out->add("undone", &r::undone, "The change reverted.");
  out->add("description", &r::description,
           "What was undone, in a sentence.");
  out->add("status", &r::status, "active or ended, after the undo.");
  out->add("reopened", &r::reopened,
           "True: the session's end was undone; it is active again.");
  out->add("undoable_left", &r::undoable_left,
           "Changes that can still be undone.");
  out->add("task_count", &r::task_count, "Tasks in the session now.");
  add_counts(*out);
  tool_spec<a, r> spec;
  spec.name = "time_undo";
  spec.cost = cost::heavy; // replays the session's tasks
  spec.toolset = "edit";
  spec.title = "Undo a session's last change";
  spec.description
    = "Reverts the most recent change to a tracking session, as if it had "
      "not been made: a task start or end, a whole time_tasks_edit call, or "
      "the session's end (which makes it active again). Call it again to "
      "go further back, up to the session's last 50 changes. The session's "
      "start and expiry are never undone. Errors: NOTHING_TO_UNDO (no "
      "change left within reach), LIMIT_REACHED (reopening would pass the "
      "session's age limit), and those of the other session tools. Every "
      "undo is kept in the session's audit trail.";
  spec.input = std::move(in);
  spec.output = std::move(out);
  spec.handler = run;
  return make_tool(std::move(spec));
}

} // namespace ttm::tools
