// After 2037 the zone files list no transitions; their POSIX TZ footer
// rules on. The zone engine must agree with glibc (which applies the
// footer) at any date: offsets, abbreviations and DST flags 2037-2100 for
// every zone, and the gap/overlap outcome around every offset change of
// 2040-2042, found by asking glibc where the offset changes.

#include "domain/posix_tz.hpp"
#include "domain/zones.hpp"

#include "tz_env_guard.hpp"

#include <catch2/catch.hpp>
#include <date/date.h>
#include <date/tz.h>

#include <cstdlib>
#include <ctime>
#include <iostream>
#include <optional>
#include <string>

using namespace ttm::domain;
using namespace std::chrono_literals;
using std::chrono::seconds;

namespace {

wall_time at(date::sys_seconds t) {
  return wall_time{t.time_since_epoch()};
}

long glibc_offset(date::sys_seconds t) {
  std::time_t tt = t.time_since_epoch().count();
  std::tm tm{};
  ::localtime_r(&tt, &tm);
  return tm.tm_gmtoff;
}

} // namespace

TEST_CASE("posix_tz: footers parse and place their changes",
          "[posix_tz]") {
  auto ny = parse_posix_tz("EST5EDT,M3.2.0,M11.1.0");
  REQUIRE(ny);
  CHECK(ny->standard.utc_offset == -5h);
  CHECK(ny->daylight.utc_offset == -4h);
  CHECK(ny->daylight.abbreviation == "EDT");
  auto [start, end] = posix_changes(*ny, 2040);
  // Second Sunday of March 2040 is the 11th, 02:00 EST; first Sunday of
  // November the 4th, 02:00 EDT.
  CHECK(start == date::sys_days{date::year{2040} / 3 / 11} + 7h);
  CHECK(end == date::sys_days{date::year{2040} / 11 / 4} + 6h);
  // Quoted names, minutes, a negative DST (Dublin: winter is the rule's
  // "daylight" part), Julian days and times past 24 hours.
  auto kathmandu = parse_posix_tz("<+0545>-5:45");
  CHECK_FALSE(kathmandu); // no daylight rule: date/tz's answer stands
  auto dublin = parse_posix_tz("IST-1GMT0,M10.5.0,M3.5.0/1");
  REQUIRE(dublin);
  CHECK(dublin->standard.utc_offset == 1h);
  CHECK(dublin->daylight.utc_offset == 0s);
  auto all_year = parse_posix_tz("EST5EDT,0/0,J365/25");
  REQUIRE(all_year);
  auto mid = date::sys_days{date::year{2041} / 6 / 1};
  CHECK(&posix_part_at(*all_year, mid) == &all_year->daylight);
  auto jerusalem = parse_posix_tz("IST-2IDT,M3.4.4/26,M10.5.0");
  REQUIRE(jerusalem);
  CHECK(jerusalem->start.time == 26h);
  for (const char* bad : {"", "E5", "EST", "EST5EDT,M13.1.0,M11.1.0",
                          "EST5EDT,M3.2.0", "EST5EDT,M3.2.0,M11.1.0x",
                          "EST5EDT,J0,J365", "<AB>5"}) {
    INFO(bad);
    CHECK_FALSE(parse_posix_tz(bad));
  }
}

TEST_CASE("tz sweep: every zone agrees with glibc 2037-2100",
          "[tz_sweep]") {
  ttm::test::tz_env_guard guard;
  const auto& db = date::get_tzdb();
  const date::sys_seconds first{date::sys_days{date::year{2037} / 6 / 1}};
  const date::sys_seconds last{date::sys_days{date::year{2100} / 12 / 31}};
  constexpr int samples = 60;
  const auto step = (last - first) / samples;
  std::uint64_t lcg = 0x9E3779B97F4A7C15ULL;
  std::size_t zones = 0, instants = 0;
  for (const auto& tz : db.zones) {
    std::string name(tz.name());
    if (name == "localtime")
      continue;
    ::setenv("TZ", name.c_str(), 1);
    ::tzset();
    auto z = zone::iana(&tz, name);
    ++zones;
    for (int k = 0; k < samples; ++k) {
      lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
      date::sys_seconds t = first + step * k
                            + seconds{static_cast<long long>(
                              (lcg >> 11) % static_cast<std::uint64_t>(
                                              step.count()))};
      std::time_t tt = t.time_since_epoch().count();
      std::tm tm{};
      REQUIRE(::localtime_r(&tt, &tm) != nullptr);
      auto state = z.state_at(at(t));
      INFO("zone " << name << " at " << date::format("%FT%TZ", t));
      CHECK(state.utc_offset.count() == tm.tm_gmtoff);
      CHECK(state.abbreviation == std::string(tm.tm_zone));
      CHECK(state.is_dst == (tm.tm_isdst > 0));
      ++instants;
    }
  }
  std::cout << "tz sweep 2037-2100: " << zones << " zones, " << instants
            << " instants compared with glibc\n";
  CHECK(zones > 300);
}

TEST_CASE("tz sweep: offset changes 2040-2042 make local times unique, "
          "nonexistent or ambiguous as glibc's offsets say",
          "[tz_sweep]") {
  ttm::test::tz_env_guard guard;
  const auto& db = date::get_tzdb();
  const date::sys_seconds from{date::sys_days{date::year{2040} / 1 / 1}};
  const date::sys_seconds until{date::sys_days{date::year{2043} / 1 / 1}};
  std::size_t changes = 0, zones_with_changes = 0;
  for (const auto& tz : db.zones) {
    std::string name(tz.name());
    if (name == "localtime")
      continue;
    ::setenv("TZ", name.c_str(), 1);
    ::tzset();
    auto z = zone::iana(&tz, name);
    bool any = false;
    // Day by day, then bisect to the second where glibc's offset changes.
    auto prev = glibc_offset(from);
    for (auto day = from; day < until; day += 24h) {
      auto next_day = day + 24h;
      auto off = glibc_offset(next_day);
      if (off == prev)
        continue;
      auto lo = day, hi = next_day; // offset(lo) == prev, offset(hi) == off
      while (hi - lo > 1s) {
        auto mid = lo + (hi - lo) / 2;
        (glibc_offset(mid) == prev ? lo : hi) = mid;
      }
      auto T = hi;
      seconds o1{prev}, o2{off};
      INFO("zone " << name << " change at " << date::format("%FT%TZ", T)
                   << " from " << o1.count() << " s to " << o2.count()
                   << " s");
      CHECK(z.state_at(at(T - 1s)).utc_offset == o1);
      CHECK(z.state_at(at(T)).utc_offset == o2);
      auto l1 = local_time{T.time_since_epoch() + o1};
      auto l2 = local_time{T.time_since_epoch() + o2};
      auto mid = local_time{(l1.since_epoch + l2.since_epoch) / 2};
      auto r = z.resolve(mid);
      CHECK(r.kind == (o2 > o1 ? local_resolution::nonexistent
                               : local_resolution::ambiguous));
      CHECK(r.transition == at(T));
      CHECK(r.offset_before == o1);
      CHECK(r.offset_after == o2);
      // One hour (or more) off the change, each side: one instant.
      auto before = z.resolve(local_time{l1.since_epoch - 3h});
      CHECK(before.kind == local_resolution::unique);
      CHECK(before.earlier == wall_time{l1.since_epoch - 3h - o1});
      auto after = z.resolve(local_time{l2.since_epoch + 3h});
      CHECK(after.kind == local_resolution::unique);
      CHECK(after.earlier == wall_time{l2.since_epoch + 3h - o2});
      ++changes;
      any = true;
      prev = off;
    }
    zones_with_changes += any ? 1 : 0;
  }
  std::cout << "tz sweep 2040-2042: " << zones_with_changes << " zones, "
            << changes << " offset changes checked\n";
  CHECK(changes > 200);
}
