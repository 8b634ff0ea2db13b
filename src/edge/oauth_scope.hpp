#pragma once

// Which scope an OAuth access token needs for a request, from the tools'
// declarations (one place: a tool's readOnlyHint, as tools/list publishes
// it), never from a list of names: a read-only tool needs the read or the
// write scope, any other tool the write scope, every other method
// (initialize, tools/list, resources, prompts) just a valid token.

#include "protocol/json_rpc.hpp"
#include "tools/registry.hpp"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ttm::edge::oauth {

struct scope_names {
  std::string read = "tracker.read";
  std::string write = "tracker.write";
};

enum class scope_need { any, read, write };

/// The enabled tools and whether each is read-only, read once from the
/// registry's tools/list (the declarations' annotations).
class scope_map {
public:
  explicit scope_map(const tools::registry& tools);

  /// What a tools/call of `tool` needs: read for a read-only tool, write
  /// for any other; read for a name the registry does not know (the call
  /// is refused as an unknown tool anyway, for any token that may read).
  scope_need tool_need(std::string_view tool) const;

  /// What one message needs (tools/call: its tool's; else any).
  scope_need message_need(const protocol::message& m) const;

  /// The tools in tools/list order, each with whether it is read-only.
  const std::vector<std::pair<std::string, bool>>& tools() const noexcept {
    return order_;
  }

private:
  std::unordered_map<std::string, bool> read_only_;
  std::vector<std::pair<std::string, bool>> order_;
};

/// The scope a frame's messages need that `granted` lacks (the first
/// message that lacks one decides), or empty when it may go.
std::string missing_scope(const scope_map& map, const protocol::frame& f,
                          const std::vector<std::string>& granted,
                          const scope_names& names);

/// For the docs and tests: every tool and the scopes that allow it, one
/// `name: scope[ or scope]` line each, in tools/list order.
std::string scope_table(const scope_map& map, const scope_names& names);

} // namespace ttm::edge::oauth
