// Zone and locale resolution and what they suggest (domain/zones.hpp,
// zone_completion.hpp, windows_zones.hpp, locale_format.hpp). Checked beyond
// "no crash": whatever the server offers (a refusal's suggestions, a
// completion) is itself accepted, and a refusal says why.

#include "fuzz_check.hpp"

#include <date/date.h>

#include "domain/locale_format.hpp"
#include "domain/time_format.hpp"
#include "domain/time_words.hpp"
#include "domain/windows_zones.hpp"
#include "domain/zone_completion.hpp"
#include "domain/zones.hpp"

#include <chrono>

namespace {

using namespace ttm;

const domain::wall_time now{
  date::sys_days{date::year{2026} / 10 / 25} + std::chrono::minutes{30}};

bool accepted_zone(const std::string& name) {
  return domain::resolve_zone(name, "Europe/Berlin").found.has_value();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  auto in = fuzz::bytes(data, size);
  auto mode = fuzz::take_byte(in);
  switch (mode % 4) {
    case 0: {
      auto z = domain::resolve_zone(in, "Europe/Berlin");
      if (z.found) {
        auto d = domain::describe(now, *z.found);
        FUZZ_CHECK(!d.iso8601.empty(), std::string{in});
      } else {
        FUZZ_CHECK(!z.message.empty(), std::string{in});
        FUZZ_CHECK(z.suggestions.size() <= 3, z.message);
        for (const auto& s : z.suggestions)
          FUZZ_CHECK(accepted_zone(s), std::string{in} + " suggests " + s);
      }
      break;
    }
    case 1: {
      auto c = domain::complete_zone_names(in, 5);
      FUZZ_CHECK(c.values.size() <= 5 && c.total >= c.values.size(),
                 std::string{in});
      for (const auto& v : c.values)
        FUZZ_CHECK(accepted_zone(v), std::string{in} + " completes " + v);
      break;
    }
    case 2: {
      auto l = domain::resolve_locale(in);
      if (l.found) {
        auto z = domain::resolve_zone("America/New_York", "UTC");
        auto d = domain::describe(now, *z.found);
        domain::localize_friendly(d, now, *l.found);
        FUZZ_CHECK(!d.friendly.empty(), std::string{in});
        (void)domain::time_words_for(l.found->icu_id);
      } else {
        FUZZ_CHECK(!l.message.empty(), std::string{in});
        for (const auto& s : l.suggestions)
          FUZZ_CHECK(domain::resolve_locale(s).found.has_value(),
                     std::string{in} + " suggests " + s);
      }
      break;
    }
    case 3: {
      if (const auto* w = domain::find_windows_zone(in))
        FUZZ_CHECK(accepted_zone(w->iana_name), w->iana_name);
      for (const auto& s : domain::suggest_windows_zones(in))
        FUZZ_CHECK(domain::find_windows_zone(s) != nullptr,
                   std::string{in} + " suggests " + s);
      (void)domain::lower_utf8(in);
      break;
    }
  }
  return 0;
}
