// A tracking session moving between two MCP sessions of this server, of
// one principal: the holder hands its copy over as it is, instead of the
// new holder reading and replaying it from the journal (which, for
// clients reading one big session in turn, was most of each call's work).
// The journal still checks the copy is current before the call runs.

#include "mcp/session.hpp"

#include "domain/ids.hpp"
#include "log.hpp"

namespace ttm::mcp {

handed_session session::hand_over(const std::string& id,
                                  const std::string& principal,
                                  const std::string& scope) {
  // Between frames only: a paused frame may have changed it (its write in
  // flight) or hold a claim on it.
  if (!tracking_ || job_ || !cfg_->journal || principal != principal_
      || !era_ || scope != protocol::to_string(*era_))
    return {};
  auto epoch = claims().current_epoch(id);
  if (epoch <= 0)
    return {};
  auto s = tracked().extract(id);
  if (!s)
    return {};
  claims().forget(id);
  tracking().gone.push_back(id);
  TTM_LOG(debug, "journal", "session " + domain::log_id(id)
                              + " handed over to another MCP session of "
                                "this server (epoch "
                              + std::to_string(epoch) + ")");
  return {std::make_shared<domain::tracking_session>(std::move(*s)), epoch};
}

std::int64_t session::take_handed(handed_session h) {
  if (!h.session || h.epoch <= 0)
    return 0;
  auto id = h.session->id;
  if (!tracked().insert(std::move(*h.session)))
    return 0;
  claims().hold(id, h.epoch);
  tracking().adopted.push_back(id);
  tracking().created.push_back(id);
  return h.epoch;
}

} // namespace ttm::mcp
