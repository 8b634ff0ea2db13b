// Refusals of the phrase grammar: short, with the nearest phrases that
// read as suggestions, and a pointer to the tool operation that does what
// the grammar does not (business days, periods).

#include "domain/ascii.hpp"
#include "domain/fuzzy_match.hpp"
#include "domain/natural_time.hpp"
#include "domain/time_phrase_parts.hpp"

#include <algorithm>

namespace ttm::domain::phrase {

namespace {

const std::vector<std::string_view>& vocabulary() {
  static const auto words = [] {
    std::vector<std::string_view> v = {
      "today", "tomorrow", "yesterday", "tonight", "noon", "midnight", "now",
      "next", "last", "this", "ago", "from", "start", "end", "beginning",
      "of", "the", "at", "in", "day", "days", "week", "weeks", "month",
      "months", "year", "years", "hour", "hours", "minute", "minutes",
      "second", "seconds", "morning", "afternoon", "evening", "night",
      "business", "after", "before", "half", "and"};
    for (const auto& [name, m] : english_time_words().months)
      if (name.size() > 3)
        v.push_back(name);
    for (const auto& [name, d] : english_time_words().weekdays)
      if (name.size() > 4)
        v.push_back(name);
    return v;
  }();
  return words;
}

thread_local bool suggesting = false;

} // namespace

time_input_error refuse_unknown(std::string_view text, const words& w,
                                const time_input_options& options,
                                const time_words& names) {
  auto refuse = [&](const std::string& why,
                    std::vector<std::string> suggestions = {}) {
    return refuse_time_input(text, why, std::move(suggestions));
  };
  if (contains(w, "business") || contains(w, "working")
      || contains(w, "workdays"))
    return refuse_business(text, w);
  if (w.size() == 2
      && (w[0] == "this" || w[0] == "next" || w[0] == "last")
      && (w[1] == "week" || w[1] == "month" || w[1] == "year"
          || w[1] == "weekend")) {
    std::string p(w[1]);
    if (p == "weekend")
      return refuse("'" + join(w) + "' is a period, not an instant",
                    {std::string(w[0]) + " saturday",
                     std::string(w[0]) + " sunday"});
    std::string which = w[0] == "this" ? "" : std::string(w[0]) + " ";
    std::vector<std::string> s{"start of " + which + p, "end of " + which + p};
    if (w[0] == "next")
      s.push_back("in 1 " + p);
    return refuse("'" + join(w) + "' is a period, not an instant: name its "
                  "start or end (time_calculate's 'difference' measures "
                  "between them)",
                  std::move(s));
  }
  // "4pm PST", "March 12 at 4:00 PM EST": a zone does not go in the time.
  static const char* const zone_words[] = {
    "utc", "gmt", "est", "edt", "et", "cst", "cdt", "ct", "mst", "mdt",
    "mt", "pst", "pdt", "pt", "cet", "cest", "bst", "ist", "jst", "aest"};
  if (!w.empty()
      && std::find_if(std::begin(zone_words), std::end(zone_words),
                      [&](const char* z) { return w.back() == z; })
           != std::end(zone_words)) {
    std::vector<std::string> suggestions;
    auto cut = text.find_last_of(' ');
    if (cut != std::string_view::npos) {
      std::string rest(text.substr(0, cut));
      if (std::holds_alternative<time_input>(
            parse_natural_time(rest, ascii_lower(rest), options)))
        suggestions.push_back(rest);
    }
    return refuse("'" + std::string(w.back())
                    + "' is a zone: name it in the tool's zone argument "
                      "(from_timezone, timezone), not in the time",
                  std::move(suggestions));
  }
  // The nearest phrases: each unknown word replaced by the nearest known
  // one, kept when the whole then reads.
  std::vector<std::string> suggestions;
  if (!suggesting) {
    suggesting = true;
    for (std::size_t i = 0; i < w.size() && suggestions.size() < 3; ++i) {
      if (names.month(w[i]) || names.weekday(w[i]) || names.day(w[i])
          || std::find(vocabulary().begin(), vocabulary().end(), w[i])
               != vocabulary().end())
        continue;
      std::optional<std::size_t> best;
      std::string_view best_word;
      for (auto v : vocabulary())
        if (auto d = near(w[i], v); d && (!best || *d < *best)) {
          best = d;
          best_word = v;
        }
      if (!best)
        continue;
      auto fixed = std::string(text);
      auto lower = fixed;
      for (auto& c : lower)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      auto at = lower.find(w[i]);
      if (at == std::string::npos)
        continue;
      fixed.replace(at, w[i].size(), best_word);
      if (std::holds_alternative<time_input>(
            parse_natural_time(fixed, ascii_lower(fixed), options)))
        suggestions.push_back(fixed);
    }
    suggesting = false;
  }
  if (suggestions.empty())
    suggestions = {"tomorrow at 9am", "in 3 hours", "next friday at 15:00"};
  return refuse("not a form this grammar reads", std::move(suggestions));
}


time_input_error refuse_business(std::string_view text, const words& w) {
  std::string n = "N";
  if (!w.empty() && all_digits(w[0]))
    n = std::string(w[0]);
  return refuse_time_input(text, "business days are counted by time_calculate: operation "
                "'business_days' with start 'now' and days " + n,
                {"next business day"});
}


} // namespace ttm::domain::phrase
