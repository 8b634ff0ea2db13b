// The MCP session's principal operations: a tools/call of a zone-using tool
// without its zone first reads the caller's preferences (principal_prefs:
// its zone stands in for 'local'); a tool's principal_wait (preferences,
// focus sessions) runs its operation. With a journal the frame pauses while
// the journal actor runs it (a zone read answered within prefs_cache_ttl of
// the last answer uses that one instead); with --ephemeral it runs at once
// on the server's in-memory board.

#include "mcp/session.hpp"

#include "journal/principal.hpp"
#include "log.hpp"

#include <stdexcept>
#include <utility>

namespace ttm::mcp {

principal_board& session::board() {
  if (cfg_->board)
    return *cfg_->board;
  if (!own_board_)
    own_board_ = std::make_shared<principal_board>();
  return *own_board_;
}

std::optional<rpc_step>
session::principal_step(domain::principal_op op,
                        domain::principal_state& state) {
  // The principal is the caller's identity, never a tool's choice.
  op.principal = principal_;
  if (cfg_->journal) {
    rpc_step step;
    step.pause = principal_pause{journal::to_store(op)};
    return step;
  }
  state = journal::from_store(board().memory().apply(journal::to_store(op)));
  return std::nullopt;
}

rpc_step session::resume_principal(const storage::principal_state& state,
                                   const std::string& error) {
  if (!job_ || (!job_->prefs_pending && !job_->after_principal))
    throw std::logic_error("session::resume_principal without a paused "
                           "operation");
  last_active_ = cfg_->clock->mono_now();
  auto in_scope = scope();
  auto& j = *job_;
  domain::principal_state st;
  if (error.empty()) {
    st = journal::from_store(state);
    // Every answer carries the principal's preferences as of its
    // transaction: after a change of its own, the cache holds the new ones.
    prefs().remember(st.prefs, cfg_->clock->mono_now());
  }
  if (j.prefs_pending) {
    if (!error.empty())
      TTM_LOG(warning, "mcp", "preferences unreadable, the server's zone "
                              "stands in: " + error);
    j.prefs_pending = false;
    prefs().take(cfg_->defaults, error.empty() ? &st.prefs : nullptr,
                cfg_->local_zone);
    return run_job();
  }
  auto then = std::exchange(j.after_principal, {});
  auto reply = finish(j, [&](std::vector<std::string>& notes) {
    return then(error.empty() ? &st : nullptr, error, notes);
  });
  return continue_with(j, std::move(reply));
}

} // namespace ttm::mcp
