// The one time grammar (domain/time_input.hpp): ISO 8601, unix:, dates and
// the natural phrases, in a zone and locale picked by the first byte, at a
// `now` picked by the second. Checked beyond "no crash": a time read is
// written back (ISO 8601 in its zone) and read again to the same
// millisecond; a refusal has a code and a message.

#include "fuzz_check.hpp"

#include <date/date.h>

#include "domain/locale_format.hpp"
#include "domain/time_format.hpp"
#include "domain/time_input.hpp"
#include "domain/zones.hpp"

#include <array>
#include <chrono>

namespace {

using namespace ttm;
using namespace std::chrono;

const domain::zone& zone_at(std::size_t i) {
  static const auto zones = [] {
    std::vector<domain::zone> out;
    for (auto name : {"UTC", "Europe/Berlin", "America/New_York",
                      "Australia/Lord_Howe", "Asia/Kolkata", "Pacific/Chatham",
                      "America/Sao_Paulo", "+05:45", "Pacific/Kiritimati"}) {
      auto z = domain::resolve_zone(name, "UTC");
      out.push_back(*z.found);
    }
    return out;
  }();
  return zones[i % zones.size()];
}

const domain::time_words* words_at(std::size_t i) {
  static const auto words = [] {
    std::vector<const domain::time_words*> out{nullptr};
    for (auto tag : {"de-DE", "fr-FR", "ja-JP", "en-GB", "es-419", "ar-EG"}) {
      auto l = domain::resolve_locale(tag);
      out.push_back(&domain::time_words_for(l.found->icu_id));
    }
    return out;
  }();
  return words[i % words.size()];
}

domain::wall_time now_at(std::size_t i) {
  static const std::array<domain::wall_time, 5> nows{
    domain::wall_time{date::sys_days{date::year{2026} / 3 / 29} + minutes{30}},
    domain::wall_time{date::sys_days{date::year{2025} / 12 / 31} + hours{23}},
    domain::wall_time{date::sys_days{date::year{2024} / 2 / 29} + hours{12}},
    domain::wall_time{date::sys_days{date::year{1800} / 1 / 1} + hours{1}},
    domain::wall_time{date::sys_days{date::year{2199} / 12 / 31} + hours{22}}};
  return nows[i % nows.size()];
}

milliseconds since_epoch(domain::wall_time t) {
  return floor<milliseconds>(t.time_since_epoch());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  auto in = fuzz::bytes(data, size);
  auto a = fuzz::take_byte(in);
  auto b = fuzz::take_byte(in);
  domain::time_input_options opts;
  opts.in = &zone_at(a & 0x0F);
  opts.words = words_at(a >> 4);
  opts.now = now_at(b & 0x07);
  opts.week_start = (b >> 3) % 7;
  opts.on_conflict = static_cast<domain::disambiguation>((b >> 6) & 3);

  auto res = domain::parse_time_input(in, opts);
  if (auto* err = std::get_if<domain::time_input_error>(&res)) {
    FUZZ_CHECK(!err->code.empty() && !err->message.empty(), err->message);
    return 0;
  }
  const auto& got = std::get<domain::time_input>(res);
  if (!domain::in_supported_years(since_epoch(got.instant)))
    return 0;
  // Written back and read again: the same instant (to the millisecond).
  auto iso = domain::format_iso8601(got.instant, *opts.in);
  (void)domain::describe(got.instant, *opts.in);
  auto again = domain::parse_time_input(iso, opts);
  auto* back = std::get_if<domain::time_input>(&again);
  FUZZ_CHECK(back != nullptr, std::string{in} + " -> " + iso);
  FUZZ_CHECK(since_epoch(back->instant) == since_epoch(got.instant),
             std::string{in} + " -> " + iso);
  return 0;
}
