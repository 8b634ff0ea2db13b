#include "domain/time_input.hpp"

#include "domain/natural_time.hpp"

namespace ttm::domain {

namespace {

constexpr std::size_t max_input_length = 128;

} // namespace

time_input_result parse_time_input(std::string_view text,
                                   const time_input_options& o) {
  if (text.size() > max_input_length)
    return refuse_time_input(text, "longer than 128 characters");
  std::string lower;
  lower.reserve(text.size());
  for (char ch : text) {
    auto u = static_cast<unsigned char>(ch);
    // Tabs and newlines are spaces; other control characters are refused
    // below as text the grammar does not know.
    bool space = u == ' ' || (u >= '\t' && u <= '\r'); // std::isspace's set
    lower += space                  ? ' '
             : u >= 'A' && u <= 'Z' ? static_cast<char>(u - 'A' + 'a')
                                    : ch;
  }
  std::string_view s = lower;
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ')
    s.remove_suffix(1);
  if (s.empty())
    return refuse_time_input(text, "it is empty");
  if (s.size() > 4 && all_digits(s.substr(0, 4)) && s[4] == '-') {
    auto iso = parse_iso_time(text, s, o);
    // "2026-12-25 3pm", "2026-12-25 at 15:00": an ISO date, then a phrase's
    // time of day; the ISO refusal stands when that does not read either.
    if (std::holds_alternative<time_input_error>(iso) && s.size() > 11
        && s[10] == ' ' && std::get<time_input_error>(iso).code
                             == "VALIDATION_ERROR") {
      auto phrase = parse_natural_time(text, s, o);
      if (std::holds_alternative<time_input>(phrase))
        return phrase;
    }
    return iso;
  }
  if (s.substr(0, 8) == "unix_ms:")
    return parse_unix_time(text, s.substr(8), true);
  if (s.substr(0, 5) == "unix:")
    return parse_unix_time(text, s.substr(5), false);
  if (all_digits(s))
    return refuse_time_input(text, "a bare number is ambiguous (seconds or "
                                   "milliseconds?); write unix:SECONDS or "
                                   "unix_ms:MILLISECONDS",
                             {"unix:" + std::string(s)});
  return parse_natural_time(text, s, o);
}

} // namespace ttm::domain
