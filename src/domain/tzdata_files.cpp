#include "domain/tzdata_files.hpp"

#include <fstream>

#include <sys/stat.h>

namespace ttm::domain {

const std::string& zoneinfo_dir() {
  static const std::string dir = [] {
    struct stat sb {};
    if (::stat("/usr/share/zoneinfo/uclibc", &sb) == 0 && S_ISDIR(sb.st_mode))
      return std::string{"/usr/share/zoneinfo/uclibc"};
    return std::string{"/usr/share/zoneinfo"};
  }();
  return dir;
}

std::unordered_map<std::string, std::string> read_tz_links() {
  std::unordered_map<std::string, std::string> links;
  std::ifstream in(zoneinfo_dir() + "/tzdata.zi");
  std::string line;
  while (std::getline(in, line)) {
    // "L <target> <link name>"
    if (line.size() > 2 && line[0] == 'L' && line[1] == ' ') {
      auto space = line.rfind(' ');
      if (space > 2)
        links.emplace(line.substr(space + 1), line.substr(2, space - 2));
    }
  }
  return links;
}

} // namespace ttm::domain
