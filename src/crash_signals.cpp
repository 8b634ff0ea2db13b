#include "crash_signals.hpp"

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <ctime>

#include <unistd.h>

namespace ttm {

namespace {

// The handler may only use async-signal-safe calls: everything it writes is
// prepared here at start-up; it fills in the time stamp (and a sender's pid)
// by hand into static buffers and writes each line with one write(2).

constexpr std::size_t stamp_len = 24; // "2026-11-22T05:00:00.123Z"

std::string fault_line;  ///< a failed mapping: stamp, then the explanation
std::string sent_head;   ///< kill -BUS: stamp, then up to the sender's pid
const char* sent_tail = "";

/// Writes "YYYY-MM-DDTHH:MM:SS.mmmZ" (UTC) to `out`: arithmetic only, since
/// gmtime_r is not async-signal-safe.
void format_stamp(char* out) {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  std::int64_t secs = ts.tv_sec;
  std::int64_t days = secs / 86400;
  std::int64_t rem = secs % 86400;
  // Days since 1970-01-01 to a civil date (H. Hinnant's days_from_civil,
  // inverted).
  std::int64_t z = days + 719468;
  std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  std::int64_t doe = z - era * 146097;
  std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  std::int64_t mp = (5 * doy + 2) / 153;
  std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
  std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
  std::int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  auto put = [&out](std::size_t at, std::int64_t v, int width) {
    for (int i = width - 1; i >= 0; --i, v /= 10)
      out[at + static_cast<std::size_t>(i)] = static_cast<char>('0' + v % 10);
  };
  put(0, y, 4);
  out[4] = '-';
  put(5, m, 2);
  out[7] = '-';
  put(8, d, 2);
  out[10] = 'T';
  put(11, rem / 3600, 2);
  out[13] = ':';
  put(14, rem % 3600 / 60, 2);
  out[16] = ':';
  put(17, rem % 60, 2);
  out[19] = '.';
  put(20, ts.tv_nsec / 1'000'000, 3);
  out[23] = 'Z';
}

void write_all(const char* data, std::size_t size) {
  while (size > 0) {
    auto n = ::write(STDERR_FILENO, data, size);
    if (n <= 0)
      return; // nothing else to do: we are dying anyway
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

void on_sigbus(int sig, siginfo_t* info, void*) {
  int saved = errno;
  if (info != nullptr && info->si_code <= 0) {
    // Sent (kill, tgkill, sigqueue): no mapping failed; say who sent it.
    char line[512];
    std::size_t n = sent_head.size();
    std::memcpy(line, sent_head.data(), n);
    format_stamp(line);
    char digits[24];
    std::size_t k = 0;
    auto pid = static_cast<std::int64_t>(info->si_pid);
    do {
      digits[k++] = static_cast<char>('0' + pid % 10);
      pid /= 10;
    } while (pid > 0 && k < sizeof digits);
    while (k > 0 && n < sizeof line)
      line[n++] = digits[--k];
    for (const char* p = sent_tail; *p != '\0' && n < sizeof line; ++p)
      line[n++] = *p;
    write_all(line, n);
  } else {
    format_stamp(fault_line.data());
    write_all(fault_line.data(), fault_line.size());
  }
  // Die of the same signal: the exit status stays "killed by SIGBUS" (135).
  struct sigaction dfl{};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  errno = saved;
  // Pending until the handler returns (SIGBUS is blocked in it); a fault
  // would also recur at the faulting store.
  ::raise(sig);
}

/// What a failed mapping means here, naming the journal's files.
std::string sigbus_explanation(const std::string& journal_dir) {
  auto journal = journal_dir + "/journal.sqlite3";
  return "fatal: SIGBUS, a memory-mapped file failed: most likely the "
         "journal's WAL index "
         + journal + "-shm became unwritable (made immutable, truncated, its "
         "filesystem full or gone). Changes acknowledged before are safe in "
         "the journal ("
         + journal + " and its -wal); the request in progress got no reply. "
         "Make the -shm file writable again (e.g. chattr -i, free space), or "
         "delete it while no server uses the journal (SQLite rebuilds it), "
         "then restart the server. Exiting by SIGBUS.";
}

} // namespace

void explain_sigbus(const std::string& journal_dir) {
  const std::string prefix = std::string(stamp_len, '0') + " error [main] ";
  fault_line = prefix + sigbus_explanation(journal_dir) + '\n';
  sent_head = prefix + "fatal: SIGBUS sent by process ";
  sent_tail = " (no memory-mapped file failed); exiting by SIGBUS.\n";
  struct sigaction sa{};
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGBUS, &sa, nullptr);
}

} // namespace ttm
