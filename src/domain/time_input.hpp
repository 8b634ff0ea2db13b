#pragma once

// The one grammar for a time a request names (docs/tools.md, "Time inputs"):
// ISO 8601 with an offset, a local date-time or a date read in a zone,
// unix:/unix_ms: numbers, and a small set of relative expressions evaluated
// against an explicit `now`. Case-insensitive; nothing else is guessed.

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

/// Reads `text` (at most 128 characters are looked at; longer is refused).
time_input_result parse_time_input(std::string_view text,
                                   const time_input_options& options);

/// Resolves a local time the caller wrote in `z` by `rule`: the instant, or
/// NONEXISTENT_LOCAL_TIME / AMBIGUOUS_LOCAL_TIME naming the transition and
/// the candidates. `written` is how the input spelled it, for the message.
time_input_result resolve_local_time(local_time t, const zone& z,
                                     disambiguation rule,
                                     std::string_view written);

/// The accepted forms, one sentence, as error messages quote them.
const std::string& accepted_time_forms();

} // namespace ttm::domain
