#pragma once

#include "tools/tool.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::tools {

/// The server's tools, immutable once built, shared read-only by every client
/// actor. The tools/list reply is rendered once: identical for every caller.
class registry {
public:
  explicit registry(std::vector<tool> tools);

  /// nullptr when no tool has that name.
  const tool* find(std::string_view name) const noexcept;

  const std::vector<tool>& tools() const noexcept {
    return tools_;
  }

  /// The result object of tools/list: {"tools":[...]}.
  const std::string& list_result_json() const noexcept {
    return list_json_;
  }

private:
  std::vector<tool> tools_;
  std::string list_json_;
};

using registry_ptr = std::shared_ptr<const registry>;

/// Every tool this server offers. `limits` are quoted in descriptions.
registry_ptr make_registry(const domain::tracking_limits& limits = {});

// One function per tool, each in its own translation unit (the session
// tools are declared in session_common.hpp).
tool make_time_get_current();

} // namespace ttm::tools
