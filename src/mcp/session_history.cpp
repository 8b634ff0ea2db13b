// The MCP session's history queries: a request that reads its caller's
// sessions (live and past) pauses its frame while the journal actor runs
// the query, then continues with the page (query_history, resume_history).

#include "mcp/session.hpp"

#include "journal/history.hpp"
#include "log.hpp"

#include <stdexcept>
#include <utility>

namespace ttm::mcp {

void session::query_history(domain::history_filter filter,
                            history_continuation then) {
  if (!job_)
    throw std::logic_error("session::query_history outside a request");
  // The era of the request: a listed id is one this caller can name.
  job_->history = std::move(filter);
  job_->history_scope = std::string{protocol::to_string(
    mode_.modern ? protocol::era::modern : protocol::era::legacy)};
  job_->after_history = std::move(then);
}

std::string session::finish_history(job& j, const history_answer& answer) {
  const auto& msg = j.frame.messages[j.next];
  mode_ = mode_for(msg);
  auto then = std::exchange(j.after_history, {});
  try {
    return then(answer, j.out.notifications);
  } catch (const std::exception& e) {
    TTM_LOG(error, "mcp", "request " + msg.id.json + " (" + msg.method
                            + ") failed: " + e.what());
    return encode_error(msg.id, protocol::internal_error,
                        "Internal error while handling '" + msg.method + "'");
  }
}

rpc_step session::resume_history(storage::list_page page,
                                 const std::string& error) {
  if (!job_ || !job_->after_history)
    throw std::logic_error("session::resume_history without a paused query");
  last_active_ = cfg_.clock->mono_now();
  auto& j = *job_;
  history_answer answer;
  if (error.empty())
    answer.page = journal::to_history_page(std::move(page),
                                           cfg_.clock->wall_now());
  else
    answer.error = error;
  auto reply = finish_history(j, answer);
  rpc_step step;
  if (hold_for_journal(j, std::move(reply), step))
    return step;
  next_message(j);
  return run_job();
}

} // namespace ttm::mcp
