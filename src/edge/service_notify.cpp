#include "edge/service_notify.hpp"

#include "log.hpp"

#include <caf/all.hpp>

#include <systemd/sd-daemon.h>

#include <cstdlib>

namespace ttm::edge {

namespace {

using tick_atom = caf::atom_constant<caf::atom("wdtick")>;

} // namespace

service_notifier::service_notifier() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  enabled_ = socket != nullptr && *socket != '\0';
  std::uint64_t usec = 0;
  // > 0: WATCHDOG_USEC is set and WATCHDOG_PID, if set, is this process.
  if (enabled_ && sd_watchdog_enabled(0, &usec) > 0 && usec >= 2)
    interval_ = std::chrono::microseconds{usec / 2};
}

void service_notifier::send(const std::string& state) {
  // mtx_ is held: messages keep their order.
  if (int rc = sd_notify(0, state.c_str()); rc < 0)
    TTM_LOG(warning, "systemd", "cannot notify the service manager ("
                                  + std::to_string(-rc) + "): " + state);
}

void service_notifier::listening(const std::string& where) {
  if (!enabled_)
    return;
  std::lock_guard<std::mutex> guard{mtx_};
  where_ = where;
  if (journal_open_ && !stopping_) {
    ready_ = true;
    send("READY=1\nSTATUS=serving MCP over HTTP at " + where_);
  } else if (!stopping_) {
    send("STATUS=listening at " + where_ + "; opening the session journal");
  }
}

void service_notifier::journal(const std::string& fault) {
  if (!enabled_)
    return;
  std::lock_guard<std::mutex> guard{mtx_};
  if (stopping_ || ready_)
    return;
  if (!fault.empty()) {
    send("STATUS=" + fault + " (retrying; not ready)");
    return;
  }
  journal_open_ = true;
  if (!where_.empty()) {
    ready_ = true;
    send("READY=1\nSTATUS=serving MCP over HTTP at " + where_);
  }
}

void service_notifier::stopping(const std::string& reason) {
  if (!enabled_)
    return;
  std::lock_guard<std::mutex> guard{mtx_};
  stopping_ = true;
  send("STOPPING=1\nSTATUS=shutting down (" + reason
       + "): finishing requests in flight");
}

void service_notifier::watchdog_ping(std::uint64_t mcp_sessions) {
  if (!enabled_)
    return;
  std::lock_guard<std::mutex> guard{mtx_};
  std::string state = "WATCHDOG=1";
  // The count rides on the ping that measured it; only changes are sent.
  if (ready_ && !stopping_ && mcp_sessions != last_sessions_) {
    last_sessions_ = mcp_sessions;
    state += "\nSTATUS=serving MCP over HTTP at " + where_ + "; "
             + std::to_string(mcp_sessions) + " MCP session"
             + (mcp_sessions == 1 ? "" : "s");
  }
  send(state);
}

namespace {

/// The watchdog's behavior. Its handles come as spawn arguments, not
/// lambda captures: CAF 0.17 spawns a function without arguments through
/// a null argument tuple (UBSan: reference binding to null pointer).
caf::behavior watchdog(caf::event_based_actor* self,
                       actors::supervisor_actor supervisor,
                       std::shared_ptr<service_notifier> notifier) {
  self->link_to(supervisor);
  auto interval = caf::timespan{notifier->watchdog_interval()};
  self->send(self, tick_atom::value);
  return {
    [=](tick_atom) {
      // Answered within the interval, or this ping is skipped; two
      // skipped pings in a row and systemd restarts the server.
      self->request(supervisor, interval, actors::count_atom::value)
        .then([=](std::uint64_t sessions) { notifier->watchdog_ping(sessions); },
              [=](caf::error& err) {
                // A supervisor that is gone is the shutdown, which ends
                // this actor too: only a late answer is news.
                if (err == caf::sec::request_timeout)
                  TTM_LOG(warning, "systemd",
                          "no watchdog ping: the supervisor did not answer "
                          "within "
                            + std::to_string(notifier->watchdog_interval()
                                               .count()
                                             / 1000)
                            + " ms");
              });
      self->delayed_send(self, interval, tick_atom::value);
    },
  };
}

} // namespace

caf::actor spawn_watchdog(caf::actor_system& sys,
                          const actors::supervisor_actor& supervisor,
                          std::shared_ptr<service_notifier> notifier) {
  if (!notifier || notifier->watchdog_interval().count() == 0)
    return {};
  return sys.spawn(watchdog, supervisor, std::move(notifier));
}

} // namespace ttm::edge
