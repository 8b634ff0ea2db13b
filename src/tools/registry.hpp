#pragma once

#include "tools/tool.hpp"

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ttm::tools {

/// The server's tools, immutable once built, shared read-only by every client
/// actor. The tools/list reply is rendered once: identical for every caller.
/// Everything the MCP layer needs to know about a tool comes from its
/// declaration (tool_spec): its toolset, preference defaults, role and what
/// the instructions say of it.
class registry {
public:
  /// Every tool of `tools` enabled; the list is rendered now.
  explicit registry(std::vector<tool> tools);

  /// The tools of `declared` whose toolset is one of `toolsets`; the others
  /// are only known by name, toolset and role (an "is off" answer). The
  /// schemas are compiled and the list rendered on first use: declaring
  /// the tools is cheap, compiling their schemas (about 0.5 ms) is what a
  /// server need not pay before its `initialize` reply. Throws
  /// std::invalid_argument when a tool names no known toolset or two tools
  /// share a name.
  registry(std::vector<tool> declared, std::vector<std::string> toolsets);

  /// Built by `make` on first use, by whichever thread asks first (the others
  /// wait).
  explicit registry(std::function<std::vector<tool>()> make,
                    std::vector<std::string> toolsets = {});

  registry(const registry&) = delete;
  registry& operator=(const registry&) = delete;

  /// nullptr when no enabled tool has that name.
  const tool* find(std::string_view name) const;

  /// The enabled tool with that role; nullptr when its toolset is off.
  const tool* find_role(role r) const;

  /// Whether `name` is an enabled tool declared heavy (tools::cost).
  bool heavy(std::string_view name) const;

  /// A declared tool with that role, enabled or not (for naming it and its
  /// toolset; call only what find gives); nullptr when none has it.
  const tool* declared(role r) const;

  /// The toolset of a declared tool, enabled or not; empty when no tool
  /// has that name.
  std::string toolset_of(std::string_view name) const;

  /// The enabled toolsets.
  const std::vector<std::string>& toolsets() const noexcept {
    return toolsets_;
  }

  const std::vector<tool>& tools() const;

  /// The server's instructions (the `initialize` result): what the enabled
  /// tools' declarations say (tool_spec::instructions), a sentence per
  /// toolset.
  const std::string& instructions() const;

  /// The result object of tools/list: {"tools":[...]}.
  const std::string& list_result_json() const;

  /// The tools' definitions as one JSON array (what "tools" holds);
  /// `modern`: as 2026-07-28 lists them (see nullable_result); `ui`: for a
  /// client that renders MCP Apps (tool_about::ui_resource linked).
  const std::string& tools_json(bool modern = false, bool ui = false) const;

  /// Compiles the tools and renders the list now if that has not happened
  /// yet.
  void build() const;
  /// The arguments an enabled tool declares "x-mcp-header" on, as
  /// (argument, header name) pairs, read from its input schema; nullptr:
  /// none, or no such tool.
  using header_params = std::vector<std::pair<std::string, std::string>>;
  const header_params* mirrored_params(std::string_view name) const;

private:
  void set() const;
  /// The enabled tools, without compiling them (built first if `make_`).
  const std::vector<tool>& enabled() const;

  std::function<std::vector<tool>()> make_;
  std::vector<std::string> toolsets_;
  mutable once_retry built_;
  mutable std::vector<tool> tools_;
  std::vector<tool> off_; ///< declared, in toolsets that are off
  mutable std::string instructions_;
  mutable std::string list_json_;
  mutable std::string tools_json_;
  mutable std::string modern_tools_json_;
  mutable std::string ui_tools_json_;
  mutable std::string ui_modern_tools_json_;
  mutable std::vector<std::pair<std::string, header_params>> mirrored_;
};

using registry_ptr = std::shared_ptr<const registry>;

/// The tools of the enabled toolsets (see toolsets.hpp; empty: the
/// default ones), compiled on first use. `limits` are quoted in
/// descriptions. The one list of all tools is in registry.cpp.
registry_ptr make_registry(const domain::tracking_limits& limits = {},
                           std::vector<std::string> toolsets = {});

/// The tool every test knows (time_get_current.cpp).
tool make_time_get_current();

} // namespace ttm::tools
