#pragma once

// A fresh directory under the system's temp directory for tests that need
// real files (the journal's SQLite tests), removed with everything in it.

#include <sys/stat.h>

#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <system_error>

namespace ttm::test {

class temp_dir {
public:
  temp_dir() {
    std::random_device rd;
    std::ostringstream name;
    name << "ttm-test-" << std::hex << rd() << rd();
    path_ = std::filesystem::temp_directory_path() / name.str();
    std::filesystem::create_directory(path_);
  }

  /// Modes are restored first: the read-only tests take write bits away.
  ~temp_dir() {
    namespace fs = std::filesystem;
    std::error_code ec;
    ::chmod(path_.c_str(), 0700);
    for (auto i = fs::recursive_directory_iterator(path_, ec);
         !ec && i != fs::recursive_directory_iterator(); i.increment(ec))
      ::chmod(i->path().c_str(), i->is_directory() ? 0700 : 0600);
    fs::remove_all(path_, ec);
  }

  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  const std::filesystem::path& path() const {
    return path_;
  }

  std::filesystem::path sub(const std::string& name) const {
    return path_ / name;
  }

  /// The data directory the journal tests use: one level down, so that the
  /// store has to create it.
  std::string data() const {
    return sub("data").string();
  }

  std::string journal() const {
    return (path_ / "data" / "journal.sqlite3").string();
  }

private:
  std::filesystem::path path_;
};

} // namespace ttm::test
