// The journal codec's decoder (src/journal/codec*, replay): what a damaged
// journal can hand back. Each input line is one stored event of a session:
// its first byte the event kind, the second its task, boot and clock skew,
// the rest its payload text. Every payload getter reads each event (a
// refusal is bad_event, nothing else), the session is replayed into a
// tracker as recovery does, and a replayed session's report is built and
// rendered, as time_session_report would after the restart.

#include "fuzz_check.hpp"

#include "log.hpp"

#include <date/date.h>

#include "domain/clock.hpp"
#include "journal/codec.hpp"
#include "journal/replay.hpp"
#include "reports/report.hpp"

#include <chrono>

namespace {

using namespace ttm;
using namespace std::chrono;

/// Every getter of the payload; a malformed field throws bad_event only
/// (anything else escapes and is a crash).
void read_all(const std::string& json) {
  try {
    journal::payload p{json};
    auto guard = [](auto&& f) {
      try {
        f();
      } catch (const journal::bad_event&) {
      }
    };
    guard([&] { (void)p.session_request(); });
    guard([&] { (void)p.zone_name(); });
    guard([&] { (void)p.task_request("a"); });
    guard([&] { (void)p.status(); });
    guard([&] { (void)p.metadata(); });
    guard([&] { (void)p.expiry_reason(); });
    guard([&] { (void)p.ops(); });
    guard([&] { (void)p.by(); });
    guard([&] { (void)p.undid(); });
    guard([&] { (void)p.op_count(); });
  } catch (const journal::bad_event&) {
  }
}

} // namespace

/// The log's lines are formatted (the code a line runs stays fuzzed) but
/// not written: stderr is libFuzzer's report.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ttm::log::set_sink([](ttm::log::level lvl, std::string_view where,
                        std::string_view msg, const ttm::log::fields& f) {
    (void)ttm::log::format_line(ttm::log::format::json, 0, lvl, where, msg, f);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  auto in = fuzz::bytes(data, size);
  auto opts = fuzz::take_byte(in);
  const std::int64_t base_wall
    = duration_cast<nanoseconds>(
        (date::sys_days{date::year{2026} / 3 / 29} + hours{0}).time_since_epoch())
        .count();
  storage::stored_session s;
  s.session_id = "0190a3f4-1111-7000-8000-000000000001";
  s.principal = "local";
  s.milestone_id = "m1";
  s.state = static_cast<storage::session_state>(opts % 3);
  s.started_wall_ns = base_wall;
  s.last_wall_ns = base_wall;
  std::int64_t wall = base_wall;
  std::int64_t mono = 1'000'000'000;
  static const char* const tasks[] = {"a", "b", "c", "", "x/y"};
  for (const auto& line : fuzz::split(in, '\n')) {
    std::string_view l = line;
    auto kind = fuzz::take_byte(l);
    auto bits = fuzz::take_byte(l);
    storage::event e;
    e.kind = static_cast<storage::event_kind>(kind % 7);
    e.session_id = s.session_id;
    e.principal = s.principal;
    e.task_id = tasks[bits % 5];
    e.epoch = static_cast<std::int64_t>(s.events.size()) + 1;
    // Mostly forward a minute; now and then backwards, or a reboot.
    std::int64_t step = (bits & 0x40) ? -30'000'000'000 : 60'000'000'000;
    wall += step;
    mono = (bits & 0x20) ? 5'000'000 : mono + step;
    e.at = {wall, mono, (bits & 0x20) ? "boot-2" : "boot-1"};
    e.undone = bits & 0x80;
    e.payload = std::string{l};
    read_all(e.payload);
    s.events.push_back(std::move(e));
    if (s.events.size() >= 64)
      break;
  }
  s.epoch = static_cast<std::int64_t>(s.events.size());
  s.last_wall_ns = wall;
  if (s.state != storage::session_state::open)
    s.closed_wall_ns = wall;

  domain::fake_clock clock{domain::wall_time{nanoseconds{wall + 60'000'000'000}}};
  domain::tracker tr{domain::tracking_limits{}};
  std::vector<std::string> problems;
  auto ids = journal::replay(tr, {s}, clock, "Europe/Berlin", problems);
  for (const auto& id : ids) {
    const auto* sess = tr.find(id);
    if (sess == nullptr)
      continue; // remembered as expired only
    auto model = reports::build_report(*sess, domain::now_of(clock), sess->tz);
    for (auto f : {reports::report_format::markdown, reports::report_format::csv,
                   reports::report_format::json, reports::report_format::html})
      FUZZ_CHECK(!reports::render_report(model, f).empty(), id);
  }
  return 0;
}
