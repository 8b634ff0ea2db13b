#pragma once

// What every time input shares (options, result, errors, gap and overlap
// resolution) and its absolute forms: ISO 8601 with or without an offset, a
// date, unix:/unix_ms: numbers. The relative expressions and the entry point
// are in time_input.hpp.

#include "domain/clock.hpp"
#include "domain/zones.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ttm::domain {

/// How a local time in a DST gap or overlap becomes an instant (the
/// Temporal API's terms). `reject` refuses both.
enum class disambiguation { reject, compatible, earlier, later };

/// "reject", "compatible", "earlier", "later"; nullopt for anything else.
std::optional<disambiguation> parse_disambiguation(std::string_view s);

struct time_input_options {
  /// What "now" is (from domain::clock_source; tests pass fixed instants).
  wall_time now{};
  /// The zone local date-times, dates and relative expressions are read in.
  const zone* in = nullptr;
  /// 0 = Sunday ... 6 = Saturday (date::weekday's C encoding); Monday by
  /// default. Used by "start of week", "end of week" and "this <weekday>".
  unsigned week_start = 1;
  /// For a local time the caller wrote (a local date-time, "... at HH:MM").
  /// Local times the grammar computes (midnights, calendar arithmetic) use
  /// `compatible`, as Temporal's arithmetic does.
  disambiguation on_conflict = disambiguation::reject;
  /// Month and weekday names and numeric date order of the caller's locale
  /// (time_words_for); nullptr reads English, month first (en-US).
  const struct time_words* words = nullptr;
};

struct time_input {
  enum form_t { offset, local, date, unix, relative };
  form_t form = offset;
  wall_time instant{};
  /// `offset` form: the offset the input carried ("Z" is +00:00).
  std::optional<std::chrono::seconds> input_offset;
  /// "earlier" / "later" when the local time fell in a gap or an overlap
  /// and was shifted or chosen; empty otherwise.
  std::string disambiguated;
  /// The convention that read an ambiguous phrase, e.g. "next friday: the
  /// first Friday after today" (docs/time-grammar.md); empty otherwise.
  std::string convention;
};

/// A refused input. `code` is VALIDATION_ERROR (not in the grammar),
/// NONEXISTENT_LOCAL_TIME (a DST gap) or AMBIGUOUS_LOCAL_TIME (an overlap).
struct time_input_error {
  std::string code;
  std::string message;
  /// Gap or overlap: the candidate instants, ISO 8601 with offset.
  std::vector<std::string> suggestions;
};

using time_input_result = std::variant<time_input, time_input_error>;

/// Resolves a local time the caller wrote in `z` by `rule`: the instant, or
/// NONEXISTENT_LOCAL_TIME / AMBIGUOUS_LOCAL_TIME naming the transition and
/// the candidates. `written` is how the input spelled it, for the message;
/// `rule_argument` is the argument the message tells the caller to pass.
time_input_result resolve_local_time(local_time t, const zone& z,
                                     disambiguation rule,
                                     std::string_view written,
                                     std::string_view rule_argument
                                     = "disambiguation");

/// A VALIDATION_ERROR for `text`: "Cannot read the time '...': WHY. Forms:
/// docs/time-grammar.md." (at most 300 characters: the page lists the
/// grammar, a refusal does not), with `suggestions` to try instead.
time_input_error refuse_time_input(std::string_view text,
                                   const std::string& why,
                                   std::vector<std::string> suggestions = {});

/// wall_time counts nanoseconds (years 1678 to 2261): inputs and results
/// stay in years 1800 to 2200, checked in milliseconds (since 1970-01-01,
/// UTC or local) before any conversion.
bool in_supported_years(std::chrono::milliseconds since_epoch);
inline constexpr const char* outside_supported_years
  = "the result is outside the years 1800 to 2200";

/// One or more ASCII digits.
bool all_digits(std::string_view s);

/// YYYY-MM-DD[(T| )HH:MM[:SS[.fraction]]][Z|±HH:MM|±HHMM|±HH]; `lowered` is
/// `text` lower-cased and trimmed.
time_input_result parse_iso_time(std::string_view text,
                                 std::string_view lowered,
                                 const time_input_options& options);

/// The digits after "unix:" (seconds) or "unix_ms:" (milliseconds), an
/// optional '-' first.
time_input_result parse_unix_time(std::string_view text,
                                  std::string_view digits, bool millis);

} // namespace ttm::domain
