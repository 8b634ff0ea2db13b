#pragma once

// Toolsets (GitHub's MCP server's convention): named groups of tools that
// --toolsets enables; tools/list shows only enabled tools and a call to
// another one is refused as an unknown tool that names --toolsets.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::tools {

/// A toolset's name and what the docs say of it. Its tools name it in
/// their declarations (tool_spec::toolset).
struct toolset {
  const char* name;
  const char* about;
  /// The server's instructions give each enabled toolset whose tools carry
  /// instructions notes one sentence: `lead` and the notes, in the order
  /// of `sentence` (then of the toolsets).
  const char* lead = "";
  int sentence = 0;
};

/// Every toolset, in the order help and docs list them.
const std::vector<toolset>& toolsets();

/// The toolset named `name`, or nullptr.
const toolset* find_toolset(std::string_view name);

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

} // namespace ttm::tools
