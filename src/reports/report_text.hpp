#pragma once

// Formatting the renderers share: local times, compact durations, status
// words and symbols. Internal to src/reports.

#include "reports/report.hpp"

#include <string>
#include <string_view>

namespace ttm::reports::text {

/// Appends the pieces in order: a row's dozen pieces without the temporary
/// strings a chain of `+` makes (reports have a row per run).
template <class... Parts>
void append(std::string& s, const Parts&... parts) {
  (s.append(std::string_view{parts}), ...);
}

/// "2025-12-14 09:45:32": local time in `tz`, whole seconds.
std::string local_datetime(domain::wall_time t, const domain::zone& tz);
/// "December 14, 2025".
std::string friendly_date(domain::wall_time t, const domain::zone& tz);
/// "9:45:32 AM".
std::string friendly_time(domain::wall_time t, const domain::zone& tz);
/// "9:45:32 AM EST".
std::string friendly_time_zone(domain::wall_time t, const domain::zone& tz);
/// "1m 13s", "2h 5m 0s" → "2h 5m", "0s": compact, whole seconds.
std::string compact_duration(std::chrono::milliseconds d);
/// "+1m 3s" over, "-2m 57s" under, "0s": an actual time less its estimate.
std::string signed_duration(std::chrono::milliseconds d);
/// A run's duration as the table shows it: "3m 0s", and for a paused run
/// "3m 0s (paused 2m 0s)" (the duration is the active time).
std::string run_duration(const report_run& r);
/// "completed", ... ; "running" for a run still in progress.
const char* status_word(const report_run& r);
/// "✅", "⏭️", "❌", "⚠️", "🔄".
const char* status_symbol(const report_run& r);
/// The name to show: the task name, else the task id.
const std::string& display_name(const report_run& r);

/// Text and attribute values for HTML and SVG: & < > " ' escaped.
std::string esc(std::string_view s);
/// `s` cut to at most `max` bytes (never inside a UTF-8 sequence) and "…"
/// added when it was longer.
std::string shorten(const std::string& s, std::size_t max);
/// A coordinate: "12.5".
std::string px(double v);

} // namespace ttm::reports::text
