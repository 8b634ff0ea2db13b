#pragma once

// What /proc says about a local server process.

#include <optional>

namespace ttb {

struct process_sample {
  long rss_kib = 0;   ///< VmRSS
  long hwm_kib = 0;   ///< VmHWM: the peak RSS so far
  double cpu_s = 0;   ///< user + system time so far, its descendants' included
};

/// nullopt when the process does not exist (or /proc is not readable).
std::optional<process_sample> sample_process(int pid);

/// This process's user + system CPU seconds so far.
double own_cpu_seconds();

/// Raises the soft limit on open files to the hard one (many connections).
void raise_file_limit();

} // namespace ttb
