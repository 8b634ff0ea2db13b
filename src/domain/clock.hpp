#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace ttm::domain {

using wall_time = std::chrono::system_clock::time_point;
using mono_time = std::chrono::steady_clock::time_point;

/// Nanoseconds since the clock's epoch: how the journal stores both clocks.
template <class Clock, class Duration>
std::int64_t to_ns(std::chrono::time_point<Clock, Duration> t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
           t.time_since_epoch())
    .count();
}

/// The one way code reads time. Wall clock for timestamps, monotonic clock for
/// durations; tests substitute `fake_clock` so that no test waits for time.
class clock_source {
public:
  virtual ~clock_source();
  virtual wall_time wall_now() const = 0;
  virtual mono_time mono_now() const = 0;
  /// Names the boot the monotonic clock counts from: monotonic times of
  /// two boots do not compare (the journal records it with every event).
  virtual std::string boot_id() const = 0;
};

using clock_ptr = std::shared_ptr<const clock_source>;

/// The real clocks of the host.
class system_clock_source final : public clock_source {
public:
  wall_time wall_now() const override;
  mono_time mono_now() const override;
  /// The kernel's /proc/sys/kernel/random/boot_id, read once.
  std::string boot_id() const override;
};

/// A clock that moves only when told to. Fields are atomic so that a test may
/// move it while actors on other threads read it.
class fake_clock final : public clock_source {
public:
  explicit fake_clock(wall_time start);

  wall_time wall_now() const override;
  mono_time mono_now() const override;
  std::string boot_id() const override;

  /// The machine rebooted: a new boot id, and the monotonic clock starts
  /// again near zero (`mono_since_boot`); the wall clock keeps going.
  void reboot(std::string new_boot_id,
              std::chrono::nanoseconds mono_since_boot);

  /// Real time passes: both clocks move forward by `d`.
  void advance(std::chrono::nanoseconds d);

  /// Someone sets the wall clock (NTP step, manual change): only it moves.
  void step_wall(std::chrono::nanoseconds d);

  /// Sets the wall clock to `t` without touching the monotonic clock.
  void set_wall(wall_time t);

private:
  std::atomic<std::int64_t> wall_ns_;
  std::atomic<std::int64_t> mono_ns_;
  mutable std::mutex boot_mtx_;
  std::string boot_id_ = "fake-boot-1";
};

} // namespace ttm::domain
