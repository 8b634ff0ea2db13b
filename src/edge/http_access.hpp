#pragma once

// Who may use the HTTP edge: the Host and Origin allow-lists (DNS rebinding
// protection) and bearer tokens with their principals. Plain C++: no Beast,
// no CAF.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::edge {

/// Constant-time check of a bearer token against a list: the time taken
/// depends on the lengths of the configured tokens only, never on where a
/// candidate first differs.
bool token_matches(const std::string& candidate,
                   const std::vector<std::string>& tokens) noexcept;

/// The same check, returning the index of the matching token or -1. Still
/// compares against every token.
int token_index(const std::string& candidate,
                const std::vector<std::string>& tokens) noexcept;

class access_policy {
public:
  access_policy() = default;

  /// `bound_port`: the port we listen on. `bind_name`: the name of the bound
  /// address as a Host carries it (`10.0.0.5`, `[fe80::1]`), when it is a
  /// specific address other than loopback; localhost, 127.0.0.1 and [::1]
  /// are always allowed. The extra lists and tokens come from the options.
  access_policy(std::uint16_t bound_port,
                const std::optional<std::string>& bind_name,
                const std::vector<std::string>& extra_hosts,
                const std::vector<std::string>& extra_origins,
                std::vector<std::string> tokens,
                std::vector<std::string> principals);

  /// A Host header's value, as sent.
  bool host_allowed(std::string_view host) const;

  /// An Origin header's value, as sent (a trailing `/` is ignored).
  bool origin_allowed(std::string_view origin) const;

  bool auth_required() const noexcept {
    return !tokens_.empty();
  }

  /// The principal of an Authorization header's `Bearer TOKEN`; nullopt
  /// when the header is absent, not Bearer, or holds no configured token.
  /// Without tokens every request is `local`'s.
  std::optional<std::string>
  principal_of(std::optional<std::string_view> authorization) const;

private:
  std::vector<std::string> hosts_;   // lower case
  std::vector<std::string> origins_; // lower case, no trailing '/'
  std::vector<std::string> tokens_;
  std::vector<std::string> principals_;
};

} // namespace ttm::edge
