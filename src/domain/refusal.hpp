#pragma once

// A request the HTTP edge refused for who sent it (401, 403, 429), as the
// audit trail records it: never the token, only what it decided and for
// whom.

#include "domain/clock.hpp"

#include <cstddef>
#include <string>

namespace ttm::domain {

struct refusal {
  wall_time at{};
  std::size_t status = 0; ///< the HTTP status: 401, 403 or 429
  std::string reason;     ///< the refusal's message, as the client got it
  std::string client_address;
  std::string principal; ///< empty: not known (no valid token)
  /// Refusals of the same address not recorded before this one (the edge
  /// records at most one per address per interval).
  std::size_t suppressed = 0;
};

} // namespace ttm::domain
