// systemd's notify protocol (edge/service_notify.*), heard on a datagram
// socket of the test's own: READY=1 waits for both the listener and the
// journal, and the watchdog pings only after the supervisor answered.

#include "actors/supervisor.hpp"
#include "edge/service_notify.hpp"

#include "temp_dir.hpp"

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace {

using namespace ttm;

/// A notify socket: NOTIFY_SOCKET (and WATCHDOG_USEC) point at it while
/// it lives.
class notify_socket {
public:
  explicit notify_socket(const char* watchdog_usec) {
    path_ = (dir_.path() / "notify").string();
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    REQUIRE(path_.size() < sizeof addr.sun_path);
    path_.copy(addr.sun_path, path_.size());
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    ::setenv("NOTIFY_SOCKET", path_.c_str(), 1);
    if (watchdog_usec != nullptr)
      ::setenv("WATCHDOG_USEC", watchdog_usec, 1);
    ::unsetenv("WATCHDOG_PID");
  }
  ~notify_socket() {
    ::unsetenv("NOTIFY_SOCKET");
    ::unsetenv("WATCHDOG_USEC");
    ::close(fd_);
  }

  /// Every message sent so far (sd_notify's send has returned: they are
  /// in the socket's queue).
  std::vector<std::string> take() {
    std::vector<std::string> out;
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd_, buf, sizeof buf, 0)) > 0;)
      out.emplace_back(buf, static_cast<std::size_t>(n));
    return out;
  }

private:
  test::temp_dir dir_;
  std::string path_;
  int fd_ = -1;
};

} // namespace

TEST_CASE("service_notify: READY=1 once listening and the journal is open, "
          "in either order, none after STOPPING=1") {
  notify_socket sock{nullptr};
  SECTION("listener first, then a journal fault, then the journal") {
    edge::service_notifier n;
    REQUIRE(n.enabled());
    CHECK(n.watchdog_interval().count() == 0);
    n.listening("http://127.0.0.1:8787/mcp");
    n.journal("the session journal is unavailable: disk full");
    n.journal("");
    auto got = sock.take();
    REQUIRE(got.size() == 3);
    CHECK(got[0]
          == "STATUS=listening at http://127.0.0.1:8787/mcp; opening the "
             "session journal");
    CHECK(got[1]
          == "STATUS=the session journal is unavailable: disk full "
             "(retrying; not ready)");
    CHECK(got[2]
          == "READY=1\nSTATUS=serving MCP over HTTP at "
             "http://127.0.0.1:8787/mcp");
  }
  SECTION("journal first, then the listener") {
    edge::service_notifier n;
    n.journal("");
    CHECK(sock.take().empty());
    n.listening("http://[::1]:9000/mcp");
    CHECK(sock.take()
          == std::vector<std::string>{
            "READY=1\nSTATUS=serving MCP over HTTP at http://[::1]:9000/mcp"});
  }
  SECTION("a signal before the journal opened: STOPPING, never READY") {
    edge::service_notifier n;
    n.listening("http://127.0.0.1:8787/mcp");
    n.stopping("SIGTERM");
    n.journal("");
    auto got = sock.take();
    REQUIRE(got.size() == 2);
    CHECK(got[1]
          == "STOPPING=1\nSTATUS=shutting down (SIGTERM): finishing requests "
             "in flight");
  }
}

TEST_CASE("service_notify: without NOTIFY_SOCKET nothing is sent and no "
          "watchdog runs") {
  ::unsetenv("NOTIFY_SOCKET");
  ::setenv("WATCHDOG_USEC", "1000000", 1);
  edge::service_notifier n;
  ::unsetenv("WATCHDOG_USEC");
  CHECK_FALSE(n.enabled());
  CHECK(n.watchdog_interval().count() == 0);
}

TEST_CASE("service_notify: the watchdog pings at half WATCHDOG_USEC, each "
          "ping after the supervisor answered, and ends with it") {
  notify_socket sock{"2000000"};
  auto notifier = std::make_shared<edge::service_notifier>();
  REQUIRE(notifier->watchdog_interval() == std::chrono::seconds{1});
  notifier->journal("");
  notifier->listening("http://127.0.0.1:8787/mcp");
  REQUIRE(sock.take().size() == 1); // READY=1

  caf::actor_system_config cfg;
  cfg.set("scheduler.policy", caf::atom("testing"));
  cfg.set("logger.console-verbosity", caf::atom("quiet"));
  caf::actor_system sys{cfg};
  auto& sched
    = dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler());
  auto supervisor
    = sys.spawn(actors::supervisor_behavior, actors::supervisor_config{});
  sched.run();
  auto watchdog = edge::spawn_watchdog(sys, supervisor, notifier);
  REQUIRE(watchdog);

  // The tick: the watchdog asks the supervisor. No ping until it answers.
  REQUIRE(sched.try_run_once());
  CHECK(sched.has_job()); // the request, in the supervisor's mailbox
  CHECK(sock.take().empty());
  sched.run(); // the supervisor answers (0 MCP sessions), the ping goes out
  CHECK(sock.take()
        == std::vector<std::string>{
          "WATCHDOG=1\nSTATUS=serving MCP over HTTP at "
          "http://127.0.0.1:8787/mcp; 0 MCP sessions"});

  // The next tick, an interval later: a ping, the count unchanged.
  sched.trigger_timeouts();
  sched.run();
  CHECK(sock.take() == std::vector<std::string>{"WATCHDOG=1"});

  // The supervisor ends (shutdown): the watchdog with it, no more pings.
  caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  sched.run();
  sched.trigger_timeouts();
  sched.run();
  CHECK(sock.take().empty());
}
