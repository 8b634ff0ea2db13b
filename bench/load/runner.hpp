#pragma once

// Runs a scenario (or a memory mode) with the options' clients and threads,
// and gathers the figures.

#include "options.hpp"
#include "proc.hpp"
#include "stats.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ttb {

struct run_result {
  explicit run_result(error_log& errors) : stats(errors) {
  }

  op_table stats;
  /// The measured window: from the end of the warm-up to the last reply
  /// (the whole run in memory modes).
  double window_s = 0;
  int server_pid = 0;
  /// Server samples: at the start (HTTP: before the bench connected),
  /// before the load (after every client's initialize), after it.
  std::optional<process_sample> start, before, after;
  /// At the end of the warm-up: the server's CPU time is counted from here.
  std::optional<process_sample> window_start;
  /// Wall time between the `window_start` and `after` samples.
  double sampled_s = 0;
  /// The bench's own CPU seconds over that time (is the client the limit?).
  double bench_cpu_s = 0;
  /// Memory modes: RSS (KiB) after each phase, in order.
  std::vector<std::pair<std::string, long>> phases;
  /// Memory modes: derived figures (name, bytes), in order.
  std::vector<std::pair<std::string, double>> per_unit;
  /// Set-up failed: no load was run.
  bool aborted = false;
};

class ack_log;

/// Runs the load; with `acks`, every acknowledged state change is written
/// there (--ack-log).
run_result run(const options& opts, error_log& errors,
               ack_log* acks = nullptr);

} // namespace ttb
