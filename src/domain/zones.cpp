#include "domain/zones.hpp"

#include "domain/ascii.hpp"
#include "domain/fuzzy_match.hpp"
#include "domain/tzdata_files.hpp"
#include "domain/windows_zones.hpp"
#include "domain/zone_footer.hpp"

#include <date/tz.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>
#include <unordered_set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ttm::domain {

namespace {

using namespace std::chrono_literals;

// No IANA name is longer than about 32 characters; anything past this is
// refused without a suggestion search, so huge inputs cost nothing.
constexpr std::size_t max_name_length = 64;

// Common abbreviations and the zones they usually stand for. Data, not
// guesses: each abbreviation is ambiguous or not an IANA name, so it is
// refused and these are offered instead.
struct abbreviation_entry {
  const char* abbreviation;
  std::array<const char*, 3> zones; // nullptr-padded
};

constexpr abbreviation_entry abbreviations[] = {
  {"EST", {"America/New_York", "America/Toronto", "America/Panama"}},
  {"EDT", {"America/New_York", "America/Toronto", "America/Detroit"}},
  {"CST", {"America/Chicago", "Asia/Shanghai", "America/Havana"}},
  {"CDT", {"America/Chicago", "America/Winnipeg", "America/Havana"}},
  {"MST", {"America/Denver", "America/Phoenix", "America/Edmonton"}},
  {"MDT", {"America/Denver", "America/Edmonton", "America/Boise"}},
  {"PST", {"America/Los_Angeles", "America/Vancouver", "Asia/Manila"}},
  {"PDT", {"America/Los_Angeles", "America/Vancouver", "America/Tijuana"}},
  {"AKST", {"America/Anchorage", "America/Juneau", nullptr}},
  {"AKDT", {"America/Anchorage", "America/Juneau", nullptr}},
  {"HST", {"Pacific/Honolulu", "America/Adak", nullptr}},
  {"HDT", {"America/Adak", nullptr, nullptr}},
  {"AST", {"America/Halifax", "America/Puerto_Rico", "America/Santo_Domingo"}},
  {"ADT", {"America/Halifax", "Atlantic/Bermuda", nullptr}},
  {"NST", {"America/St_Johns", nullptr, nullptr}},
  {"NDT", {"America/St_Johns", nullptr, nullptr}},
  {"IST", {"Asia/Kolkata", "Europe/Dublin", "Asia/Jerusalem"}},
  {"IDT", {"Asia/Jerusalem", nullptr, nullptr}},
  {"BST", {"Europe/London", nullptr, nullptr}},
  {"CET", {"Europe/Paris", "Europe/Berlin", "Africa/Algiers"}},
  {"CEST", {"Europe/Paris", "Europe/Berlin", "Europe/Madrid"}},
  {"EET", {"Europe/Athens", "Europe/Helsinki", "Africa/Cairo"}},
  {"EEST", {"Europe/Athens", "Europe/Helsinki", "Europe/Kyiv"}},
  {"WET", {"Europe/Lisbon", "Atlantic/Canary", "Atlantic/Faroe"}},
  {"WEST", {"Europe/Lisbon", "Atlantic/Canary", "Atlantic/Madeira"}},
  {"MSK", {"Europe/Moscow", "Europe/Simferopol", nullptr}},
  {"SAST", {"Africa/Johannesburg", nullptr, nullptr}},
  {"CAT", {"Africa/Maputo", "Africa/Harare", nullptr}},
  {"EAT", {"Africa/Nairobi", "Africa/Addis_Ababa", nullptr}},
  {"WAT", {"Africa/Lagos", "Africa/Kinshasa", nullptr}},
  {"PKT", {"Asia/Karachi", nullptr, nullptr}},
  {"WIB", {"Asia/Jakarta", nullptr, nullptr}},
  {"JST", {"Asia/Tokyo", nullptr, nullptr}},
  {"KST", {"Asia/Seoul", "Asia/Pyongyang", nullptr}},
  {"HKT", {"Asia/Hong_Kong", nullptr, nullptr}},
  {"SGT", {"Asia/Singapore", nullptr, nullptr}},
  {"AEST", {"Australia/Sydney", "Australia/Melbourne", "Australia/Brisbane"}},
  {"AEDT", {"Australia/Sydney", "Australia/Melbourne", "Australia/Hobart"}},
  {"ACST", {"Australia/Adelaide", "Australia/Darwin", nullptr}},
  {"ACDT", {"Australia/Adelaide", "Australia/Broken_Hill", nullptr}},
  {"AWST", {"Australia/Perth", nullptr, nullptr}},
  {"NZST", {"Pacific/Auckland", nullptr, nullptr}},
  {"NZDT", {"Pacific/Auckland", nullptr, nullptr}},
};



std::string_view trim(std::string_view s) {
  auto space = [](char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0;
  };
  while (!s.empty() && space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && space(s.back()))
    s.remove_suffix(1);
  return s;
}

std::string_view last_component(std::string_view s) {
  auto slash = s.rfind('/');
  return slash == std::string_view::npos ? s : s.substr(slash + 1);
}

const abbreviation_entry* find_abbreviation(std::string_view s) {
  if (s.size() < 3 || s.size() > 4) // every entry has 3 or 4 letters
    return nullptr;
  for (const auto& e : abbreviations)
    if (ascii_iequals(s, e.abbreviation))
      return &e;
  return nullptr;
}

// In OS mode the database also lists "localtime" (a symlink to /etc/localtime
// inside zoneinfo), which is not an IANA name.
const date::time_zone* locate(std::string_view name) {
  if (name.empty() || name == "localtime")
    return nullptr;
  try {
    const auto* tz = date::locate_zone(std::string(name));
    // Loads the zone's file now: a file that cannot be read fails here, as a
    // refusal, rather than later in state_at. Once per zone and thread: a
    // loaded zone stays loaded, and the lookup ran 21 times per conversion.
    thread_local std::unordered_set<const date::time_zone*> loaded;
    if (loaded.count(tz) == 0) {
      tz->get_info(date::sys_seconds{});
      loaded.insert(tz);
    }
    return tz;
  } catch (const std::exception&) {
    return nullptr;
  }
}

// A file or folder name date/tz leaves out of its database when it walks the
// zoneinfo directory (init_tzdb in its tz.cpp, OS mode), at any depth.
bool skipped_by_tzdb(std::string_view part) {
  if (part.empty() || part[0] == '.' || part.substr(0, 5) == "posix")
    return true;
  for (std::string_view skipped :
       {"Factory", "iso3166.tab", "right", "+VERSION", "version", "zone.tab",
        "zone1970.tab", "tzdata.zi", "leapseconds", "leap-seconds.list"})
    if (part == skipped)
      return true;
  return false;
}

// locate(name) != nullptr without loading the database (its load walks the
// whole zoneinfo directory, about 2 ms): the name is a path below zoneinfo
// that the database's walk would list (no empty, ".", ".." or skipped
// component), to a regular file that starts like a TZif file. locate() still
// reads the whole file when the zone is first used.
bool zone_file_usable(std::string_view name) {
  if (name.empty() || name == "localtime"
      || name.find('\0') != std::string_view::npos)
    return false;
  for (std::size_t from = 0;;) {
    auto slash = name.find('/', from);
    auto part = name.substr(from, slash == std::string_view::npos
                                    ? std::string_view::npos
                                    : slash - from);
    if (skipped_by_tzdb(part))
      return false;
    if (slash == std::string_view::npos)
      break;
    from = slash + 1;
  }
  auto path = zoneinfo_dir();
  path += '/';
  path += name;
  // O_NONBLOCK: a FIFO planted in zoneinfo must not hang the start-up.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return false;
  struct stat sb {};
  char magic[4] = {};
  bool ok = ::fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)
            && ::read(fd, magic, sizeof magic) == sizeof magic
            && std::memcmp(magic, "TZif", sizeof magic) == 0;
  ::close(fd);
  return ok;
}

struct candidate {
  std::string name;
  std::string lower;
  std::string lower_last;
  bool is_link;
};

// The names worth suggesting: every zone the database resolves, minus
// "localtime" and the legacy zones that are refused as abbreviations. Built
// on the first unknown name (it loads the database and reads tzdata.zi).
const std::vector<candidate>& catalog() {
  static const std::vector<candidate> all = [] {
    std::vector<candidate> out;
    try {
      auto links = read_tz_links();
      for (const auto& z : date::get_tzdb().zones) {
        const auto& n = z.name();
        if (n == "localtime" || find_abbreviation(n) != nullptr)
          continue;
        out.push_back({n, ascii_lower(n), ascii_lower(last_component(n)),
                       links.count(n) > 0});
      }
    } catch (const std::exception&) {
      // No database: no suggestions.
    }
    return out;
  }();
  return all;
}

std::vector<std::string> suggest(std::string_view input) {
  auto in = ascii_lower(input);
  auto in_last = std::string(last_component(in));
  bool has_slash = in_last.size() != in.size();
  // (score, is link, name): nearest first, canonical zones before links.
  std::vector<std::tuple<std::size_t, bool, const std::string*>> hits;
  for (const auto& c : catalog()) {
    // Scores are 2 * distance, plus 1 when only the last component matched,
    // so that "utc" ranks "UTC" before "Etc/UTC".
    std::optional<std::size_t> best;
    auto consider = [&](std::optional<std::size_t> d, std::size_t extra) {
      if (d && (!best || 2 * *d + extra < *best))
        best = 2 * *d + extra;
    };
    consider(near(in, c.lower), 0);
    consider(near(in, c.lower_last), 1);
    // "Europe/Tokio" -> "Asia/Tokyo": a close last component under another
    // region counts, one step further away.
    if (has_slash)
      consider(near(in_last, c.lower_last), 3);
    if (best)
      hits.emplace_back(*best, c.is_link, &c.name);
  }
  std::sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a), *std::get<2>(a))
           < std::tie(std::get<0>(b), std::get<1>(b), *std::get<2>(b));
  });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < hits.size() && i < 3; ++i)
    out.push_back(*std::get<2>(hits[i]));
  return out;
}

std::string join_names(const std::vector<std::string>& names,
                       const char* last_sep) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0)
      out += i + 1 == names.size() ? last_sep : ", ";
    out += names[i];
  }
  return out;
}

std::string quoted(std::string_view s) {
  if (s.size() <= max_name_length)
    return "'" + std::string(s) + "'";
  // Cut at a character boundary: half a UTF-8 sequence in a reply would make
  // the whole message invalid UTF-8.
  auto cut = max_name_length;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
    --cut;
  return "'" + std::string(s.substr(0, cut)) + "...'";
}

zone_lookup refuse(std::string message,
                   std::vector<std::string> suggestions = {}) {
  return {std::nullopt, std::move(message), std::move(suggestions)};
}

// "+05:30", "-03", "+0545", "UTC-3", "UTC+05:30", "GMT+2" (prefix in any
// case). Returns nothing when `s` does not look like an offset at all.
std::optional<zone_lookup> parse_offset(std::string_view s) {
  std::string_view body = s;
  if (body.size() > 3 && (ascii_iequals(body.substr(0, 3), "utc")
                          || ascii_iequals(body.substr(0, 3), "gmt")))
    body.remove_prefix(3);
  if (body.empty() || (body[0] != '+' && body[0] != '-'))
    return std::nullopt;
  bool negative = body[0] == '-';
  body.remove_prefix(1);

  auto all_digits = [](std::string_view d) {
    return !d.empty() && std::all_of(d.begin(), d.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
  };
  std::string_view hours = body, minutes;
  if (auto colon = body.find(':'); colon != std::string_view::npos) {
    hours = body.substr(0, colon);
    minutes = body.substr(colon + 1);
    if (minutes.size() != 2)
      hours = {}; // malformed
  } else if (body.size() == 4) {
    hours = body.substr(0, 2);
    minutes = body.substr(2);
  }
  if (hours.empty() || hours.size() > 2 || !all_digits(hours)
      || (!minutes.empty() && !all_digits(minutes)))
    return refuse("Malformed UTC offset " + quoted(s)
                  + "; use a form such as +05:30, -03, +0545 or UTC+2.");

  int h = std::stoi(std::string(hours));
  int m = minutes.empty() ? 0 : std::stoi(std::string(minutes));
  if (h > 14 || m > 59)
    return refuse("UTC offset " + quoted(s)
                  + " is out of range: hours must be 0 to 14 and minutes 0 "
                    "to 59.");
  auto offset = std::chrono::minutes{h * 60 + m};
  return zone_lookup{zone::fixed(negative ? -offset : offset), {}, {}};
}

// resolve_zone without its per-thread cache; never for "local".
zone_lookup resolve_uncached(std::string_view s);

} // namespace

zone zone::iana(const date::time_zone* tz, std::string name) {
  return zone(tz, 0min, std::move(name));
}

zone zone::fixed(std::chrono::minutes offset) {
  return zone(nullptr, offset, "UTC" + format_utc_offset(offset));
}

zone::zone(const date::time_zone* tz, std::chrono::minutes off,
           std::string name)
  : tz_(tz), fixed_offset_(off), name_(std::move(name)) {
}

zone_state zone::state_at(wall_time t) const {
  if (tz_ == nullptr)
    return {fixed_offset_, false, name_};
  try {
    auto secs = date::floor<std::chrono::seconds>(t);
    // A report formats two instants per run, nearly all within one offset
    // run: the thread's last answer serves every instant of its span
    // (get_info answers the same there). Spans end by 2037, where the
    // footer's rule may take over.
    struct last_span {
      const date::time_zone* tz = nullptr;
      date::sys_seconds begin, end;
      zone_state state;
    };
    thread_local last_span last;
    if (last.tz == tz_ && secs >= last.begin && secs < last.end)
      return last.state;
    // After the file's last transition (2037): the file's POSIX rule.
    if (auto f = footer_state_at(tz_, secs))
      return {f->utc_offset, f->is_dst, std::move(f->abbreviation)};
    auto info = tz_->get_info(secs);
    static const date::sys_seconds horizon{
      date::sys_days{date::year{2037} / 1 / 1}};
    // In OS mode `save` is only a flag (its magnitude is not the real amount).
    zone_state st{info.offset, info.save != 0min, info.abbrev};
    last = {tz_, info.begin, std::min(info.end, horizon), st};
    return st;
  } catch (const std::exception&) {
    // Not reached for zones from resolve_zone (their file is loaded there);
    // UTC is the least surprising answer for a zone that cannot be read.
    return {0s, false, "UTC"};
  }
}

local_time zone::local_at(wall_time t) const {
  auto ms = date::floor<std::chrono::milliseconds>(t).time_since_epoch();
  return {ms + state_at(t).utc_offset};
}

local_resolution zone::resolve(local_time t) const {
  using std::chrono::milliseconds;
  local_resolution r;
  if (tz_ == nullptr) {
    r.earlier = r.later = wall_time{t.since_epoch - fixed_offset_};
    return r;
  }
  auto secs = date::floor<std::chrono::seconds>(t.since_epoch);
  auto at = [&](std::chrono::seconds offset) {
    return wall_time{t.since_epoch - offset};
  };
  if (auto f = footer_resolve(tz_, secs)) {
    if (f->kind == footer_resolution::unique) {
      r.earlier = r.later = at(f->offset_before);
      return r;
    }
    r.kind = f->kind == footer_resolution::ambiguous
               ? local_resolution::ambiguous
               : local_resolution::nonexistent;
    // As below: a gap's "earlier" reads the local time with the offset
    // after it; an overlap's first occurrence has the offset before it.
    r.earlier = at(f->kind == footer_resolution::ambiguous ? f->offset_before
                                                           : f->offset_after);
    r.later = at(f->kind == footer_resolution::ambiguous ? f->offset_after
                                                         : f->offset_before);
    r.transition = wall_time{f->transition.time_since_epoch()};
    r.offset_before = f->offset_before;
    r.offset_after = f->offset_after;
    return r;
  }
  auto info = tz_->get_info(date::local_seconds{secs});
  switch (info.result) {
  case date::local_info::unique:
    r.earlier = r.later = at(info.first.offset);
    return r;
  case date::local_info::nonexistent:
    r.kind = local_resolution::nonexistent;
    r.earlier = at(info.second.offset);
    r.later = at(info.first.offset);
    break;
  default: // ambiguous
    r.kind = local_resolution::ambiguous;
    r.earlier = at(info.first.offset);
    r.later = at(info.second.offset);
    break;
  }
  r.transition = wall_time{info.second.begin.time_since_epoch()};
  r.offset_before = info.first.offset;
  r.offset_after = info.second.offset;
  return r;
}

zone_lookup resolve_zone(std::string_view name,
                         std::string_view local_zone_name) {
  // Not trimmed: " UTC" is refused with "UTC" suggested, like any other
  // misspelling, rather than silently accepted.
  auto s = name;
  if (trim(s).empty())
    return refuse("The time zone is empty; use an IANA name such as "
                  "Europe/London, a UTC offset such as +05:30, or \"local\".");
  if (s.size() > max_name_length)
    return refuse("Unknown time zone " + quoted(s) + ".");

  if (ascii_iequals(s, "local")) {
    if (const auto* tz = locate(local_zone_name))
      return {zone::iana(tz, std::string(local_zone_name)), {}, {}};
    return refuse("The server's local time zone " + quoted(local_zone_name)
                  + " is not in the time zone database; use an IANA name.");
  }

  // Names resolved before (per thread: no locks; the tz database never
  // changes while the server runs). A conversion resolves up to 21 names;
  // the checks below cost more than this one ordered lookup.
  thread_local std::map<std::string, zone, std::less<>> resolved;
  if (auto hit = resolved.find(s); hit != resolved.end())
    return {hit->second, {}, {}};
  auto found = resolve_uncached(s);
  if (found.found && resolved.size() < 4096)
    resolved.emplace(std::string(s), *found.found);
  return found;
}

namespace {

zone_lookup resolve_uncached(std::string_view s) {
  if (const auto* e = find_abbreviation(s)) {
    std::vector<std::string> names;
    for (const char* z : e->zones)
      if (z != nullptr)
        names.emplace_back(z);
    auto message = quoted(s)
                   + " is a time zone abbreviation, which is ambiguous; use an "
                     "IANA name such as "
                   + join_names(names, " or ") + ".";
    return refuse(std::move(message), std::move(names));
  }

  if (auto offset = parse_offset(s))
    return std::move(*offset);

  // A Windows name is reported as the IANA zone it means. Only names with
  // a space are looked up, and first: no IANA name has one (so no failed
  // tz lookup), and Windows' others ("UTC", "UTC-02") are IANA names or
  // offsets ("utc" stays refused like "asia/tokyo").
  bool has_space = trim(s).find(' ') != std::string_view::npos;
  if (const auto* w = has_space ? find_windows_zone(s) : nullptr) {
    if (const auto* tz = locate(w->iana_name))
      return {zone::iana(tz, w->iana_name), {}, {}};
    return refuse("The Windows time zone "
                  + quoted(std::string_view(w->windows_name)) + " means "
                  + w->iana_name
                  + ", which the system's time zone database lacks; use "
                    "another IANA name.");
  }

  if (const auto* tz = has_space ? nullptr : locate(s))
    return {zone::iana(tz, std::string(s)), {}, {}};

  // IANA names have no spaces; Windows names do.
  auto suggestions = has_space ? suggest_windows_zones(s) : suggest(s);
  std::string message = "Unknown time zone " + quoted(s) + ".";
  if (!suggestions.empty())
    message += " Did you mean: " + join_names(suggestions, ", ") + "?";
  return refuse(std::move(message), std::move(suggestions));
}

} // namespace

namespace {

// "/usr/share/zoneinfo/Europe/Berlin", "../usr/share/zoneinfo/Asia/Tokyo"
// -> the name below zoneinfo/ when the database knows it.
std::string name_below_zoneinfo(std::string_view path) {
  constexpr std::string_view marker = "zoneinfo/";
  auto at = path.rfind(marker);
  if (at == std::string_view::npos)
    return {};
  auto name = path.substr(at + marker.size());
  for (std::string_view prefix : {"posix/", "right/"})
    if (name.substr(0, prefix.size()) == prefix)
      name.remove_prefix(prefix.size());
  return zone_file_usable(name) ? std::string(name) : std::string();
}

} // namespace

std::string detect_local_zone_name(const char* tz_env,
                                   const std::string& etc_timezone,
                                   const std::string& etc_localtime) {
  if (tz_env != nullptr) {
    std::string_view tz = trim(tz_env);
    if (!tz.empty() && tz[0] == ':')
      tz.remove_prefix(1);
    if (zone_file_usable(tz))
      return std::string(tz);
    // TZ=":/usr/share/zoneinfo/Europe/Paris" names a file.
    if (auto n = name_below_zoneinfo(tz); !n.empty())
      return n;
    // Otherwise a POSIX rule or garbage: fall through to the files.
  }

  std::ifstream file(etc_timezone);
  std::string line;
  if (file && std::getline(file, line)) {
    auto n = trim(line);
    if (zone_file_usable(n))
      return std::string(n);
  }

  std::error_code ec;
  auto target = std::filesystem::read_symlink(etc_localtime, ec);
  if (!ec)
    return name_below_zoneinfo(target.string());
  return {};
}

bool names_iana_zone(std::string_view name) {
  // resolve_zone's order: what it reads as "local", an abbreviation or an
  // offset is not a zone name, even where zoneinfo has a file of that name.
  if (trim(name).empty() || name.size() > max_name_length
      || ascii_iequals(name, "local") || find_abbreviation(name) != nullptr
      || parse_offset(name))
    return false;
  return zone_file_usable(name);
}

std::string tz_database_version() {
  // Debian's date/tz reports "unknown" as db.version in OS mode; tzdata.zi's
  // first line is "# version 2026f". Only that line is read.
  constexpr std::string_view marker = "# version ";
  int fd = ::open((zoneinfo_dir() + "/tzdata.zi").c_str(),
                  O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return "unknown";
  char buf[128];
  auto n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  if (n <= 0)
    return "unknown";
  std::string_view head(buf, static_cast<std::size_t>(n));
  auto eol = head.find('\n');
  if (eol == std::string_view::npos || head.substr(0, marker.size()) != marker)
    return "unknown";
  auto version = trim(head.substr(marker.size(), eol - marker.size()));
  return version.empty() ? std::string{"unknown"} : std::string(version);
}

bool preload_tz_database() noexcept {
  try {
    date::get_tzdb();
    return true;
  } catch (...) {
    return false;
  }
}

std::string format_utc_offset(std::chrono::seconds offset) {
  // By hand, not snprintf: this runs once per zone of every reply.
  auto total = offset.count();
  unsigned long long abs_total = total < 0 ? 0ULL - static_cast<unsigned long long>(total)
                                           : static_cast<unsigned long long>(total);
  std::string out;
  out += total < 0 ? '-' : '+';
  auto two = [&out](unsigned long long v) {
    if (v >= 100)
      out += std::to_string(v / 100);
    out += static_cast<char>('0' + v / 10 % 10);
    out += static_cast<char>('0' + v % 10);
  };
  two(abs_total / 3600);
  out += ':';
  two(abs_total / 60 % 60);
  // Local mean time before ~1900 has offsets with seconds (e.g. -04:56:02);
  // keep them so that the offset matches the local time shown with it.
  if (abs_total % 60 != 0) {
    out += ':';
    two(abs_total % 60);
  }
  return out;
}

} // namespace ttm::domain
