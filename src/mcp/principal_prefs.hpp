#pragma once

// The caller's preferences as one MCP session uses them: a tools/call of a
// zone-using tool without its zone reads the principal's preferences first
// (its zone stands in for 'local', its locale and week start for omitted
// arguments). The journal's last answer is cached for prefs_cache_ttl, so
// such a call does not wait for the journal again meanwhile (other
// servers' changes show after it at the latest).

#include "domain/clock.hpp"
#include "domain/preferences.hpp"
#include "protocol/json_rpc.hpp"
#include "tools/registry.hpp"

#include <rapidjson/document.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ttm::mcp {

/// How long a client trusts its cached preferences.
inline constexpr std::chrono::seconds prefs_cache_ttl{5};

/// A principal's stored preferences: (key, JSON value) pairs.
using pref_entries = std::vector<std::pair<std::string, std::string>>;

class principal_prefs {
public:
  /// Whether `msg` is a tools/call of a zone-using tool `registry` serves
  /// whose zone argument is omitted (or 'local'): then the principal's
  /// zone preference applies.
  static bool needs_zone(const protocol::message& msg,
                         const tools::registry& registry);

  /// The preferences the journal answered within prefs_cache_ttl before
  /// `now`; nullptr: none that recent.
  const pref_entries* cached(domain::mono_time now) const;
  /// The journal's latest answer: every principal operation carries the
  /// preferences as of its transaction (its own changes included).
  void remember(pref_entries prefs, domain::mono_time now);

  /// Takes the current message's zone, locale and week start from `prefs`
  /// over `defaults` (nullptr: unreadable, the defaults alone).
  void take(const domain::preferences& defaults, const pref_entries* prefs,
            const std::string& local_zone);
  /// On to the next message: nothing read for it yet.
  void clear();
  /// The caller's zone for the current message; empty: not read.
  const std::string& zone() const noexcept {
    return zone_;
  }
  /// The caller's locale for the current message; empty: not read.
  const std::string& locale() const noexcept {
    return locale_;
  }
  /// `args` with the caller's locale and week start where `tool` takes
  /// them and they are left out; nullopt: `args` as they are (or nothing
  /// was read for this message).
  std::optional<rapidjson::Document>
  with_preferences(const tools::tool& tool,
                   const rapidjson::Value& args) const;

private:
  struct cache {
    pref_entries prefs;
    domain::mono_time at;
  };
  std::optional<cache> cache_;
  /// The current message's, once read.
  bool read_ = false;
  std::string zone_;
  std::string locale_;
  std::string week_start_;
};

} // namespace ttm::mcp
