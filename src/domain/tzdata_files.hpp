#pragma once

// The system tz database's files as date/tz reads them (Debian builds it
// with USE_OS_TZDB): where they are and the links tzdata.zi lists. Shared by
// the zone lookup and the Windows zone names.

#include <string>
#include <unordered_map>

namespace ttm::domain {

/// The zoneinfo directory date/tz reads, found the way its discover_tz_dir()
/// finds it: /usr/share/zoneinfo (or its uclibc subfolder when present).
const std::string& zoneinfo_dir();

/// tzdata.zi's links, link name -> target ("Asia/Calcutta" ->
/// "Asia/Kolkata"). Read from the file on every call; empty when it cannot
/// be read.
std::unordered_map<std::string, std::string> read_tz_links();

} // namespace ttm::domain
