#pragma once

// The rule a zone follows after the last transition its file lists (see
// posix_tz.hpp), for zone::state_at and zone::resolve: nullopt where
// date/tz's own answer stands.

#include "domain/posix_tz.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace date {
class time_zone;
} // namespace date

namespace ttm::domain {

struct footer_state {
  std::chrono::seconds utc_offset{0};
  bool is_dst = false;
  std::string abbreviation;
};

/// The state at `t` when `t` lies after the zone file's last transition
/// and the file's footer has a daylight-saving rule.
std::optional<footer_state> footer_state_at(const date::time_zone* tz,
                                            sys_seconds t);

struct footer_resolution {
  enum kind_t { unique, nonexistent, ambiguous } kind = unique;
  std::chrono::seconds offset_before{0}; ///< unique: the offset
  std::chrono::seconds offset_after{0};
  sys_seconds transition{};
};

/// What a local time (seconds since 1970-01-01 local) means when every
/// instant it could name lies after the file's last transition and the
/// footer has a daylight-saving rule.
std::optional<footer_resolution>
footer_resolve(const date::time_zone* tz, std::chrono::seconds local);

} // namespace ttm::domain
