#include "protocol/modern.hpp"

namespace ttm::protocol {

bool is_modern_revision(std::string_view revision) noexcept {
  for (auto r : modern_revisions)
    if (r == revision)
      return true;
  return false;
}

bool names_modern_era(std::string_view revision) noexcept {
  // ISO dates compare as strings; anything that is no date is not modern.
  if (revision.size() != 10)
    return false;
  for (std::size_t i = 0; i < revision.size(); ++i) {
    bool dash = i == 4 || i == 7;
    if (dash ? revision[i] != '-' : revision[i] < '0' || revision[i] > '9')
      return false;
  }
  return revision >= modern_revision;
}

bool is_modern_method(std::string_view method) noexcept {
  return method == "server/discover" || method == "tools/list"
         || method == "tools/call" || method == "prompts/list"
         || method == "prompts/get" || method == "resources/list"
         || method == "resources/templates/list"
         || method == "resources/read" || method == "completion/complete"
         || method == "subscriptions/listen";
}

modern_refusal unsupported_version(std::string_view requested) {
  modern_refusal r;
  r.code = unsupported_protocol_version;
  r.message = "Unsupported protocol version '" + std::string{requested}
              + "' in _meta; per-request _meta serves "
              + std::string{modern_revision}
              + " (the 2025 revisions are served through initialize)";
  r.data_json = R"({"supported":)" + std::string{all_revisions_json}
                + R"(,"requested":)" + json_quote(requested) + "}";
  return r;
}

std::optional<modern_refusal> check_envelope(const message& m) {
  if (m.meta.problem.empty())
    return std::nullopt;
  modern_refusal r;
  r.code = invalid_params;
  r.message = "Invalid params: " + m.meta.problem;
  return r;
}

std::optional<modern_refusal> check_version(const message& m) {
  if (is_modern_revision(m.meta.version))
    return std::nullopt;
  return unsupported_version(m.meta.version);
}

std::optional<modern_refusal> check_method(const message& m) {
  if (m.kind != message::request || is_modern_method(m.method))
    return std::nullopt;
  modern_refusal r;
  r.code = method_not_found;
  r.message = "Method not found: '" + m.method + "'";
  if (m.method == "initialize" || m.method == "ping"
      || m.method == "logging/setLevel")
    r.message += " is not part of protocol revision "
                 + std::string{modern_revision};
  r.http_status = 404;
  return r;
}

std::optional<modern_refusal> check_modern_request(const message& m) {
  if (auto r = check_envelope(m))
    return r;
  if (auto r = check_version(m))
    return r;
  return check_method(m);
}

} // namespace ttm::protocol
