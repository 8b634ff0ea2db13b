#include "ack_log.hpp"

#include <cerrno>
#include <cstring>

namespace ttb {

std::unique_ptr<ack_log> ack_log::open(const std::string& path,
                                       std::string& error) {
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (!f) {
    error = "cannot open " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  // A large buffer: the log is read after the run, not during it.
  std::setvbuf(f, nullptr, _IOFBF, 1 << 16);
  return std::unique_ptr<ack_log>{new ack_log{f, path}};
}

ack_log::ack_log(std::FILE* f, std::string path)
  : file_(f), path_(std::move(path)) {
}

ack_log::~ack_log() {
  std::string ignored;
  close(ignored);
}

void ack_log::add(std::string_view tool, std::string_view session,
                  std::string_view task, std::string_view status) {
  std::string line;
  line.reserve(tool.size() + session.size() + task.size() + status.size()
               + 4);
  line.append(tool).append(1, '\t').append(session).append(1, '\t');
  line.append(task.empty() ? std::string_view{"-"} : task).append(1, '\t');
  line.append(status.empty() ? std::string_view{"-"} : status);
  line.append(1, '\n');
  std::lock_guard<std::mutex> g{mtx_};
  if (!file_)
    return;
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size())
    fail();
  ++lines_;
}

bool ack_log::close(std::string& error) {
  std::lock_guard<std::mutex> g{mtx_};
  if (file_) {
    if (std::fflush(file_) != 0)
      fail();
    if (std::fclose(file_) != 0)
      fail();
    file_ = nullptr;
  }
  if (!failure_.empty())
    error = "writing " + path_ + " failed: " + failure_;
  return failure_.empty();
}

void ack_log::fail() {
  if (failure_.empty())
    failure_ = std::strerror(errno);
}

std::uint64_t ack_log::lines() const {
  std::lock_guard<std::mutex> g{mtx_};
  return lines_;
}

} // namespace ttb
