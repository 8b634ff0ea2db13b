// time-tracker-bench: a load generator for MCP servers over Streamable HTTP
// and stdio. See bench/README.md.

#include "ack_log.hpp"
#include "options.hpp"
#include "proc.hpp"
#include "report.hpp"
#include "runner.hpp"

#include <csignal>
#include <cstdio>
#include <memory>
#include <string>

int main(int argc, char** argv) {
  auto parsed = ttb::parse_options(argc, argv);
  if (!parsed.opts) {
    std::fputs(parsed.message.c_str(), parsed.exit_code == 0 ? stdout : stderr);
    if (parsed.exit_code != 0)
      std::fputc('\n', stderr);
    return parsed.exit_code;
  }
  // A stdio server that dies must not take the bench with it.
  std::signal(SIGPIPE, SIG_IGN);
  ttb::raise_file_limit();
  const auto& opts = *parsed.opts;
  std::unique_ptr<ttb::ack_log> acks;
  if (!opts.ack_log.empty()) {
    std::string error;
    acks = ttb::ack_log::open(opts.ack_log, error);
    if (!acks) {
      std::fprintf(stderr, "time-tracker-bench: --ack-log: %s\n",
                   error.c_str());
      return 2;
    }
  }
  ttb::error_log errors{opts.show_errors};
  auto result = ttb::run(opts, errors, acks.get());
  bool acks_ok = true;
  if (acks) {
    std::string error;
    acks_ok = acks->close(error);
    if (acks_ok)
      std::fprintf(stderr,
                   "time-tracker-bench: %llu acknowledged state changes "
                   "appended to %s\n",
                   static_cast<unsigned long long>(acks->lines()),
                   acks->path().c_str());
    else
      std::fprintf(stderr, "time-tracker-bench: --ack-log: %s\n",
                   error.c_str());
  }
  auto text = opts.json ? ttb::json_report(opts, result, errors)
                        : ttb::human_report(opts, result, errors);
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
  return errors.total() > 0 || result.aborted || !acks_ok ? 1 : 0;
}
