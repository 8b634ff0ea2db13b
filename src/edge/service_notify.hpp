#pragma once

// systemd's notify protocol (sd_notify(3), Debian's libsystemd): what a
// `Type=notify` unit with `WatchdogSec=` needs to hear from the server.
// Outside systemd (no NOTIFY_SOCKET) every call does nothing.

#include "actors/supervisor_messages.hpp"

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

namespace ttm::edge {

/// READY=1 once both the listener accepts and the journal is open (either
/// order; an --ephemeral server has no journal to wait for), STATUS= lines
/// on the way, STOPPING=1 at shutdown, and WATCHDOG=1 from `watchdog_ping`.
/// Thread-safe: main, the journal's thread and the watchdog actor call it.
class service_notifier {
public:
  /// Reads NOTIFY_SOCKET and WATCHDOG_USEC/WATCHDOG_PID (for this process).
  service_notifier();

  /// Whether systemd listens (NOTIFY_SOCKET is set).
  bool enabled() const { return enabled_; }

  /// Half of WATCHDOG_USEC, the ping interval; zero: no watchdog.
  std::chrono::microseconds watchdog_interval() const { return interval_; }

  /// The listener accepts at `where` (a URL).
  void listening(const std::string& where);

  /// The journal opened (`fault` empty), or cannot open yet (why).
  void journal(const std::string& fault);

  /// Shutdown begins (`reason`: the signal); no READY after this.
  void stopping(const std::string& reason);

  /// WATCHDOG=1, and a STATUS= line when the session count changed.
  void watchdog_ping(std::uint64_t mcp_sessions);

private:
  void send(const std::string& state);

  bool enabled_ = false;
  std::chrono::microseconds interval_{0};
  std::mutex mtx_;
  std::string where_;        ///< empty: not listening yet
  bool journal_open_ = false;
  bool ready_ = false;       ///< READY=1 sent
  bool stopping_ = false;
  std::uint64_t last_sessions_ = UINT64_MAX;
};

/// Spawns the watchdog: every `notifier->watchdog_interval()` it asks the
/// supervisor for its client count and pings only on the reply, so systemd
/// restarts a server whose scheduler or supervisor stopped answering (a bare
/// timer thread would keep pinging for a wedged server). Linked to the
/// supervisor: ends with it. Not spawned (returns an invalid handle) when
/// there is no watchdog.
caf::actor spawn_watchdog(caf::actor_system& sys,
                          const actors::supervisor_actor& supervisor,
                          std::shared_ptr<service_notifier> notifier);

} // namespace ttm::edge
