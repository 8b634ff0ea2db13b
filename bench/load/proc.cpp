#include "proc.hpp"

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

namespace ttb {

namespace {

struct stat_fields {
  int ppid = 0;
  double cpu_s = 0; ///< utime + stime
};

/// /proc/PID/stat's parent and CPU time; nullopt when PID is gone.
std::optional<stat_fields> read_stat(const std::string& pid) {
  std::ifstream stat{"/proc/" + pid + "/stat"};
  std::string text;
  if (!stat || !std::getline(stat, text))
    return std::nullopt;
  // Fields after the command name, which is in parentheses and may hold
  // spaces: state is field 3, ppid 4, utime 14, stime 15.
  auto close = text.rfind(')');
  if (close == std::string::npos || close + 2 > text.size())
    return std::nullopt;
  std::istringstream in{text.substr(close + 2)};
  std::string field;
  stat_fields f;
  unsigned long utime = 0;
  unsigned long stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {
    if (i == 4)
      f.ppid = std::stoi(field);
    else if (i == 14)
      utime = std::stoul(field);
    else if (i == 15)
      stime = std::stoul(field);
  }
  f.cpu_s = static_cast<double>(utime + stime)
            / static_cast<double>(::sysconf(_SC_CLK_TCK));
  return f;
}

/// The CPU time of PID and all its descendants: a server that forks
/// workers (nginx: a master and its worker processes) is measured whole,
/// so that CPU per reply compares like with like (bench/compare.sh's
/// nginx ceiling). A single process is just itself.
double tree_cpu_seconds(int pid) {
  std::map<int, stat_fields> all;
  if (DIR* dir = ::opendir("/proc")) {
    while (const dirent* e = ::readdir(dir)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9')
        continue;
      if (auto f = read_stat(e->d_name))
        all.emplace(std::atoi(e->d_name), *f);
    }
    ::closedir(dir);
  }
  double total = 0;
  std::set<int> tree{pid};
  // Parents before children is not guaranteed by pid order (pids wrap):
  // repeat until no process joins.
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [p, f] : all)
      if (!tree.count(p) && tree.count(f.ppid)) {
        tree.insert(p);
        grew = true;
      }
  }
  for (int p : tree) {
    auto it = all.find(p);
    if (it != all.end())
      total += it->second.cpu_s;
  }
  return total;
}

} // namespace

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
  s.cpu_s = tree_cpu_seconds(pid);
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
