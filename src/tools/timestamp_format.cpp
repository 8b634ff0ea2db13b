#include "tools/timestamp_format.hpp"

namespace ttm::tools {

const std::vector<std::string>& timestamp_formats() {
  static const std::vector<std::string> formats{"iso8601", "unix", "unix_ms",
                                                "friendly"};
  return formats;
}

std::string format_timestamp(const std::string& format, domain::wall_time t,
                             const domain::zoned_description& d) {
  if (format == "unix")
    return std::to_string(domain::unix_seconds(t));
  if (format == "unix_ms")
    return std::to_string(domain::unix_millis(t));
  if (format == "friendly")
    return d.friendly;
  return d.iso8601;
}

const char* const locale_description
  = "Locale of the friendly text, e.g. 'de-DE'.";

outcome<domain::friendly_locale> resolve_locale_arg(const std::string& tag) {
  auto l = domain::resolve_locale(tag);
  if (!l.found)
    return tool_error{"VALIDATION_ERROR", "locale: " + l.message,
                      std::move(l.suggestions)};
  return std::move(*l.found);
}

const domain::time_words* caller_time_words(const tool_context& ctx) {
  if (ctx.locale.empty())
    return nullptr;
  auto l = domain::resolve_locale(ctx.locale);
  if (!l.found || l.found->is_default)
    return nullptr;
  return &domain::time_words_for(l.found->icu_id);
}

} // namespace ttm::tools
