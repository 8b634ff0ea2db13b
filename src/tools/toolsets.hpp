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

/// What a server enables without --toolsets (issue 29): what the README
/// leads with, within the context budget (model-facing tools/list <= 14 KB,
/// tools_budget_test.cpp): the clock, tracking a milestone, its report and
/// the user's history (the spec's execution report and past sessions out
/// of the box), and the chronometric tools. Off: bulk edits and undo
/// (edit: a third of the budget for repairs) and the preference tools
/// (preferences apply without them: the config file sets the defaults).
inline constexpr const char* default_toolsets
  = "time,tracking,history,chronometric";

/// Start-up warnings about a set of toolsets that makes little sense
/// (e.g. 'edit' without 'tracking': nothing starts a session to edit);
/// empty when there is none.
std::vector<std::string>
toolsets_warnings(const std::vector<std::string>& enabled);

/// "a,b" (spaces around names ignored, `all` for every set) → the enabled
/// set names, or an error naming the valid names.
std::optional<std::vector<std::string>>
parse_toolsets(std::string_view list, std::string& error);

} // namespace ttm::tools
