#include "proc.hpp"

#include <fstream>
#include <sstream>
#include <string>

#include <sys/resource.h>
#include <unistd.h>

namespace ttb {

std::optional<process_sample> sample_process(int pid) {
  if (pid <= 0)
    return std::nullopt;
  std::string base = "/proc/" + std::to_string(pid);
  std::ifstream status{base + "/status"};
  if (!status)
    return std::nullopt;
  process_sample s;
  bool have_rss = false;
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) {
      s.rss_kib = std::stol(line.substr(6));
      have_rss = true;
    } else if (line.rfind("VmHWM:", 0) == 0) {
      s.hwm_kib = std::stol(line.substr(6));
    }
  }
  if (!have_rss) // a zombie has no memory left to report
    return std::nullopt;
  std::ifstream stat{base + "/stat"};
  std::string text;
  std::getline(stat, text);
  // Fields after the command name, which is in parentheses and may hold
  // spaces: state is field 3, utime 14, stime 15.
  auto close = text.rfind(')');
  if (close != std::string::npos) {
    std::istringstream in{text.substr(close + 2)};
    std::string field;
    unsigned long utime = 0;
    unsigned long stime = 0;
    for (int i = 3; i <= 15 && in >> field; ++i) {
      if (i == 14)
        utime = std::stoul(field);
      else if (i == 15)
        stime = std::stoul(field);
    }
    s.cpu_s = static_cast<double>(utime + stime)
              / static_cast<double>(::sysconf(_SC_CLK_TCK));
  }
  return s;
}

double own_cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  auto secs = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return secs(u.ru_utime) + secs(u.ru_stime);
}

void raise_file_limit() {
  rlimit r{};
  if (::getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &r);
  }
}

} // namespace ttb
