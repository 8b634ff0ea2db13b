#include "log.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>

#include <unistd.h>

namespace ttm::log {

namespace {

std::atomic<int> threshold{static_cast<int>(level::info)};

std::atomic<sink_fn> sink_{nullptr};

constexpr std::array<std::string_view, 6> names{"trace",   "debug", "info",
                                                "warning", "error", "off"};

} // namespace

std::optional<level> parse_level(std::string_view name) noexcept {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name)
      return static_cast<level>(i);
  return std::nullopt;
}

std::string_view level_names() noexcept {
  return "trace, debug, info, warning, error, off";
}

void set_threshold(level lvl) noexcept {
  threshold = static_cast<int>(lvl);
}

bool enabled(level lvl) noexcept {
  return lvl != level::off && static_cast<int>(lvl) >= threshold.load();
}

sink_fn set_sink(sink_fn sink) noexcept {
  return sink_.exchange(sink);
}

void write(level lvl, std::string_view where, std::string_view msg) {
  if (auto sink = sink_.load()) {
    sink(lvl, where, msg);
    return;
  }
  using namespace std::chrono;
  auto now = system_clock::now();
  auto secs = system_clock::to_time_t(now);
  auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[64];
  std::snprintf(stamp, sizeof(stamp), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  std::string line;
  line.reserve(48 + where.size() + msg.size());
  line += stamp;
  line += ' ';
  line += names[static_cast<size_t>(lvl)];
  line += " [";
  line += where;
  line += "] ";
  // One event, one line: embedded newlines would break log parsing.
  for (char c : msg)
    line += (c == '\n' || c == '\r') ? ' ' : c;
  line += '\n';
  // A single write(2) keeps concurrent lines from interleaving.
  auto rc = ::write(STDERR_FILENO, line.data(), line.size());
  (void) rc;
}

} // namespace ttm::log
