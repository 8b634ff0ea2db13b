#pragma once

#include "domain/clock.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace date {
class time_zone;
} // namespace date

namespace ttm::domain {

/// What a zone says about one instant.
struct zone_state {
  std::chrono::seconds utc_offset{0};
  bool is_dst = false;
  /// The zone's abbreviation at that instant, e.g. "EST", "+0545"; for a
  /// fixed offset "UTC+05:30".
  std::string abbreviation;
};

/// A wall-clock reading without a zone: milliseconds since 1970-01-01T00:00
/// local (kept free of date/tz types so this header stays light).
struct local_time {
  std::chrono::milliseconds since_epoch{0};
};

/// What a local time means in a zone: one instant, none (a DST gap: the
/// clocks skipped it) or two (an overlap: the clocks went back over it).
struct local_resolution {
  enum kind_t { unique, nonexistent, ambiguous };
  kind_t kind = unique;
  /// unique: the instant (both fields). ambiguous: the first and second
  /// occurrence. nonexistent: Temporal's "earlier" (the local time read
  /// with the offset after the gap, which lands before it) and "later"
  /// (read with the offset before the gap, which lands after it).
  wall_time earlier{};
  wall_time later{};
  /// Gap or overlap: the instant the offset changed and the offsets on
  /// either side of it.
  wall_time transition{};
  std::chrono::seconds offset_before{0};
  std::chrono::seconds offset_after{0};
};

/// A time zone a request may name: an IANA zone from the OS database or a
/// fixed UTC offset. Cheap to copy (a pointer into the tz database or an
/// offset, plus the canonical name).
class zone {
public:
  static zone iana(const date::time_zone* tz, std::string name);
  static zone fixed(std::chrono::minutes offset);

  /// The name to report: the IANA name as requested (links keep their own
  /// name, e.g. "US/Eastern"), or "UTC+05:30" / "UTC-03:00" for offsets.
  const std::string& name() const noexcept {
    return name_;
  }

  bool is_fixed() const noexcept {
    return tz_ == nullptr;
  }

  zone_state state_at(wall_time t) const;

  /// The instants `t` names in this zone (date/tz's local_info; a fixed
  /// offset is always unique).
  local_resolution resolve(local_time t) const;

  /// The local wall-clock time at `t`.
  local_time local_at(wall_time t) const;

private:
  zone(const date::time_zone* tz, std::chrono::minutes off, std::string name);

  const date::time_zone* tz_;
  std::chrono::minutes fixed_offset_;
  std::string name_;
};

/// The outcome of resolving a user-supplied zone name.
struct zone_lookup {
  std::optional<zone> found;
  /// When not found: a sentence for the agent, e.g.
  /// "Unknown time zone 'America/NewYork'. Did you mean: America/New_York?"
  std::string message;
  /// When not found: at most 3 valid names, nearest first.
  std::vector<std::string> suggestions;
};

/// Resolves `name`:
/// - "local" (any case) -> `local_zone_name` (itself an IANA name);
/// - an IANA zone or link name, exact spelling ("UTC", "Europe/London");
/// - a fixed offset: "+05:30", "-03", "+0545", "UTC-3", "UTC+05:30", "GMT+2"
///   (hours 0..14, minutes 0..59);
/// - a bare abbreviation ("EST", "IST", "PST", "CET", ...) is never guessed,
///   even where the tz database has a legacy zone of that name: it is refused
///   with the zones it commonly stands for as suggestions;
/// - a Windows zone name with a space as ICU's CLDR windowsZones data knows
///   it, ASCII case-insensitively ("Eastern Standard Time" ->
///   America/New_York, reported under that IANA name; see
///   windows_zones.hpp); Windows' other ids are read as the IANA name
///   ("UTC") or fixed offset ("UTC-02") they also are;
/// - anything else is refused with up to 3 nearest valid names
///   (case-insensitive edit distance over full names and their last
///   component: "asia/tokyo" -> "Asia/Tokyo", "America/NewYork" ->
///   "America/New_York"); an input with a space is matched against the
///   Windows names instead ("Eastern Standart Time").
zone_lookup resolve_zone(std::string_view name,
                         std::string_view local_zone_name);

/// Whether resolve_zone(name, ...) finds an IANA zone (not "local", an
/// abbreviation or an offset), decided without loading the tz database: the
/// name must be a path below the zoneinfo directory that the database lists,
/// to a file that starts like a TZif file. For checking a configured zone at
/// start-up; a false answer is worth a resolve_zone call for its message.
bool names_iana_zone(std::string_view name);

/// The host's IANA zone name: the TZ variable (a leading ':' stripped, when
/// it names a zone in the database), else /etc/timezone, else the target of
/// the /etc/localtime link below a zoneinfo directory. Empty when none of
/// these names a zone; the caller then uses "UTC" and logs a warning.
/// Names are checked as names_iana_zone checks them (abbreviations such as
/// "EST" pass, since the database has them as zones), without loading the
/// tz database.
/// `tz_env` is the value of TZ (nullptr when unset); the file paths are
/// parameters so that tests can point them at temporary files.
std::string detect_local_zone_name(const char* tz_env,
                                   const std::string& etc_timezone
                                   = "/etc/timezone",
                                   const std::string& etc_localtime
                                   = "/etc/localtime");

/// The tz database's version from the first line of tzdata.zi ("# version
/// 2026f" -> "2026f"), or "unknown". Reads that one line; does not load the
/// database.
std::string tz_database_version();

/// Loads the tz database now if it is not loaded yet (about 2 ms: a walk of
/// the zoneinfo directory). Thread-safe. resolve_zone loads it on first need
/// anyway; this only takes that cost off the first call. False when the
/// database cannot be loaded.
bool preload_tz_database() noexcept;

/// "+05:45", "-03:00", "+00:00" (never "Z"): also names a fixed-offset
/// zone (see time_format.hpp for the rest of the formats).
std::string format_utc_offset(std::chrono::seconds offset);

} // namespace ttm::domain
