#include "domain/zones.hpp"

#include <catch2/catch.hpp>
#include <date/date.h>
#include <date/tz.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace ttm::domain;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

zone_lookup lookup(std::string_view name) {
  return resolve_zone(name, "America/Chicago");
}

zone must_resolve(std::string_view name) {
  auto r = lookup(name);
  INFO("name: " << name << ", message: " << r.message);
  REQUIRE(r.found.has_value());
  return *r.found;
}

wall_time utc(date::year_month_day d, std::chrono::seconds time_of_day = 0s) {
  return date::sys_days{d} + time_of_day;
}

using names = std::vector<std::string>;

// A scratch directory under /tmp, removed with everything in it.
struct temp_dir {
  fs::path path;
  temp_dir() {
    auto tmpl = (fs::temp_directory_path() / "ttm_zones_XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream(path / name) << content;
    return (path / name).string();
  }
  std::string link(const std::string& name, const std::string& target) const {
    fs::create_symlink(target, path / name);
    return (path / name).string();
  }
  std::string missing() const {
    return (path / "missing").string();
  }
};

} // namespace

TEST_CASE("zones: local resolves to the local IANA name") {
  for (auto name : {"local", "LOCAL", "Local"}) {
    auto z = must_resolve(name);
    CHECK(z.name() == "America/Chicago");
    CHECK_FALSE(z.is_fixed());
  }
  auto r = resolve_zone("local", "Not/AZone");
  CHECK_FALSE(r.found);
  CHECK_FALSE(r.message.empty());
}

TEST_CASE("zones: exact IANA names and links resolve under the name asked") {
  for (auto name : {"UTC", "GMT", "Europe/London", "Asia/Tokyo",
                    "America/New_York", "Australia/Lord_Howe", "Etc/GMT+5"}) {
    auto z = must_resolve(name);
    CHECK(z.name() == name);
    CHECK_FALSE(z.is_fixed());
  }
  auto eastern = must_resolve("US/Eastern");
  CHECK(eastern.name() == "US/Eastern");
  auto st = eastern.state_at(utc(date::year{2025} / 1 / 15));
  CHECK(st.utc_offset == -5h);
  CHECK(st.abbreviation == "EST");
  // Surrounding whitespace is refused, with the trimmed name suggested.
  auto padded = resolve_zone("  Europe/Paris\n", "UTC");
  CHECK_FALSE(padded.found.has_value());
  REQUIRE_FALSE(padded.suggestions.empty());
  CHECK(padded.suggestions.front() == "Europe/Paris");
}

TEST_CASE("zones: Etc/GMT+5 keeps the database's inverted sign") {
  auto st = must_resolve("Etc/GMT+5").state_at(utc(date::year{2025} / 6 / 1));
  CHECK(st.utc_offset == -5h);
}

TEST_CASE("zones: fixed offsets in every accepted form") {
  struct sample {
    const char* input;
    const char* name;
    std::chrono::minutes offset;
  };
  for (auto [input, name, offset] : {
         sample{"+05:30", "UTC+05:30", 5h + 30min},
         sample{"-03", "UTC-03:00", -3h},
         sample{"+0545", "UTC+05:45", 5h + 45min},
         sample{"UTC-3", "UTC-03:00", -3h},
         sample{"UTC+05:30", "UTC+05:30", 5h + 30min},
         sample{"GMT+2", "UTC+02:00", 2h},
         sample{"utc+2", "UTC+02:00", 2h},
         sample{"gmt-10:00", "UTC-10:00", -10h},
         sample{"+5", "UTC+05:00", 5h},
         sample{"+14:00", "UTC+14:00", 14h},
         sample{"-00:00", "UTC+00:00", 0min},
         sample{"+00", "UTC+00:00", 0min},
       }) {
    INFO(input);
    auto z = must_resolve(input);
    CHECK(z.is_fixed());
    CHECK(z.name() == name);
    auto st = z.state_at(utc(date::year{2025} / 7 / 1));
    CHECK(st.utc_offset == offset);
    CHECK_FALSE(st.is_dst);
    CHECK(st.abbreviation == name);
  }
}

TEST_CASE("zones: zone::fixed names its offset") {
  CHECK(zone::fixed(0min).name() == "UTC+00:00");
  CHECK(zone::fixed(-(9h + 30min)).name() == "UTC-09:30");
  CHECK(zone::fixed(5h + 45min).name() == "UTC+05:45");
}

TEST_CASE("zones: out-of-range and malformed offsets are refused") {
  for (auto input : {"+15:00", "+05:60", "-15", "UTC+99"}) {
    auto r = lookup(input);
    INFO(input << ": " << r.message);
    CHECK_FALSE(r.found);
    CHECK(r.message.find("out of range") != std::string::npos);
    CHECK(r.message.find(input) != std::string::npos);
  }
  for (auto input : {"+053", "+5:3", "-", "+ab:cd", "UTC+"}) {
    auto r = lookup(input);
    INFO(input << ": " << r.message);
    CHECK_FALSE(r.found);
    CHECK_FALSE(r.message.empty());
  }
}

TEST_CASE("zones: abbreviations are refused with the zones they stand for") {
  auto est = lookup("EST");
  CHECK_FALSE(est.found);
  CHECK(est.message
        == "'EST' is a time zone abbreviation, which is ambiguous; use an "
           "IANA name such as America/New_York, America/Toronto or "
           "America/Panama.");
  CHECK(est.suggestions
        == names{"America/New_York", "America/Toronto", "America/Panama"});

  auto ist = lookup("ist");
  CHECK_FALSE(ist.found);
  CHECK(ist.suggestions
        == names{"Asia/Kolkata", "Europe/Dublin", "Asia/Jerusalem"});
  CHECK(ist.message.rfind("'ist' is a time zone abbreviation", 0) == 0);

  auto pst = lookup("PST");
  CHECK_FALSE(pst.found);
  CHECK(pst.suggestions.front() == "America/Los_Angeles");

  auto jst = lookup("JST");
  CHECK(jst.suggestions == names{"Asia/Tokyo"});
  CHECK(jst.message.find("such as Asia/Tokyo.") != std::string::npos);
}

TEST_CASE("zones: abbreviations win over the database's legacy zones") {
  // EST, MST, HST, CET, EET and WET exist as zones in tzdata.
  for (auto input : {"EST", "MST", "HST", "CET", "EET", "WET", "cet"}) {
    auto r = lookup(input);
    INFO(input);
    CHECK_FALSE(r.found);
    CHECK_FALSE(r.suggestions.empty());
    CHECK(r.suggestions.size() <= 3);
  }
}

TEST_CASE("zones: every abbreviation suggests zones that resolve") {
  for (auto abbr :
       {"EST", "EDT", "CST", "CDT", "MST", "MDT", "PST", "PDT", "AKST", "AKDT",
        "HST", "HDT", "AST", "ADT", "NST", "NDT", "IST", "IDT", "BST", "CET",
        "CEST", "EET", "EEST", "WET", "WEST", "MSK", "SAST", "CAT", "EAT",
        "WAT", "PKT", "WIB", "JST", "KST", "HKT", "SGT", "AEST", "AEDT", "ACST",
        "ACDT", "AWST", "NZST", "NZDT"}) {
    auto r = lookup(abbr);
    INFO(abbr);
    CHECK_FALSE(r.found);
    REQUIRE_FALSE(r.suggestions.empty());
    CHECK(r.suggestions.size() <= 3);
    for (const auto& s : r.suggestions) {
      INFO(s);
      CHECK(lookup(s).found.has_value());
    }
  }
}

TEST_CASE("zones: unknown names get the nearest valid names") {
  auto ny = lookup("America/NewYork");
  CHECK_FALSE(ny.found);
  REQUIRE_FALSE(ny.suggestions.empty());
  CHECK(ny.suggestions.front() == "America/New_York");
  CHECK(ny.message.rfind("Unknown time zone 'America/NewYork'. Did you mean: "
                         "America/New_York",
                         0)
        == 0);
  CHECK(ny.message.back() == '?');

  auto london = lookup("Europe/Londn");
  REQUIRE_FALSE(london.suggestions.empty());
  CHECK(london.suggestions.front() == "Europe/London");

  auto tokyo = lookup("tokyo");
  REQUIRE_FALSE(tokyo.suggestions.empty());
  CHECK(tokyo.suggestions.front() == "Asia/Tokyo");

  // The database is case-sensitive, so a lower-case name is refused.
  auto lower = lookup("asia/tokyo");
  CHECK_FALSE(lower.found);
  REQUIRE_FALSE(lower.suggestions.empty());
  CHECK(lower.suggestions.front() == "Asia/Tokyo");

  auto gmt = lookup("utc");
  CHECK_FALSE(gmt.found);
  REQUIRE_FALSE(gmt.suggestions.empty());
  CHECK(gmt.suggestions.front() == "UTC");

  for (const auto& r : {ny, london, tokyo, lower, gmt})
    CHECK(r.suggestions.size() <= 3);
}

TEST_CASE("zones: suggestions never include refused or odd names") {
  for (auto input : {"ESTT", "localtim", "CETT", "posix/Europe/London",
                     "right/UTC", "EST5"}) {
    auto r = lookup(input);
    INFO(input << ": " << r.message);
    CHECK_FALSE(r.found);
    for (const auto& s : r.suggestions) {
      INFO(s);
      CHECK(lookup(s).found.has_value());
      CHECK(s.rfind("posix/", 0) != 0);
      CHECK(s.rfind("right/", 0) != 0);
    }
  }
  // "localtime" is a file in zoneinfo, not an IANA name.
  CHECK_FALSE(lookup("localtime").found);
}

TEST_CASE("zones: nonsense gets few or no suggestions") {
  auto r = lookup("xyzzy-not-a-zone");
  CHECK_FALSE(r.found);
  CHECK(r.suggestions.empty());
  CHECK(r.message == "Unknown time zone 'xyzzy-not-a-zone'.");
}

TEST_CASE("zones: an empty name is refused") {
  for (auto input : {"", "   "}) {
    auto r = lookup(input);
    CHECK_FALSE(r.found);
    CHECK(r.suggestions.empty());
    CHECK(r.message.find("empty") != std::string::npos);
  }
}

TEST_CASE("zones: a 10,000-character name is refused quickly") {
  std::string huge(10'000, 'x');
  huge.replace(0, 12, "Europe/Londn");
  auto start = std::chrono::steady_clock::now();
  auto r = lookup(huge);
  auto took = std::chrono::steady_clock::now() - start;
  CHECK_FALSE(r.found);
  CHECK(r.suggestions.empty());
  CHECK(r.message.size() < 200);
  CHECK(took < 50ms);
}

TEST_CASE("zones: state_at reports offset, DST flag and abbreviation") {
  auto ny = must_resolve("America/New_York");
  auto winter = ny.state_at(utc(date::year{2025} / 1 / 15));
  CHECK(winter.utc_offset == -5h);
  CHECK_FALSE(winter.is_dst);
  CHECK(winter.abbreviation == "EST");
  auto summer = ny.state_at(utc(date::year{2025} / 7 / 15));
  CHECK(summer.utc_offset == -4h);
  CHECK(summer.is_dst);
  CHECK(summer.abbreviation == "EDT");

  auto kathmandu = must_resolve("Asia/Kathmandu").state_at(
    utc(date::year{2025} / 12 / 14));
  CHECK(kathmandu.utc_offset == 5h + 45min);
  CHECK(kathmandu.abbreviation == "+0545");
}

TEST_CASE("zones: detect_local_zone_name prefers a valid TZ") {
  temp_dir dir;
  auto tzfile = dir.write("timezone", "Asia/Tokyo\n");
  auto link = dir.link("localtime", "/usr/share/zoneinfo/Europe/Berlin");
  CHECK(detect_local_zone_name("Europe/Paris", tzfile, link) == "Europe/Paris");
  CHECK(detect_local_zone_name(":America/New_York", tzfile, link)
        == "America/New_York");
  CHECK(detect_local_zone_name(":/usr/share/zoneinfo/Asia/Kolkata", tzfile,
                               link)
        == "Asia/Kolkata");
}

TEST_CASE("zones: detect_local_zone_name falls through a bad TZ") {
  temp_dir dir;
  auto tzfile = dir.write("timezone", "  Asia/Tokyo  \nignored\n");
  auto link = dir.link("localtime", "/usr/share/zoneinfo/Europe/Berlin");
  for (auto bad : {"EST5EDT,M3.2.0,M11.1.0", "garbage", "", ":",
                   "localtime"}) {
    INFO(bad);
    CHECK(detect_local_zone_name(bad, tzfile, link) == "Asia/Tokyo");
  }
  CHECK(detect_local_zone_name(nullptr, tzfile, link) == "Asia/Tokyo");
}

TEST_CASE("zones: detect_local_zone_name reads the /etc/localtime link") {
  temp_dir dir;
  auto bad_tzfile = dir.write("timezone", "Not/AZone\n");
  auto absolute = dir.link("abs", "/usr/share/zoneinfo/Europe/Berlin");
  auto relative = dir.link("rel", "../usr/share/zoneinfo/Asia/Tokyo");
  auto posix = dir.link("posix", "/usr/share/zoneinfo/posix/Europe/Rome");
  CHECK(detect_local_zone_name(nullptr, dir.missing(), absolute)
        == "Europe/Berlin");
  CHECK(detect_local_zone_name(nullptr, bad_tzfile, absolute)
        == "Europe/Berlin");
  CHECK(detect_local_zone_name("garbage", dir.missing(), relative)
        == "Asia/Tokyo");
  CHECK(detect_local_zone_name(nullptr, dir.missing(), posix) == "Europe/Rome");
}

TEST_CASE("zones: detect_local_zone_name returns empty when nothing resolves") {
  temp_dir dir;
  auto empty_file = dir.write("timezone", "");
  auto regular = dir.write("localtime", "TZif not a link");
  auto elsewhere = dir.link("other", "/opt/zones/Europe/Berlin");
  auto unknown = dir.link("unknown", "/usr/share/zoneinfo/Not/AZone");
  CHECK(detect_local_zone_name(nullptr, dir.missing(), dir.missing()).empty());
  CHECK(detect_local_zone_name("garbage", empty_file, regular).empty());
  CHECK(detect_local_zone_name(nullptr, empty_file, elsewhere).empty());
  CHECK(detect_local_zone_name(nullptr, empty_file, unknown).empty());
}

TEST_CASE("zones: tz_database_version reads tzdata.zi's first line") {
  auto version = tz_database_version();
  CHECK_FALSE(version.empty());
  std::ifstream zi("/usr/share/zoneinfo/tzdata.zi");
  std::string first;
  if (zi && std::getline(zi, first) && first.rfind("# version ", 0) == 0)
    CHECK(version == first.substr(10));
  else
    CHECK(version == "unknown");
  CHECK(preload_tz_database());
}

TEST_CASE("zones: names_iana_zone agrees with resolve_zone on every zone") {
  // The cheap start-up check (a file test) against the database's own walk:
  // every name the database lists, and near misses.
  REQUIRE(preload_tz_database());
  std::size_t checked = 0;
  for (const auto& z : date::get_tzdb().zones) {
    const auto& n = z.name();
    INFO(n);
    auto r = lookup(n);
    bool iana = r.found && !r.found->is_fixed();
    CHECK(names_iana_zone(n) == iana);
    ++checked;
  }
  CHECK(checked > 300);
  for (auto name : {"Europe/Berlin", "US/Eastern", "UTC", "Etc/GMT+5",
                    "America/Argentina/Buenos_Aires"})
    CHECK(names_iana_zone(name));
  // "local" resolves (to the local zone) but is not a zone name.
  CHECK_FALSE(names_iana_zone("local"));
  CHECK_FALSE(names_iana_zone("LOCAL"));
  for (auto name :
       {"", " ", "EST", "cet", "+05:30", "UTC+2", "GMT+0",
        "localtime", "Europe", "Europe/", "/Europe/Berlin", "Europe//Berlin",
        "Europe/./Berlin", "Europe/../Europe/Berlin", "./UTC", "europe/berlin",
        "Not/AZone", "posix/Europe/Berlin", "right/UTC", "posixrules",
        "Factory", "tzdata.zi", "zone.tab", "zone1970.tab", "iso3166.tab",
        "leapseconds", "leap-seconds.list", "+VERSION", "version",
        " Europe/Berlin", "Europe/Berlin ", "Europe/Berlin\n"}) {
    INFO("'" << name << "'");
    CHECK_FALSE(names_iana_zone(name));
    auto r = lookup(name);
    CHECK_FALSE((r.found && !r.found->is_fixed()));
  }
  using namespace std::string_literals;
  CHECK_FALSE(names_iana_zone("UTC\0junk"s));
  CHECK_FALSE(names_iana_zone(std::string(100, 'A')));
}
