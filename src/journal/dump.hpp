#pragma once

// A whole journal as JSON lines (the admin CLI's export and import; the
// path to another backend): a header line with the schema version, then
// one line per event in journal order, each with its payload as this
// codec writes it, then the preferences, focus sessions and audit records.
// Reading checks every line (the payload too, through the codec's getters)
// and names the line of the first fault.

#include "storage/sqlite_admin.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

namespace ttm::journal {

/// The header line's format name.
inline constexpr const char* dump_format = "time-tracker-mcp-journal";

/// The first line: {"format":"time-tracker-mcp-journal","schema_version":N}.
std::string dump_header(std::int64_t schema_version);

/// One line each (no newline). A payload is written parsed and re-written
/// (compact, its members in their stored order), so export is
/// deterministic.
std::string dump_line(const storage::event& ev);
std::string dump_line(const storage::preference_row& p);
std::string dump_line(const storage::focus_row& f);
std::string dump_line(const storage::audit_entry& a);

/// Reads lines into a dump, checking each; `error` names the first bad
/// line ("line 7: ...") and then nothing more is read.
class dump_reader {
public:
  /// False when the line is bad (see error()). Empty lines are bad too,
  /// except a last one (a final newline is not a line).
  bool add(const std::string& line);
  /// False when the input ended early (no header).
  bool finish();

  const std::string& error() const noexcept {
    return error_;
  }
  std::size_t lines() const noexcept {
    return line_;
  }
  storage::journal_dump& dump() noexcept {
    return dump_;
  }

private:
  bool fail(const std::string& why);
  bool read_event(const void* obj);

  storage::journal_dump dump_;
  std::string error_;
  std::size_t line_ = 0;
  bool header_ = false;
  /// Sessions seen: whether each is closed (ended or expired).
  std::unordered_map<std::string, bool> closed_;
};

} // namespace ttm::journal
