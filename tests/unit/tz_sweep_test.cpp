// Issue 18 item 7: the zone engine (date/tz over the system database) agrees
// with glibc — what `TZ=zone date` prints — for every zone at instants
// sampled 1970-2037, and every offset change 2020-2030 of every zone yields
// the right outcome for the local times on both sides of it.

#include "domain/time_format.hpp"
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

zone iana(const date::time_zone& tz) {
  return zone::iana(&tz, std::string(tz.name()));
}

wall_time at(date::sys_seconds t) {
  return wall_time{t.time_since_epoch()};
}

local_time local_at_seconds(date::sys_seconds t, seconds offset) {
  return {t.time_since_epoch() + offset};
}

} // namespace

TEST_CASE("tz sweep: every zone's offset, abbreviation and DST flag equal "
          "glibc's at 40 instants 1970-2037 (and describe() formats them as "
          "the separate formatters do)",
          "[tz_sweep]") {
  ttm::test::tz_env_guard guard;
  const auto& db = date::get_tzdb();
  const auto first = date::sys_days{date::year{1970} / 1 / 1};
  const auto last = date::sys_days{date::year{2037} / 12 / 31};
  constexpr int samples = 40;
  const auto step = (last - first) / samples;
  std::size_t zones = 0, instants = 0;
  std::uint64_t lcg = 0x2545F4914F6CDD1DULL;
  for (const auto& tz : db.zones) {
    std::string name(tz.name());
    if (name == "localtime")
      continue;
    ::setenv("TZ", name.c_str(), 1);
    ::tzset();
    auto z = iana(tz);
    ++zones;
    for (int k = 0; k < samples; ++k) {
      // A deterministic jitter within the step, so that instants fall at
      // every time of day and near transitions too.
      lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
      auto jitter = seconds{static_cast<long long>(
        (lcg >> 11) % static_cast<std::uint64_t>(
                        std::chrono::duration_cast<seconds>(step).count()))};
      date::sys_seconds t = first + step * k + jitter;
      std::time_t tt = t.time_since_epoch().count();
      std::tm tm{};
      REQUIRE(::localtime_r(&tt, &tm) != nullptr);
      auto state = z.state_at(at(t));
      INFO("zone " << name << " at " << date::format("%FT%TZ", t));
      CHECK(state.utc_offset.count() == tm.tm_gmtoff);
      CHECK(state.abbreviation == std::string(tm.tm_zone));
      CHECK(state.is_dst == (tm.tm_isdst > 0));
      // time_convert's one-look formatter says what the separate ones say.
      auto d = describe(at(t), z);
      CHECK(d.iso8601 == format_iso8601(at(t), z));
      CHECK(d.friendly == format_friendly(at(t), z));
      CHECK(std::string(d.day_of_week) == day_of_week(at(t), z));
      CHECK(d.local_day
            == (tt + tm.tm_gmtoff - (tt + tm.tm_gmtoff < 0 ? 86'399 : 0))
                 / 86'400);
      ++instants;
    }
  }
  std::cout << "tz sweep: " << zones << " zones, " << instants
            << " instants compared with glibc\n";
  CHECK(zones > 300);
}

TEST_CASE("tz sweep: every offset change 2020-2030 of every zone makes the "
          "local times around it unique, nonexistent or ambiguous as it should",
          "[tz_sweep]") {
  const auto& db = date::get_tzdb();
  const date::sys_seconds from{date::sys_days{date::year{2020} / 1 / 1}};
  const date::sys_seconds until{date::sys_days{date::year{2031} / 1 / 1}};
  std::size_t zones = 0, gaps = 0, overlaps = 0, checks = 0;
  auto expect = [&](const zone& z, local_time l, local_resolution::kind_t kind,
                    std::optional<date::sys_seconds> instant) {
    auto r = z.resolve(l);
    INFO("zone " << z.name() << " local "
                 << date::format("%FT%T", date::local_seconds{
                                            date::floor<seconds>(l.since_epoch)}));
    CHECK(r.kind == kind);
    if (instant)
      CHECK(r.earlier == at(*instant));
    ++checks;
    return r;
  };
  for (const auto& tz : db.zones) {
    if (tz.name() == "localtime")
      continue;
    auto z = iana(tz);
    ++zones;
    auto t = from;
    for (;;) {
      auto before = tz.get_info(t);
      if (before.end >= until)
        break;
      auto T = before.end;
      auto after = tz.get_info(T);
      t = T;
      auto o1 = before.offset, o2 = after.offset;
      if (o1 == o2)
        continue; // an abbreviation or DST-flag change only
      auto l1 = local_at_seconds(T, o1); // the wall clock reaches this...
      auto l2 = local_at_seconds(T, o2); // ...and then shows this
      auto minus_1s = [](local_time l) {
        return local_time{l.since_epoch - 1s};
      };
      INFO("transition at " << date::format("%FT%TZ", T) << " from "
                            << o1.count() << " s to " << o2.count() << " s");
      if (o2 > o1) {
        ++gaps;
        expect(z, minus_1s(l1), local_resolution::unique, T - 1s);
        for (auto l : {l1, local_time{(l1.since_epoch + l2.since_epoch) / 2},
                       minus_1s(l2)}) {
          auto r = expect(z, l, local_resolution::nonexistent, std::nullopt);
          CHECK(r.transition == at(T));
          CHECK(r.offset_before == o1);
          CHECK(r.offset_after == o2);
          // Temporal: earlier = read with the later offset, and vice versa.
          CHECK(r.earlier == wall_time{l.since_epoch - o2});
          CHECK(r.later == wall_time{l.since_epoch - o1});
          CHECK(r.earlier < at(T));
          CHECK(r.later >= at(T));
        }
        expect(z, l2, local_resolution::unique, T);
      } else {
        ++overlaps;
        expect(z, minus_1s(l2), local_resolution::unique,
               T - (o1 - o2) - 1s);
        for (auto l : {l2, minus_1s(l1)}) {
          auto r = expect(z, l, local_resolution::ambiguous, std::nullopt);
          CHECK(r.earlier == wall_time{l.since_epoch - o1});
          CHECK(r.later == wall_time{l.since_epoch - o2});
          CHECK(r.earlier < at(T));
          CHECK(r.later >= at(T));
        }
        expect(z, l1, local_resolution::unique, T + (o1 - o2));
      }
    }
  }
  std::cout << "tz sweep: " << zones << " zones, " << gaps + overlaps
            << " offset changes 2020-2030 (" << gaps << " gaps, " << overlaps
            << " overlaps), " << checks << " local times resolved\n";
  CHECK(gaps > 100);
  CHECK(overlaps > 100);
}
