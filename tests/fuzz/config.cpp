// Configuration parsing (src/config.cpp): the command line, or the JSON
// config file. Input: one mode byte; then either the arguments, one per
// line, or the config file's text (read through a memfd: no file on disk).
// Checked beyond "no crash": a refusal exits 2 with a message, an accepted
// configuration has a mode.

#include "fuzz_check.hpp"

#include "config.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

namespace {

/// The environment: a home directory and nothing else.
const char* env(const char* name) {
  return std::strcmp(name, "HOME") == 0 ? "/nonexistent-ttm-fuzz-home" : nullptr;
}

/// Names the target must not open: devices (a read that never ends) and
/// the kernel's files.
bool risky(const std::string& arg) {
  for (auto p : {"/dev", "/proc", "/sys", "/run"})
    if (arg.find(p) != std::string::npos)
      return true;
  return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  static const int fd = memfd_create("ttm-fuzz-config", 0);
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  auto in = ttm::fuzz::bytes(data, size);
  auto mode = ttm::fuzz::take_byte(in);
  std::vector<std::string> args;
  if (mode & 1) {
    if (ftruncate(fd, 0) != 0
        || pwrite(fd, in.data(), in.size(), 0) != static_cast<ssize_t>(in.size()))
      return 0;
    args = {(mode & 2) ? "http" : "stdio", "--config", path};
  } else {
    args = ttm::fuzz::split(in, '\n');
    if (args.size() > 64)
      return 0;
    for (const auto& a : args)
      if (risky(a))
        return 0;
  }
  auto res = ttm::load_config(args, env);
  if (res.cfg) {
    FUZZ_CHECK(res.cfg->mode == "stdio" || res.cfg->mode == "http",
               res.cfg->mode);
  } else if (res.text_is_error) {
    FUZZ_CHECK(res.exit_code == 2 && !res.text.empty(), res.text);
  } else {
    FUZZ_CHECK(!res.text.empty(), "neither a configuration nor a text");
  }
  return 0;
}
