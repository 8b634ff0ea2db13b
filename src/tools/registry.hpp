#pragma once

#include "tools/tool.hpp"

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::tools {

/// The server's tools, immutable once built, shared read-only by every client
/// actor. The tools/list reply is rendered once: identical for every caller.
class registry {
public:
  /// Built now from `tools`.
  explicit registry(std::vector<tool> tools);

  /// Built by `make` on first use, by whichever thread asks first (the others
  /// wait): declaring the tools compiles their schemas (about 0.5 ms), which
  /// a server need not pay before its `initialize` reply.
  explicit registry(std::function<std::vector<tool>()> make,
                    std::vector<std::string> toolsets = {});

  registry(const registry&) = delete;
  registry& operator=(const registry&) = delete;

  /// nullptr when no tool has that name.
  const tool* find(std::string_view name) const;

  /// The enabled toolsets.
  const std::vector<std::string>& toolsets() const noexcept {
    return toolsets_;
  }

  const std::vector<tool>& tools() const;

  /// The result object of tools/list: {"tools":[...]}.
  const std::string& list_result_json() const;

  /// The tools' definitions as one JSON array (what "tools" holds);
  /// `modern`: as 2026-07-28 lists them (see nullable_result).
  const std::string& tools_json(bool modern = false) const;

  /// Builds the tools now if that has not happened yet.
  void build() const;

private:
  void set(std::vector<tool> tools) const;

  std::function<std::vector<tool>()> make_;
  std::vector<std::string> toolsets_;
  mutable std::once_flag built_;
  mutable std::vector<tool> tools_;
  mutable std::string list_json_;
  mutable std::string tools_json_;
  mutable std::string modern_tools_json_;
};

using registry_ptr = std::shared_ptr<const registry>;

/// The tools of the enabled toolsets (see toolsets.hpp; empty: the
/// default ones), built on first use. `limits` are quoted in descriptions.
registry_ptr make_registry(const domain::tracking_limits& limits = {},
                           std::vector<std::string> toolsets = {});

// One function per tool, each in its own translation unit (the session
// tools are declared in session_common.hpp).
tool make_time_get_current();
tool make_time_convert();
tool make_time_calculate();
tool make_time_session_list();
tool make_time_stats();
tool make_time_preferences_get();
tool make_time_preferences_set();
/// get_time_context, mark_session_start, mark_session_end,
/// request_break_if_needed, idle_status (chronometric.cpp).
std::vector<tool> make_chronometric_tools();

} // namespace ttm::tools
