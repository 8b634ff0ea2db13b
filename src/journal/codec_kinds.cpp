#include "journal/codec_kinds.hpp"

#include "domain/clock.hpp"

#include <array>
#include <chrono>

namespace ttm::journal {

namespace fields {

// -- the domain's values as the journal stores them -----------------------------

/// A run's end status by its name: "completed" and "skipped" since the first
/// journal, "failed" since issue 20. An unknown name is a bad event (the
/// session is skipped) rather than a guess.
template <>
struct value<domain::run_status> {
  static constexpr const char* noun = "string";
  static void write(writer& w, domain::run_status s) {
    w.String(domain::to_string(s));
  }
  static domain::run_status read(const json& v, const char* key) {
    auto name = value<std::string>::read(v, key);
    for (auto s : {domain::run_status::completed, domain::run_status::skipped,
                   domain::run_status::failed})
      if (name == domain::to_string(s))
        return s;
    fail("unknown task status '" + name + "'");
  }
  static bool empty(domain::run_status) {
    return false;
  }
};

/// A bulk edit's operation by its name ("start", "end", ...).
template <>
struct value<domain::task_op::kind_t> {
  static constexpr const char* noun = "string";
  static void write(writer& w, domain::task_op::kind_t k) {
    w.String(domain::to_string(k));
  }
  static domain::task_op::kind_t read(const json& v, const char* key) {
    auto name = value<std::string>::read(v, key);
    auto kind = domain::task_op_kind_from(name);
    if (!kind)
      fail("unknown operation '" + name + "'");
    return *kind;
  }
  static bool empty(domain::task_op::kind_t) {
    return false;
  }
};

/// The kind of change an undo reverted: only one time_undo can revert.
template <>
struct value<domain::change::kind_t> {
  static constexpr const char* noun = "string";
  static void write(writer& w, domain::change::kind_t k) {
    w.String(domain::to_string(k));
  }
  static domain::change::kind_t read(const json& v, const char* key) {
    using domain::change;
    auto name = value<std::string>::read(v, key);
    for (auto k : {change::task_started, change::task_ended,
                   change::tasks_edited, change::session_ended})
      if (name == domain::to_string(k))
        return k;
    fail("'undid' names the kind '" + name + "', which cannot be undone");
  }
  static bool empty(domain::change::kind_t) {
    return false;
  }
};

/// A wall-clock time in nanoseconds since 1970.
template <>
struct value<domain::wall_time> : integer_value<domain::wall_time> {
  static void write(writer& w, domain::wall_time t) {
    w.Int64(domain::to_ns(t));
  }
  static domain::wall_time read(const json& v, const char* key) {
    return domain::wall_time{
      std::chrono::duration_cast<domain::wall_time::duration>(
        std::chrono::nanoseconds{read_rep(v, key)})};
  }
};

/// An instant by its wall clock alone (when an undone change was made).
template <>
struct value<domain::instant> : integer_value<domain::instant> {
  static void write(writer& w, const domain::instant& t) {
    value<domain::wall_time>::write(w, t.wall);
  }
  static domain::instant read(const json& v, const char* key) {
    domain::instant out;
    out.wall = value<domain::wall_time>::read(v, key);
    return out;
  }
};

} // namespace fields

namespace kinds {

namespace {

using domain::change;
using domain::task_op;
using fields::presence;
using fields::record;

/// A run's fields as a task_started event and a bulk edit's "start" store
/// them; the task id is the event's, or the operation's.
record<domain::task_start_request> run_fields() {
  using t = domain::task_start_request;
  record<t> r;
  r.add("task_name", &t::task_name, presence::absent_when_empty);
  r.add("external_task_id", &t::external_task_id, presence::absent_when_empty);
  r.add("work_item_id", &t::work_item_id, presence::absent_when_empty);
  r.add("metadata", &t::metadata, presence::defaulted);
  return r;
}

record<domain::session_request> request_fields() {
  using t = domain::session_request;
  record<t> r;
  r.add("milestone_id", &t::milestone_id, presence::required);
  r.add("milestone_name", &t::milestone_name, presence::absent_when_empty);
  r.add("task_ids", &t::task_ids, presence::defaulted);
  r.add("metadata", &t::metadata, presence::defaulted);
  r.add("tags", &t::tags, presence::defaulted);
  // Since issue 20; absent in older journals and when not given.
  r.add("idempotency_key", &t::idempotency_key, presence::absent_when_empty);
  // Since issue 17; absent in older journals and when none was given.
  r.add("estimates_ms", &t::estimates, presence::absent_when_empty);
  return r;
}

/// A bulk edit's operations, as time_tasks_edit took them (only those that
/// changed something; replay applies them again at the event's time): the
/// operation and its task, then what the operation's kind carries.
std::shared_ptr<const fields::object_fields<task_op>> op_fields() {
  using task = domain::task_start_request;
  auto ops = std::make_shared<fields::tagged<task_op, task_op::kind_t>>(
    &task_op::kind);
  ops->common().add("op", &task_op::kind, presence::required);
  ops->common().add("task_id", &task_op::task, &task::task_id,
                    presence::required);
  ops->of(task_op::start).part(&task_op::task, run_fields());
  auto& end = ops->of(task_op::end);
  end.add("status", &task_op::status, presence::required);
  end.add("metadata", &task_op::metadata, presence::defaulted);
  ops->of(task_op::note).add("text", &task_op::text, presence::required);
  auto& add = ops->of(task_op::add);
  add.add("task_name", &task_op::task, &task::task_name,
          presence::absent_when_empty);
  add.add("estimate_ms", &task_op::estimate, presence::absent_when_empty);
  auto& fix = ops->of(task_op::correct);
  fix.add("run", &task_op::run, presence::required)
    .or_else("a correction lacks its run");
  fix.add("start_ns", &task_op::start_time, presence::absent_when_empty);
  fix.add("end_ns", &task_op::end_time, presence::absent_when_empty);
  fix.add("status", &task_op::new_status, presence::absent_when_empty);
  fix.add("reason", &task_op::text, presence::required);
  // pause, resume and remove: the task id alone.
  return ops;
}

record<change> declare(change::kind_t k) {
  record<change> r;
  switch (k) {
    case change::session_started:
      r.stamp(era_key, [](const fields::context& c) {
        return protocol::to_string(c.era);
      });
      r.part(&change::session, request_fields());
      r.add("timezone", &change::zone_name, presence::required);
      break;
    case change::task_started:
      r.part(&change::task, run_fields());
      break;
    case change::task_ended:
      r.add("status", &change::status, presence::required);
      r.add("metadata", &change::metadata, presence::defaulted);
      break;
    case change::session_ended:
      break;
    case change::session_expired:
      r.add("reason", &change::reason, presence::required);
      break;
    case change::tasks_edited:
      r.list("ops", &change::ops, op_fields());
      break;
    case change::change_undone: {
      // What was reverted; the journal marks that event undone itself.
      record<change> undid;
      undid.add("kind", &change::undone_kind, presence::required);
      undid.add("wall_ns", &change::undone_at, presence::required);
      undid.add("task_id", &change::task_id, presence::absent_when_empty);
      undid.add("ops", &change::undone_ops, presence::defaulted)
        .only_if([](const change& c) {
          return c.undone_kind == change::tasks_edited;
        });
      r.object("undid", std::move(undid));
      break;
    }
  }
  return r;
}

} // namespace

const record<change>& payload_of(change::kind_t k) {
  static const auto all = [] {
    std::array<record<change>, change::change_undone + 1> out;
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = declare(static_cast<change::kind_t>(i));
    return out;
  }();
  return all.at(static_cast<std::size_t>(k));
}

const record<domain::change_origin>& by_fields() {
  using t = domain::change_origin;
  static const auto r = [] {
    record<t> out;
    out.stamp("principal", [](const fields::context& c) {
      return c.principal;
    });
    out.add("client", &t::client, presence::defaulted);
    out.add("tool", &t::tool, presence::defaulted);
    return out;
  }();
  return r;
}

const record<domain::refusal>& refusal_fields() {
  using t = domain::refusal;
  static const auto r = [] {
    record<t> out;
    out.add("status", &t::status, presence::required);
    out.add("reason", &t::reason, presence::required);
    out.add("client_address", &t::client_address, presence::defaulted);
    out.add("principal", &t::principal, presence::absent_when_empty);
    out.add("suppressed", &t::suppressed, presence::defaulted);
    return out;
  }();
  return r;
}

} // namespace kinds

} // namespace ttm::journal
