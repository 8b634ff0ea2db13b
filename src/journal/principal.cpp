#include "journal/principal.hpp"

#include <chrono>

namespace ttm::journal {

namespace {

domain::wall_time at(std::int64_t ns) {
  return domain::wall_time{std::chrono::duration_cast<
    domain::wall_time::duration>(std::chrono::nanoseconds{ns})};
}

} // namespace

storage::focus_record to_store(const domain::focus_row& f) {
  storage::focus_record out;
  out.session_id = f.session_id;
  out.intent = f.intent;
  out.started_wall_ns = domain::to_ns(f.start);
  if (f.end)
    out.ended_wall_ns = domain::to_ns(*f.end);
  out.summary = f.summary;
  return out;
}

domain::focus_row from_store(const storage::focus_record& f) {
  domain::focus_row out;
  out.session_id = f.session_id;
  out.intent = f.intent;
  out.start = at(f.started_wall_ns);
  if (f.ended_wall_ns)
    out.end = at(*f.ended_wall_ns);
  out.summary = f.summary;
  return out;
}

storage::principal_op to_store(const domain::principal_op& op) {
  storage::principal_op out;
  out.kind = static_cast<storage::principal_op::kind_t>(op.kind);
  out.principal = op.principal;
  out.prefs = op.prefs;
  out.start = to_store(op.start);
  out.refuse_open = {op.refuse_open.key, op.refuse_open.value,
                     op.refuse_open.otherwise};
  out.now_wall_ns = domain::to_ns(op.now);
  out.summary = op.summary;
  return out;
}

domain::principal_state from_store(const storage::principal_state& st) {
  domain::principal_state out;
  out.prefs = st.prefs;
  if (st.open)
    out.open = from_store(*st.open);
  if (st.closed)
    out.closed = from_store(*st.closed);
  out.refused = st.refused;
  return out;
}

} // namespace ttm::journal
