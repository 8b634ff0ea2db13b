#pragma once

// The batched side of the stderr log (log.cpp): for the one line per
// request, so that it costs the request no write(2).

#include <string_view>

namespace ttm::log {

// Of log.hpp (not included: log.cpp includes this header).
enum class level : int;
struct fields;

/// `write` for the one line per request (a request's completion): the
/// same line, written by a background thread within 50 ms instead of on
/// the caller's path; any other line written meanwhile comes after it.
void write_batched(level lvl, std::string_view where, std::string_view msg,
                   const fields& f);

/// Writes the pending batched lines now (before exit; also at exit).
void flush();

} // namespace ttm::log
