// Duration parsing: ISO 8601 durations (domain/calendar_math.hpp, the
// chronometric tools' `duration`) and their canonical spelling. Checked
// beyond "no crash": a duration read is written canonically, and that
// spelling reads back to the same duration and the same spelling. (The
// command line's durations, "90s", "4h", are in the config target.)

#include "fuzz_check.hpp"

#include <date/date.h>

#include "domain/calendar_math.hpp"
#include "domain/zones.hpp"

#include <chrono>

namespace {

using namespace ttm;

const domain::zone& berlin() {
  static const auto z = *domain::resolve_zone("Europe/Berlin", "UTC").found;
  return z;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  auto in = fuzz::bytes(data, size);
  auto res = domain::parse_iso_duration(in);
  if (auto* why = std::get_if<std::string>(&res)) {
    FUZZ_CHECK(!why->empty(), std::string{in});
    return 0;
  }
  const auto& d = std::get<domain::iso_duration>(res);
  (void)d.exact_part();
  auto text = domain::format_iso_duration(d);
  auto again = domain::parse_iso_duration(text);
  auto* back = std::get_if<domain::iso_duration>(&again);
  FUZZ_CHECK(back != nullptr, std::string{in} + " -> " + text);
  FUZZ_CHECK(domain::format_iso_duration(*back) == text,
             std::string{in} + " -> " + text);
  // Added to a time in a zone with a spring gap: an exact duration (no
  // calendar part) moves the instant by exactly its length.
  using namespace std::chrono;
  domain::wall_time start{date::sys_days{date::year{2026} / 3 / 28}
                          + hours{12}};
  for (bool subtract : {false, true}) {
    auto sum = domain::add_duration(start, berlin(), d, subtract,
                                    domain::disambiguation::compatible, text,
                                    "disambiguation");
    auto* t = std::get_if<domain::time_input>(&sum);
    if (t == nullptr) {
      FUZZ_CHECK(!std::get<domain::time_input_error>(sum).message.empty(),
                 text);
      continue;
    }
    (void)domain::format_calendar_duration(
      domain::difference(start, t->instant, berlin()));
    if (!d.has_calendar_part()) {
      auto moved = floor<milliseconds>(t->instant - start);
      auto want = (d.negative != subtract) ? -d.exact_part() : d.exact_part();
      FUZZ_CHECK(moved == want, text);
    }
  }
  return 0;
}
