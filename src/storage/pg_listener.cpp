#include "storage/pg_listener.hpp"

#include "log.hpp"
#include "storage/pg_conn.hpp"

#include <atomic>
#include <cerrno>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace ttm::storage {

struct pg_listener::impl {
  detail::pg_conn conn;
  change_signal_ptr signal;
  int wake[2] = {-1, -1}; ///< a byte written to [1] stops the thread
  std::atomic<std::uint64_t> heard{0};
  std::atomic<std::uint64_t> listens{0};
  std::thread thread;

  impl(const pg_options& opts, change_signal_ptr s)
    : conn(opts.conninfo, "", describe_postgresql(opts)),
      signal(std::move(s)) {
  }

  /// Waits for the socket `fd` (-1: none) to be readable, at most
  /// `timeout_ms` (-1: no limit); false when asked to stop.
  bool wait(int fd, int timeout_ms) {
    pollfd p[2] = {{wake[0], POLLIN, 0}, {fd, POLLIN, 0}};
    while (::poll(p, fd < 0 ? 1 : 2, timeout_ms) < 0)
      if (errno != EINTR)
        break;
    return (p[0].revents & POLLIN) == 0;
  }

  /// Connects and LISTENs; false (the reason logged once per outage)
  /// when it cannot.
  bool listen(bool& logged) {
    auto err = conn.ensure();
    if (!err)
      err = conn.run(std::string{"LISTEN "} + pg_mcp_channel,
                     "cannot listen for MCP session changes in");
    if (err) {
      conn.drop();
      if (!logged)
        TTM_LOG(warning, "storage",
                err->message + "; cached MCP sessions are read from the "
                               "journal until it can");
      logged = true;
      return false;
    }
    // What was notified before this LISTEN went unheard: no copy made
    // before now is current. Then copies are trusted again.
    signal->bump_all();
    signal->set_listening(true);
    if (++listens > 1)
      TTM_LOG(info, "storage", "listening for MCP session changes again");
    logged = false;
    return true;
  }

  /// Takes in what arrived; false when the connection is lost.
  bool take_in() {
    auto* c = conn.raw();
    if (PQconsumeInput(c) == 0 || PQstatus(c) != CONNECTION_OK)
      return false;
    while (auto* n = PQnotifies(c)) {
      if (n->extra)
        signal->bump(change_signal::slot_of(n->extra));
      ++heard;
      PQfreemem(n);
    }
    return true;
  }

  void run() {
    bool logged = false;
    while (true) {
      if (!signal->listening()) {
        if (!listen(logged)) {
          if (!wait(-1, 500))
            return;
          continue;
        }
        // Read with LISTEN's answer, maybe: taken in below.
      } else if (!wait(PQsocket(conn.raw()), -1)) {
        return;
      }
      if (!take_in()) {
        // Lost (PostgreSQL restarted): trust no copy until LISTEN is back.
        signal->set_listening(false);
        conn.drop();
        TTM_LOG(warning, "storage",
                "lost the connection listening for MCP session changes; "
                "cached MCP sessions are read from the journal until it "
                "is back");
        logged = true;
      }
    }
  }
};

pg_listener::pg_listener(const pg_options& opts, change_signal_ptr signal)
  : impl_(std::make_unique<impl>(opts, std::move(signal))) {
  impl_->signal->set_listening(false);
  if (::pipe2(impl_->wake, O_CLOEXEC) != 0) {
    // Not listening: every request reads its MCP session, as before.
    TTM_LOG(warning, "storage", "cannot listen for MCP session changes (no"
                                " pipe); cached MCP sessions are read from "
                                "the journal");
    return;
  }
  impl_->thread = std::thread{[p = impl_.get()] { p->run(); }};
}

pg_listener::~pg_listener() {
  if (impl_->thread.joinable()) {
    char b = 1;
    (void)!::write(impl_->wake[1], &b, 1);
    impl_->thread.join();
  }
  impl_->signal->set_listening(false);
  for (int fd : impl_->wake)
    if (fd >= 0)
      ::close(fd);
}

std::uint64_t pg_listener::heard() const {
  return impl_->heard.load();
}

std::uint64_t pg_listener::listens() const {
  return impl_->listens.load();
}

} // namespace ttm::storage
