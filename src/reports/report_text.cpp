#include "reports/report_text.hpp"

#include "domain/time_format.hpp"

#include <charconv>
#include <cstdio>
#include <system_error>

namespace ttm::reports::text {

using std::chrono::milliseconds;

std::string local_datetime(domain::wall_time t, const domain::zone& tz) {
  // "2025-12-14T09:45:32.123-05:00" → "2025-12-14 09:45:32".
  auto iso = domain::format_iso8601(t, tz);
  auto out = iso.substr(0, 19);
  if (out.size() > 10)
    out[10] = ' ';
  return out;
}

std::string friendly_time(domain::wall_time t, const domain::zone& tz) {
  return domain::format_friendly_time(t, tz);
}

std::string friendly_date(domain::wall_time t, const domain::zone& tz) {
  // format_friendly is "<date> <time> <abbreviation>".
  auto full = domain::format_friendly(t, tz);
  auto at = full.rfind(" " + friendly_time(t, tz));
  return at == std::string::npos ? full : full.substr(0, at);
}

std::string friendly_time_zone(domain::wall_time t, const domain::zone& tz) {
  return friendly_time(t, tz) + " " + tz.state_at(t).abbreviation;
}

std::string compact_duration(milliseconds d) {
  auto s = d.count() < 0 ? 0 : d.count() / 1000;
  long long parts[] = {s / 86400, s / 3600 % 24, s / 60 % 60, s % 60};
  const char* units[] = {"d", "h", "m", "s"};
  std::string out;
  for (int k = 0; k < 4; ++k) {
    if (parts[k] == 0)
      continue;
    if (!out.empty())
      out += ' ';
    out += std::to_string(parts[k]) + units[k];
  }
  return out.empty() ? "0s" : out;
}

const char* status_word(const report_run& r) {
  return r.running ? "running" : domain::to_string(r.status);
}

const char* status_symbol(const report_run& r) {
  switch (r.status) {
    case domain::run_status::completed:
      return "\xE2\x9C\x85"; // ✅
    case domain::run_status::skipped:
      return "\xE2\x8F\xAD\xEF\xB8\x8F"; // ⏭️
    case domain::run_status::failed:
      return "\xE2\x9D\x8C"; // ❌
    case domain::run_status::interrupted:
      return "\xE2\x9A\xA0\xEF\xB8\x8F"; // ⚠️
    case domain::run_status::in_progress:
      break;
  }
  return "\xF0\x9F\x94\x84"; // 🔄
}

const std::string& display_name(const report_run& r) {
  return r.task_name && !r.task_name->empty() ? *r.task_name : r.task_id;
}

std::string signed_duration(std::chrono::milliseconds d) {
  if (d.count() == 0)
    return "0s";
  return (d.count() < 0 ? "-" : "+") + compact_duration(d.count() < 0 ? -d : d);
}

std::string run_duration(const report_run& r) {
  auto out = compact_duration(r.duration);
  if (r.pauses > 0)
    out += " (paused " + compact_duration(r.paused) + ")";
  return out;
}

std::string esc(std::string_view s) {
  // Clean stretches are appended whole: a report escapes every label and
  // time, nearly all without a character to replace.
  std::string out;
  out.reserve(s.size() + 16);
  std::size_t from = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char* entity;
    switch (s[i]) {
      case '&':
        entity = "&amp;";
        break;
      case '<':
        entity = "&lt;";
        break;
      case '>':
        entity = "&gt;";
        break;
      case '"':
        entity = "&quot;";
        break;
      case '\'':
        entity = "&#39;";
        break;
      default:
        continue;
    }
    out.append(s.data() + from, i - from);
    out += entity;
    from = i + 1;
  }
  out.append(s.data() + from, s.size() - from);
  return out;
}

std::string shorten(const std::string& s, std::size_t max) {
  if (s.size() <= max)
    return s;
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
    --cut; // not inside a UTF-8 sequence
  return s.substr(0, cut) + "\xE2\x80\xA6"; // …
}

std::string px(double v) {
  // Three per bar of a timeline: to_chars, exact as printf's "%.1f" is
  // (correctly rounded), without its format parsing and locale.
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 1);
  if (res.ec != std::errc{}) {
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
  }
  return {buf, static_cast<std::size_t>(res.ptr - buf)};
}

} // namespace ttm::reports::text
