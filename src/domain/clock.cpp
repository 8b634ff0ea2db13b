#include "domain/clock.hpp"

#include <fstream>

namespace ttm::domain {

clock_source::~clock_source() = default;

wall_time system_clock_source::wall_now() const {
  return std::chrono::system_clock::now();
}

mono_time system_clock_source::mono_now() const {
  return std::chrono::steady_clock::now();
}

std::string system_clock_source::boot_id() const {
  // Fixed for the life of the process; an unreadable file (no procfs) makes
  // every boot look different, so durations fall back to the wall clock.
  static const std::string id = [] {
    std::ifstream in{"/proc/sys/kernel/random/boot_id"};
    std::string line;
    std::getline(in, line);
    if (line.empty())
      line = "unknown-"
             + std::to_string(
               std::chrono::system_clock::now().time_since_epoch().count());
    return line;
  }();
  return id;
}

// The fake monotonic clock starts at an arbitrary non-zero point, like a real
// one (seconds since boot), so code cannot rely on it matching the wall clock.
fake_clock::fake_clock(wall_time start)
  : wall_ns_(to_ns(start)), mono_ns_(std::int64_t{1'000'000'000} * 3600) {
}

wall_time fake_clock::wall_now() const {
  return wall_time{std::chrono::duration_cast<wall_time::duration>(
    std::chrono::nanoseconds{wall_ns_.load()})};
}

mono_time fake_clock::mono_now() const {
  return mono_time{std::chrono::duration_cast<mono_time::duration>(
    std::chrono::nanoseconds{mono_ns_.load()})};
}

std::string fake_clock::boot_id() const {
  std::lock_guard<std::mutex> guard{boot_mtx_};
  return boot_id_;
}

void fake_clock::reboot(std::string new_boot_id,
                        std::chrono::nanoseconds mono_since_boot) {
  std::lock_guard<std::mutex> guard{boot_mtx_};
  boot_id_ = std::move(new_boot_id);
  mono_ns_ = mono_since_boot.count();
}

void fake_clock::advance(std::chrono::nanoseconds d) {
  wall_ns_ += d.count();
  mono_ns_ += d.count();
}

void fake_clock::step_wall(std::chrono::nanoseconds d) {
  wall_ns_ += d.count();
}

void fake_clock::set_wall(wall_time t) {
  wall_ns_ = to_ns(t);
}

} // namespace ttm::domain
