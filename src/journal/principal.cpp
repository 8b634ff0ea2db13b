#include "journal/principal.hpp"

namespace ttm::journal {

namespace {

storage::focus_record to_store(const domain::focus_record& f) {
  return {f.session_id, f.intent, f.started_wall_ns, f.ended_wall_ns,
          f.summary};
}

domain::focus_record from_store(const storage::focus_record& f) {
  return {f.session_id, f.intent, f.started_wall_ns, f.ended_wall_ns,
          f.summary};
}

} // namespace

storage::principal_op to_store(const domain::principal_op& op) {
  storage::principal_op out;
  out.kind = static_cast<storage::principal_op::kind_t>(op.kind);
  out.principal = op.principal;
  out.prefs = op.prefs;
  out.start = to_store(op.start);
  out.refuse_open = op.refuse_open;
  out.now_wall_ns = op.now_wall_ns;
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
