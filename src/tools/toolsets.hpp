#pragma once

// Toolsets (GitHub's MCP server's convention): named groups of tools that
// --toolsets enables; tools/list shows only enabled tools and a call to
// another one is refused as an unknown tool that names --toolsets.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::tools {

struct toolset {
  const char* name;
  const char* about;
  std::vector<const char*> tools;
};

/// Every toolset, in the order help and docs list them. `edit` names
/// tools that have not landed yet: it is accepted and lists nothing.
const std::vector<toolset>& toolsets();

/// What a server enables without --toolsets: what an agent needs without
/// asking, within the context budget (README): the clock, tracking a
/// milestone and the chronometric tools. Preferences apply without their
/// tools (set once: --toolsets ...,preferences, or the config file).
inline constexpr const char* default_toolsets
  = "time,tracking,chronometric";

/// "a,b" (spaces around names ignored, `all` for every set) → the enabled
/// set names, or an error naming the valid names.
std::optional<std::vector<std::string>>
parse_toolsets(std::string_view list, std::string& error);

/// The toolset a tool belongs to; empty when none.
std::string toolset_of(std::string_view tool_name);

} // namespace ttm::tools
