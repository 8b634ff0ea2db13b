#pragma once

// The `friendly` format in other locales than en-US (issue 18 item 6),
// in ICU's words. date/tz stays the one zone engine: it computes the offset
// and abbreviation, ICU's formatter is given the local wall time as an
// instant in UTC (so ICU's own tz data never decides anything); date/tz's
// abbreviation is appended after a plain space. A udat_format call costs
// about 1.5-2 us, so for most locales ICU is asked only once per thread for
// the formatter's pattern and names, which locale_pattern then interprets
// on the local fields (tens of ns). Locales with another calendar, other
// digits or a pattern letter it does not know keep calling ICU.

#include "domain/clock.hpp"
#include "domain/time_format.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::domain {

/// A locale the friendly format can use.
struct friendly_locale {
  /// en-US: the server's own fast formatter (time_format.hpp), no ICU.
  bool is_default = true;
  /// ICU's locale id, e.g. "de_DE", "ja_JP@calendar=japanese".
  std::string icu_id;
};

struct locale_lookup {
  std::optional<friendly_locale> found;
  /// When not found: "'xx-YY' is not a locale this server knows; e.g. ..."
  std::string message;
  /// When not found: valid tags, those of the same language first.
  std::vector<std::string> suggestions;
};

/// Reads a BCP 47 tag ("de-DE", "ja-JP", "fr-CA", "zh-Hant-TW",
/// "ar-EG-u-nu-latn"). "en-US" (any case) is the default. Others must parse
/// whole (uloc_forLanguageTag) and name a language ICU has data for, a
/// script some of its locales use and a region that exists (ISO 3166 or a
/// 3-digit UN M49 area such as 419): ICU would otherwise quietly fall back
/// to its root locale.
locale_lookup resolve_locale(std::string_view tag);

/// Makes d.friendly (describe(t, z)) "29. März 2026 um 03:30:00 CEST": `t`
/// at d.state's offset in `locale`'s long date and medium time (CLDR's, with
/// its default calendar and digits), then a space and d.state.abbreviation.
/// Plain spaces throughout: the narrow no-break spaces ICU 72 puts in some
/// times ("3:30:00\u202fAM") and no-break spaces are replaced, so the text
/// does not change with the ICU version. The default locale leaves the
/// en-US text as it is. Thread-safe: each thread keeps its own few opened
/// ICU formatters, each with its interpreted pattern when it has one
/// (opening both costs tens of us; formatting then well under 0.1 us, or
/// about 1.5 us through ICU).
void localize_friendly(zoned_description& d, wall_time t,
                       const friendly_locale& locale);

namespace detail {

/// For tests: whether `icu_id` (e.g. "de_DE") formats without ICU.
bool has_fast_path(const std::string& icu_id);

/// For tests: the friendly text before the abbreviation, of the wall time
/// `local` given as a UTC instant; through the interpreted pattern (`fast`,
/// nullopt when the locale has none) or through ICU.
std::optional<std::string> friendly_local_text(wall_time local,
                                               const std::string& icu_id,
                                               bool fast);

} // namespace detail

} // namespace ttm::domain
