#pragma once

#include <cstdint>
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

/// How a line is written: text (`2026-11-22T05:00:00.123Z info [mcp]
/// request_id=... msg`) or one JSON object per line (--log-format).
enum class format : int { text, json };

std::optional<format> parse_format(std::string_view name) noexcept;

/// Set once at start-up, before threads start.
void set_format(format f) noexcept;

/// The structured fields of one line, those that apply (empty: absent).
/// Views: they must outlive the `write` (or the `request_scope`). Never
/// tokens, intents, notes, task names or metadata values.
struct fields {
  std::string_view request_id;
  std::string_view trace_id;
  std::string_view principal;
  /// The MCP method (`tools/call`) and, for tools/call, the tool.
  std::string_view method;
  std::string_view tool;
  /// A request's completion: ok, error (a JSON-RPC error), tool_error
  /// (`isError: true`); empty on other lines.
  std::string_view outcome;
  /// The JSON-RPC error code (as text) or the tool's error_code.
  std::string_view error_code;
  /// The request's duration in microseconds; negative: absent.
  std::int64_t duration_us = -1;
};

/// While alive, lines written on this thread without fields of their own
/// carry `f` (the request the thread is working on), so that every line
/// about a request names it, down to the tools and the journal. Nested
/// scopes restore the outer one.
class request_scope {
public:
  explicit request_scope(const fields& f) noexcept;
  ~request_scope();
  request_scope(const request_scope&) = delete;
  request_scope& operator=(const request_scope&) = delete;

private:
  const fields* previous_;
};

/// The fields of the innermost request_scope on this thread, or nullptr.
const fields* current_fields() noexcept;

/// Writes one line to stderr (text or JSON, see `format`), with the
/// current request_scope's fields if any. Never to stdout: in stdio mode
/// stdout belongs to the protocol.
void write(level lvl, std::string_view where, std::string_view msg);

/// The same with these fields (instead of the scope's).
void write(level lvl, std::string_view where, std::string_view msg,
           const fields& f);

/// Where `write` sends an event instead of stderr: a test hook, so that
/// unit tests can assert what is logged (with its fields: those given or
/// the scope's; all empty when none). nullptr restores stderr. Returns the
/// previous sink. Thread-safe, but set it before the code under test runs.
using sink_fn = void (*)(level lvl, std::string_view where,
                         std::string_view msg, const fields& f);
sink_fn set_sink(sink_fn sink) noexcept;

/// The line `write` would send to stderr in format `fmt` at time
/// `unix_ms` (for tests of the formats), newline included.
std::string format_line(format fmt, std::int64_t unix_ms, level lvl,
                        std::string_view where, std::string_view msg,
                        const fields& f);

} // namespace ttm::log

#define TTM_LOG(lvl, where, expr)                                              \
  do {                                                                         \
    if (::ttm::log::enabled(::ttm::log::level::lvl))                           \
      ::ttm::log::write(::ttm::log::level::lvl, where, expr);                  \
  } while (false)

/// TTM_LOG with explicit fields (a log::fields value).
#define TTM_LOG_F(lvl, where, expr, flds)                                      \
  do {                                                                         \
    if (::ttm::log::enabled(::ttm::log::level::lvl))                           \
      ::ttm::log::write(::ttm::log::level::lvl, where, expr, flds);            \
  } while (false)
