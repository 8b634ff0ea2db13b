#pragma once

#include "domain/tracking.hpp"

#include <cstdint>
#include <memory>

namespace ttm::mcp {

/// A tracking session one client of this server hands to another (see
/// session::hand_over): moved, not shared (the giver keeps nothing of it),
/// held through a pointer only so that the message carrying it copies
/// nothing. Empty: not handed over.
struct handed_session {
  std::shared_ptr<domain::tracking_session> session;
  std::int64_t epoch = 0;
};

} // namespace ttm::mcp
