#include "protocol/mcp.hpp"

namespace ttm::protocol {

namespace {

constexpr std::array<std::string_view, 8> level_names{
  "debug", "info", "notice", "warning", "error", "critical", "alert",
  "emergency"};

std::string revisions_json() {
  std::string out = "[";
  auto add = [&out](std::string_view r) {
    out += out.size() > 1 ? ",\"" : "\"";
    out += r;
    out += '"';
  };
  for (auto r = modern_revisions.rbegin(); r != modern_revisions.rend(); ++r)
    add(*r);
  for (auto r = supported_revisions.rbegin(); r != supported_revisions.rend();
       ++r)
    add(*r);
  return out + "]";
}

std::string revisions_text() {
  std::string out;
  for (auto r : supported_revisions)
    out += (out.empty() ? "" : ", ") + std::string{r};
  return out;
}

} // namespace

const std::string all_revisions_json = revisions_json();

const std::string supported_revisions_text = revisions_text();

bool is_supported_revision(std::string_view revision) noexcept {
  for (auto r : supported_revisions)
    if (r == revision)
      return true;
  return false;
}

std::string_view negotiate_revision(std::string_view requested) noexcept {
  // Returns the static spelling, never a view into the caller's buffer.
  for (auto r : supported_revisions)
    if (r == requested)
      return r;
  return latest_revision;
}

std::optional<log_level> parse_log_level(std::string_view name) noexcept {
  for (size_t i = 0; i < level_names.size(); ++i)
    if (level_names[i] == name)
      return static_cast<log_level>(i);
  return std::nullopt;
}

std::string_view to_string(log_level level) noexcept {
  return level_names[static_cast<size_t>(level)];
}

} // namespace ttm::protocol
