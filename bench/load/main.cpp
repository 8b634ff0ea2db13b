// time-tracker-bench: a load generator for MCP servers over Streamable HTTP
// and stdio. See bench/README.md.

#include "options.hpp"
#include "proc.hpp"
#include "report.hpp"
#include "runner.hpp"

#include <csignal>
#include <cstdio>

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
  ttb::error_log errors{opts.show_errors};
  auto result = ttb::run(opts, errors);
  auto text = opts.json ? ttb::json_report(opts, result, errors)
                        : ttb::human_report(opts, result, errors);
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
  return errors.total() > 0 || result.aborted ? 1 : 0;
}
