// time-tracker-mcp: an MCP server that gives AI agents trusted time.

#include "actors/client.hpp"
#include "actors/journal.hpp"
#include "actors/supervisor.hpp"
#include "actors/transport.hpp"
#include "admin/admin.hpp"
#include "config.hpp"
#include "crash_signals.hpp"
#include "domain/clock.hpp"
#include "edge/http.hpp"
#include "edge/oauth.hpp"
#include "edge/service_notify.hpp"
#include "edge/stdio.hpp"
#include "lazy_libs.hpp"
#include "log.hpp"
#include "log_batch.hpp"
#include "storage/pg_store.hpp"
#include "storage/sqlite_store.hpp"
#include "tools/registry.hpp"
#include "tools/toolsets.hpp"
#include "wiring.hpp"


#include <caf/all.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <mutex>
#include <pthread.h>
#include <thread>

#include <sched.h>

#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

namespace {

using namespace ttm;

/// A one-shot event: the first `set` records why; later ones change nothing.
class latch {
public:
  void set(const char* reason) {
    {
      std::lock_guard<std::mutex> guard{mtx_};
      if (reason_ == nullptr)
        reason_ = reason;
    }
    cv_.notify_all();
  }

  const char* wait() {
    std::unique_lock<std::mutex> guard{mtx_};
    cv_.wait(guard, [this] { return reason_ != nullptr; });
    return reason_;
  }

  bool wait_for(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> guard{mtx_};
    return cv_.wait_for(guard, timeout, [this] { return reason_ != nullptr; });
  }

private:
  std::mutex mtx_;
  std::condition_variable cv_;
  const char* reason_ = nullptr;
};

/// Signals are taken by one thread with sigwait; they are blocked before any
/// other thread exists so that all threads inherit the mask.
sigset_t block_signals() {
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGHUP); // the terminal or the client went away
  sigaddset(&sigs, SIGUSR1); // internal: wakes the signal thread at exit
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  return sigs;
}

/// Sets `shutdown` on SIGINT/SIGTERM/SIGHUP; returns once `exiting` is set
/// and the thread is woken with SIGUSR1.
std::thread signal_thread(const sigset_t& sigs, latch& shutdown,
                          const std::atomic<bool>& exiting) {
  return std::thread{[&shutdown, &exiting, sigs] {
    for (;;) {
      int sig = 0;
      sigwait(&sigs, &sig);
      if (sig == SIGUSR1) {
        if (exiting)
          return;
        continue; // not ours: only main's wake-up at exit counts
      }
      shutdown.set(sig == SIGINT    ? "SIGINT"
                   : sig == SIGTERM ? "SIGTERM"
                                    : "SIGHUP");
    }
  }};
}

/// Loads what the first calls need, on a thread of its own: the tz
/// database (date/tz walks the whole zoneinfo directory at its first zone
/// lookup, ~2 ms), which nearly every call needs, when `go` is set (the
/// `initialize` reply is out: the handshake had the cores to itself, and
/// the first call finds the walk done or under way beside the journal's
/// open) or after `at_latest`; then the tool registry (schema compilation,
/// ~0.5 ms: tools/list, argument checks) once the server has been up for
/// `at_latest`, as a one-call process never needs all of it. Both load on
/// first use anyway, thread-safely; this takes that cost off an agent's
/// first calls. Nothing begins once `shutdown` is set (the exit would wait
/// for it); the thread is joined when the server stops.
class warm_up {
public:
  warm_up(const tools::registry& registry, latch& go, latch& shutdown,
          std::chrono::milliseconds at_latest)
    : thread_{[&registry, &go, &shutdown, at_latest] {
        using clock = std::chrono::steady_clock;
        auto registry_at = clock::now() + at_latest;
        go.wait_for(at_latest);
        if (shutdown.wait_for(std::chrono::milliseconds{0}))
          return;
        domain::preload_tz_database();
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          registry_at - clock::now());
        if (shutdown.wait_for(std::max(left, std::chrono::milliseconds{0})))
          return;
        try {
          registry.build();
        } catch (const std::exception&) {
          // The first call that needs it builds it again and says why.
        }
      }} {
  }
  warm_up(const warm_up&) = delete;
  warm_up& operator=(const warm_up&) = delete;
  ~warm_up() {
    thread_.join();
  }

private:
  std::thread thread_;
};

/// HTTP: once the server has been up for `delay` (so that the warm-up does
/// not compete with the listener's start for the cores), on the main
/// thread, which has nothing to do but wait for `shutdown`; not at all if
/// the server stops before.
void warm_up_later(latch& shutdown, const tools::registry& registry,
                   std::chrono::milliseconds delay) {
  if (shutdown.wait_for(delay))
    return;
  registry.build();
  domain::preload_tz_database();
}

/// The journal actor, on its own thread: storage I/O never blocks the
/// scheduler's workers. Invalid with --ephemeral.
actors::journal_actor spawn_journal(caf::actor_system& sys, const config& cfg,
                                    prepared_config& p, bool http) {
  if (!p.client.journal)
    return {};
  actors::journal_config jc;
  jc.open = std::move(p.open_store);
  jc.clock = p.client.clock;
  jc.limits = cfg.tracking;
  // A client's handshake comes first; calls naming a session wait for it.
  jc.open_delay = std::chrono::milliseconds{25};
  actors::set_retention(jc, std::chrono::seconds{cfg.history_retention_s});
  jc.opened_flag = p.journal_open;
  // stdio: a short-lived server that only reads writes nothing (its store
  // registers at its first write, wiring.cpp); one that lives purges.
  if (!http)
    jc.first_purge_delay = std::chrono::seconds{1};
  // HTTP's MCP sessions are kept in the journal (any server answers them)
  // and expire there when idle.
  if (http)
    jc.mcp_idle_timeout = std::chrono::seconds{cfg.session_idle_timeout_s};
  jc.mcp_changes = p.mcp_changes;
  return sys.spawn<caf::detached>(actors::journal_behavior, std::move(jc));
}

/// The actors both modes run; an edge feeds `transport`.
struct graph {
  actors::supervisor_actor supervisor;
  actors::journal_actor journal; ///< invalid with --ephemeral
  actors::transport_actor transport;
};

/// Spawns and wires the graph. `http`: many clients, idle MCP sessions end;
/// stdio: one client. Either way a tracking session in the journal is taken
/// over by the first client of its owner that names it.
/// The journal is told to open (on its own thread, after its open_delay)
/// before any input is read, so that comes first in its mailbox.
graph spawn_graph(caf::actor_system& sys, const config& cfg,
                  prepared_config& p, bool http) {
  graph g;
  auto sup_cfg = make_supervisor_config(cfg, http);
  sup_cfg.clock = p.client.clock;
  sup_cfg.network_transport = p.client.network_transport;
  g.supervisor = sys.spawn(actors::supervisor_behavior, std::move(sup_cfg));
  g.journal = spawn_journal(sys, cfg, p, http);
  actors::transport_config tc;
  tc.client = p.client;
  tc.supervisor = g.supervisor;
  tc.journal = g.journal;
  if (http)
    set_mcp_recheck(tc, p.mcp_changes,
                    std::chrono::seconds{cfg.session_idle_timeout_s});
  g.transport = sys.spawn(actors::transport_behavior, std::move(tc));
  if (g.journal)
    caf::anon_send(g.journal, actors::open_atom::value, g.transport);
  return g;
}

/// The end both modes share once their edge has stopped: the signal thread
/// returns, then every actor is told to exit (~actor_system waits for them).
void stop_graph(const graph& g, std::thread& signals,
                std::atomic<bool>& exiting) {
  exiting = true;
  pthread_kill(signals.native_handle(), SIGUSR1);
  signals.join();
  // A journal call stuck on a PostgreSQL that stopped answering would keep
  // the journal from its exit message (and ~actor_system waiting).
  storage::stop_waiting_for_postgresql();
  caf::anon_send_exit(g.transport, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(g.supervisor, caf::exit_reason::user_shutdown);
  if (g.journal)
    caf::anon_send_exit(g.journal, caf::exit_reason::user_shutdown);
}

/// The cores this process may run on (its affinity mask, which taskset and
/// cpusets narrow): the default number of scheduler threads. CAF's own
/// default is at least 4, and spare threads only add wake-ups.
std::size_t usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return static_cast<std::size_t>(CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

caf::actor_system_config& system_config(caf::actor_system_config& sys_cfg,
                                        const config& cfg) {
  sys_cfg.set("logger.file-verbosity", caf::atom("quiet"));
  sys_cfg.set("logger.console-verbosity", caf::atom("quiet"));
  sys_cfg.set("scheduler.max-threads",
              cfg.worker_threads > 0 ? cfg.worker_threads : usable_cores());
  // An idle worker spins (100 polls), then waits on its condition variable,
  // which a job queued for it signals. CAF's middle phase, 500 polls 50 us
  // apart (~100 ms of wake-ups on a VM after every job), cost a client
  // pacing its calls 10x the server CPU per call and several servers on one
  // directory up to half their calls/s; it bought 2-3 % of stdio's
  // back-to-back calls/s (bench/README.md, "Scheduler settings again").
  sys_cfg.set("work-stealing.moderate-poll-attempts", std::size_t{0});
  return sys_cfg;
}

/// --metrics-listen: a listener serving /metrics only (either mode), or
/// nullptr when not asked for. Throws std::runtime_error when the address
/// cannot be used.
std::unique_ptr<edge::http_edge> metrics_listener(const config& cfg) {
  if (!cfg.metrics_listen)
    return nullptr;
  edge::http_options opts;
  opts.host = cfg.metrics_host;
  opts.port = cfg.metrics_port;
  opts.path = "/metrics"; // for url()
  opts.metrics_only = true;
  opts.max_connections = 64;
  // It never routes to the transport (metrics_only): no actor behind it.
  auto edge = std::make_unique<edge::http_edge>(actors::transport_actor{},
                                                opts);
  edge->start();
  // Tests and scripts read the URL from this line.
  TTM_LOG(info, "main", "serving Prometheus metrics at " + edge->url());
  return edge;
}

int run_stdio(const config& cfg) {
  auto sigs = block_signals();
  std::unique_ptr<edge::http_edge> metrics;
  try {
    metrics = metrics_listener(cfg);
  } catch (const std::exception& e) {
    TTM_LOG(error, "main", std::string{"--metrics-listen: "} + e.what());
    return 1;
  }

  // stdout belongs to the protocol: keep a private duplicate for replies and
  // point fd 1 at stderr, so a stray write anywhere cannot corrupt the stream.
  int out_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (out_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    TTM_LOG(error, "main", std::string{"cannot set up stdout: "}
                             + std::strerror(errno));
    return 1;
  }

  auto prepared = prepare(cfg);
  if (prepared.exit_code != 0)
    return prepared.exit_code;
  const auto& client_cfg = prepared.client;
  const auto& local_zone = client_cfg.local_zone;
  const auto& tzdb_version = prepared.tzdb_version;
  caf::actor_system_config sys_cfg;
  system_config(sys_cfg, cfg);
  // Declared before the actor system: the transport may still call the
  // edge's close callback while the system winds down.
  latch shutdown; // input closed or a signal, whichever comes first
  latch closed;   // the edge's route closed: every reply was written
  latch first_reply; // the first reply (initialize's) is written
  std::atomic<bool> exiting{false};
  warm_up warm{*client_cfg.registry, first_reply, shutdown,
               std::chrono::milliseconds{20}};
  {
    caf::actor_system sys{sys_cfg};
    auto g = spawn_graph(sys, cfg, prepared, false);
    edge::stdio_options stdio_opts;
    stdio_opts.in_fd = STDIN_FILENO;
    stdio_opts.out_fd = out_fd;
    stdio_opts.max_line_bytes = cfg.max_line_bytes;
    stdio_opts.max_in_flight = cfg.max_in_flight;
    stdio_opts.limiter = make_limiter(cfg, client_cfg.clock, false);
    // The tz walk starts now, beside the client's next line. The journal
    // still opens on demand (a call without its zone reads its caller's
    // preferences) or 25 ms after start: a call naming its zone needs none,
    // and opening it for every short-lived process cost CPU for nothing.
    stdio_opts.on_first_reply = [&first_reply] {
      first_reply.set("first reply");
    };
    edge::stdio_edge stdio{g.transport, std::move(stdio_opts),
                           [&] {
                             closed.set("route closed");
                             shutdown.set("end of input");
                           }};
    auto signals = signal_thread(sigs, shutdown, exiting);
    TTM_LOG(info, "main", std::string{"time-tracker-mcp "} + TTM_VERSION
                            + " serving MCP on stdio; local zone "
                            + local_zone + ", tz database " + tzdb_version
                            + "; " + prepared.journal_summary);
    stdio.start();
    auto reason = shutdown.wait();
    TTM_LOG(info, "main", std::string{"shutting down: "} + reason);
    // Stop reading; replies in flight are still written, within
    // --drain-timeout but 5 s at most: a stdio client that stopped reading
    // stdout is not coming back.
    stdio.stop();
    auto drain = std::min<std::size_t>(cfg.drain_timeout_s, 5);
    if (!closed.wait_for(std::chrono::seconds{drain})) {
      TTM_LOG(warning, "main",
              "requests in flight or replies unread after "
                + std::to_string(drain)
                + " s; dropping the rest");
      stdio.abandon_output();
      closed.wait_for(std::chrono::seconds{1});
    }
    stop_graph(g, signals, exiting);
  } // ~actor_system waits for every actor
  ::close(out_fd);
  return 0;
}

/// systemd (Type=notify) hears when the journal opens, which READY=1 waits
/// for, or why it cannot yet; an --ephemeral server has none to wait for.
void notify_journal(prepared_config& p,
                    const std::shared_ptr<edge::service_notifier>& notifier) {
  if (!notifier->enabled())
    return;
  if (!p.client.journal) {
    notifier->journal("");
    return;
  }
  p.open_store = [open = std::move(p.open_store), notifier,
                  flag = p.journal_open] {
    auto opened = open();
    auto* err = std::get_if<storage::error>(&opened);
    // /readyz reads the flag: set it before READY=1 goes out, or a probe
    // sent at READY can still find the journal "not open" (the journal
    // actor sets it too, but only once this returns).
    if (!err && flag)
      *flag = true;
    notifier->journal(err ? "the session journal is unavailable: "
                              + err->message
                          : "");
    return opened;
  };
}

bool is_loopback(const std::string& host) {
  return host.rfind("127.", 0) == 0 || host == "::1";
}

/// Lets the process hold --max-connections sockets: the soft descriptor
/// limit (often 1024) goes up to the hard one.
void raise_descriptor_limit(std::size_t max_connections) {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0)
    return;
  if (rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &rl);
    ::getrlimit(RLIMIT_NOFILE, &rl);
  }
  // Some descriptors go to stdio, the actors and the listening socket.
  if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < max_connections + 64)
    TTM_LOG(warning, "main",
            "the descriptor limit (" + std::to_string(rl.rlim_cur)
              + ") is below --max-connections ("
              + std::to_string(max_connections)
              + ") + 64: connections beyond it fail to be accepted");
}

int run_http(const config& cfg) {
  auto sigs = block_signals();
  raise_descriptor_limit(cfg.max_connections);
  std::unique_ptr<edge::http_edge> metrics;
  try {
    metrics = metrics_listener(cfg);
  } catch (const std::exception& e) {
    TTM_LOG(error, "main", std::string{"--metrics-listen: "} + e.what());
    return 1;
  }
  auto prepared = prepare(cfg);
  if (prepared.exit_code != 0)
    return prepared.exit_code;
  // libsystemd loads on first use (lazy_libs.hpp); under systemd
  // (NOTIFY_SOCKET) now, so that a machine without it fails here.
  if (const char* sock = std::getenv("NOTIFY_SOCKET"); sock && *sock) {
    if (auto err = lazy::load(lazy::library::systemd); !err.empty()) {
      TTM_LOG(error, "main", err);
      return 1;
    }
  }
  auto notifier = std::make_shared<edge::service_notifier>();
  notify_journal(prepared, notifier);
  const auto& client_cfg = prepared.client;
  const auto& local_zone = client_cfg.local_zone;
  const auto& tzdb_version = prepared.tzdb_version;
  caf::actor_system_config sys_cfg;
  system_config(sys_cfg, cfg);

  edge::http_options opts;
  opts.host = cfg.listen_host;
  opts.port = cfg.listen_port;
  opts.path = cfg.http_path;
  opts.max_body_bytes = cfg.max_body_bytes;
  opts.allowed_hosts = cfg.allowed_hosts;
  opts.allowed_origins = cfg.allowed_origins;
  opts.auth_tokens = cfg.auth_tokens;
  opts.auth_principals = cfg.auth_principals;
  opts.idle_timeout = std::chrono::seconds{cfg.keep_alive_timeout_s};
  opts.read_timeout = std::chrono::seconds{cfg.read_timeout_s};
  opts.header_timeout = std::chrono::seconds{cfg.header_timeout_s};
  opts.write_timeout = std::chrono::seconds{cfg.write_timeout_s};
  opts.threads = cfg.http_threads;
  opts.max_connections = cfg.max_connections;
  opts.limiter = make_limiter(cfg, prepared.client.clock, true);
  std::string oauth_error;
  opts.oauth = make_oauth(cfg, prepared.client, oauth_error);
  if (!oauth_error.empty()) {
    TTM_LOG(error, "main", oauth_error);
    return 2;
  }
  // The tools' "x-mcp-header" arguments, for the Mcp-Param-* checks.
  opts.mirrored = [reg = prepared.client.registry](std::string_view tool) {
    return reg ? reg->mirrored_params(tool) : nullptr;
  };
  if (prepared.client.journal || opts.oauth)
    opts.unready = [open = prepared.client.journal ? prepared.journal_open
                                                   : nullptr,
                    oauth = opts.oauth]() -> std::string {
      if (open && !*open)
        return "the session journal is not open";
      // OAuth without signing keys (and without introspection) can accept
      // no token but a static one: not ready (docs/architecture.md).
      return oauth ? oauth->unready() : std::string{};
    };

  latch shutdown;
  std::atomic<bool> exiting{false};
  int rc = 0;
  // Outlives the actor system: until the transport has terminated it may
  // hold reply sinks that point into the edge's connections.
  std::unique_ptr<edge::http_edge> http;
  {
    caf::actor_system sys{sys_cfg};
    auto g = spawn_graph(sys, cfg, prepared, true);
    edge::spawn_watchdog(sys, g.supervisor, notifier);
    http = std::make_unique<edge::http_edge>(g.transport, opts);
    auto signals = signal_thread(sigs, shutdown, exiting);
    try {
      http->start();
    } catch (const std::exception& e) {
      TTM_LOG(error, "main", e.what());
      shutdown.set("start-up failed");
      rc = 1;
    }
    if (rc == 0) {
      // Tests and scripts read the URL from this line.
      TTM_LOG(info, "main", std::string{"time-tracker-mcp "} + TTM_VERSION
                              + " serving MCP over HTTP at " + http->url()
                              + "; local zone " + local_zone
                              + ", tz database " + tzdb_version + "; "
                              + prepared.journal_summary);
      if (!is_loopback(cfg.listen_host) && cfg.auth_tokens.empty()
          && !opts.oauth)
        TTM_LOG(warning, "main", "listening beyond loopback without "
                                 "--auth-token-file: anyone who can reach "
                                 "this port can use the server");
      notifier->listening(http->url());
    }
    if (rc == 0)
      warm_up_later(shutdown, *client_cfg.registry,
                    std::chrono::milliseconds{20});
    auto reason = shutdown.wait();
    notifier->stopping(reason);
    if (rc == 0) {
      // Logged once idle connections are closed and probes get 503: tests
      // and scripts wait for this line.
      http->begin_drain(std::chrono::seconds{cfg.drain_timeout_s});
      TTM_LOG(info, "main", std::string{"shutting down: "} + reason
                              + "; finishing requests in flight");
      if (!http->drain(std::chrono::seconds{cfg.drain_timeout_s})) {
        TTM_LOG(warning, "main", "requests still in flight after "
                                   + std::to_string(cfg.drain_timeout_s)
                                   + " s (--drain-timeout); closing them");
        rc = 1; // not a clean stop: a service manager should know
      } else {
        TTM_LOG(info, "main", "drained: every request in flight answered");
      }
    }
    http->stop();
    stop_graph(g, signals, exiting);
  } // ~actor_system waits for every actor
  http.reset();
  return rc;
}

} // namespace

int main(int argc, char** argv) {
  // A statistics call over a month of history builds ~40 MB of short-lived
  // values; glibc's defaults hand them back to the kernel after each call
  // and the next one faults them in again (a third of its time, measured).
  // Keep up to 64 MiB of freed heap; larger blocks still come from mmap.
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  std::vector<std::string> args(argv + 1, argv + argc);
  auto getenv = [](const char* name) {
    return static_cast<const char*>(std::getenv(name));
  };
  // The admin commands (sessions, audit, check, backup, export, import)
  // before the server's options: they have their own.
  if (!args.empty() && ttm::admin::is_command(args.front())) {
    ttm::log::set_threshold(ttm::log::level::warning);
    return ttm::admin::run(args, std::cout, std::cerr, getenv);
  }
  auto res = ttm::load_config(args, getenv);
  if (!res.cfg) {
    // Help and version go to stdout: no protocol is running yet.
    std::fputs(res.text.c_str(), res.text_is_error ? stderr : stdout);
    if (res.text_is_error)
      std::fputc('\n', stderr);
    return res.exit_code;
  }
  ttm::log::set_threshold(res.cfg->log_level);
  ttm::log::set_format(res.cfg->log_format);
  for (const auto& w : ttm::tools::toolsets_warnings(res.cfg->toolsets))
    TTM_LOG(warning, "main", w);
  int rc = res.cfg->mode == "http" ? run_http(*res.cfg) : run_stdio(*res.cfg);
  ttm::log::flush(); // the completion lines still batched
  return rc;
}
