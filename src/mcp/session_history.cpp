// The MCP session's history queries: a request that reads its caller's
// sessions (live and past) pauses its frame while the journal actor runs
// the query (query_history, session_context.cpp), then continues with the
// page (resume_history), which the journal actor converted as the store
// read it, or converted here.

#include "mcp/session.hpp"

#include "journal/history.hpp"

#include <stdexcept>
#include <utility>

namespace ttm::mcp {

rpc_step session::resume_history(domain::history_page page,
                                 const std::string& error) {
  if (!job_ || !job_->after_history)
    throw std::logic_error("session::resume_history without a paused query");
  last_active_ = cfg_->clock->mono_now();
  auto in_scope = scope();
  auto& j = *job_;
  history_answer answer;
  if (error.empty())
    answer.page = std::move(page);
  else
    answer.error = error;
  auto then = std::exchange(j.after_history, {});
  auto reply = finish(j, [&](std::vector<std::string>& notes) {
    return then(answer, notes);
  });
  return continue_with(j, std::move(reply));
}

rpc_step session::resume_history(storage::list_page page,
                                 const std::string& error) {
  if (!error.empty())
    return resume_history(domain::history_page{}, error);
  return resume_history(
    journal::to_history_page(std::move(page), cfg_->clock->wall_now()), "");
}

} // namespace ttm::mcp
