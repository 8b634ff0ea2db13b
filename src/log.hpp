#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ttm::log {

/// Server-side log levels for stderr (not MCP's client logging levels).
enum class level : int { trace, debug, info, warning, error, off };

std::optional<level> parse_level(std::string_view name) noexcept;

/// "trace, debug, info, warning, error, off"
std::string_view level_names() noexcept;

/// Set once at start-up, before threads start.
void set_threshold(level lvl) noexcept;

bool enabled(level lvl) noexcept;

/// Writes one line to stderr: "2026-11-22T05:00:00.123Z warning [where] msg".
/// Never to stdout: in stdio mode stdout belongs to the protocol.
void write(level lvl, std::string_view where, std::string_view msg);

/// Where `write` sends an event instead of stderr: a test hook, so that
/// unit tests can assert what is logged. nullptr restores stderr. Returns
/// the previous sink. Thread-safe, but set it before the code under test runs.
using sink_fn = void (*)(level lvl, std::string_view where,
                         std::string_view msg);
sink_fn set_sink(sink_fn sink) noexcept;

} // namespace ttm::log

#define TTM_LOG(lvl, where, expr)                                              \
  do {                                                                         \
    if (::ttm::log::enabled(::ttm::log::level::lvl))                           \
      ::ttm::log::write(::ttm::log::level::lvl, where, expr);                  \
  } while (false)
