#include "runner.hpp"

#include "channel.hpp"
#include "client.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

namespace ttb {

namespace net = boost::asio;

namespace {

/// Counts down arrivals from the bench threads; the main thread waits.
class latch {
public:
  explicit latch(std::size_t n) : n_(n) {
  }
  void arrive() {
    std::lock_guard<std::mutex> g{mtx_};
    if (--n_ == 0)
      cv_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> g{mtx_};
    cv_.wait(g, [&] { return n_ == 0; });
  }

private:
  std::mutex mtx_;
  std::condition_variable cv_;
  std::size_t n_;
};

struct worker {
  explicit worker(error_log& errors)
    : guard(net::make_work_guard(ioc)), state(ioc, errors) {
  }
  net::io_context ioc;
  net::executor_work_guard<net::io_context::executor_type> guard;
  worker_state state;
  std::thread thread;
};

struct client_slot {
  worker* w;
  std::shared_ptr<vclient> client;
};

/// Starts `f(client, index, done)` for every client on its thread; wait()
/// returns once every one called `done`.
class phase {
public:
  template <class F>
  phase(std::vector<client_slot>& clients, F f) : latch_(clients.size()) {
    for (std::size_t i = 0; i < clients.size(); ++i)
      net::post(clients[i].w->ioc, [this, f, i, client = clients[i].client] {
        f(*client, i, [this] { latch_.arrive(); });
      });
  }
  void wait() {
    latch_.wait();
  }

private:
  latch latch_;
};

/// Runs a phase to its end.
template <class F>
void run_phase(std::vector<client_slot>& clients, F f) {
  phase{clients, std::move(f)}.wait();
}

bool any_broken(const std::vector<client_slot>& clients) {
  for (const auto& c : clients)
    if (c.client->broken())
      return true;
  return false;
}

double seconds(clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

} // namespace

run_result run(const options& opts, error_log& errors, ack_log* acks) {
  run_result result{errors};
  run_config cfg{opts};
  cfg.acks = acks;
  run_control ctl;

  unsigned threads = opts.memory_mode() ? 1 : opts.threads;
  std::vector<std::unique_ptr<worker>> workers;
  for (unsigned i = 0; i < threads; ++i)
    workers.push_back(std::make_unique<worker>(errors));

  // -- the target
  std::shared_ptr<const http_target> target;
  std::shared_ptr<const http_endpoints> endpoints;
  std::shared_ptr<process_channel> server; // stdio: the shared server
  if (opts.stdio()) {
    if (opts.kind != scenario::handshake) {
      std::string error;
      server = spawn_stdio_server(workers[0]->ioc, cfg.spawn, error);
      if (!server) {
        errors.add("spawn", error);
        result.aborted = true;
        return result;
      }
      result.server_pid = server->pid();
    }
  } else {
    auto t = std::make_shared<http_target>();
    std::string error;
    if (!parse_url(opts.url, *t, error)) {
      errors.add("--url", error);
      result.aborted = true;
      return result;
    }
    t->headers = opts.headers;
    t->timeout_ns = opts.timeout.count();
    endpoints = resolve(*t, error);
    if (!endpoints) {
      errors.add("--url", error);
      result.aborted = true;
      return result;
    }
    target = std::move(t);
    cfg.target = target;
    cfg.endpoints = endpoints;
    result.server_pid = opts.server_pid;
  }
  auto sample = [&] { return sample_process(result.server_pid); };
  if (!opts.stdio())
    result.start = sample();

  // -- the clients
  std::vector<client_slot> clients;
  for (std::size_t i = 0; i < opts.clients; ++i) {
    auto* w = workers[i % threads].get();
    std::shared_ptr<channel> ch;
    bool owns = false;
    if (opts.stdio()) {
      ch = server;
      owns = i == 0 && server != nullptr;
    } else {
      ch = make_http_channel(w->ioc, target, endpoints);
      owns = opts.kind != scenario::handshake;
    }
    clients.push_back({w, std::make_shared<vclient>(w->state, cfg, ctl, ch,
                                                    i, owns)});
  }
  for (auto& w : workers)
    w->thread = std::thread([io = &w->ioc] { io->run(); });

  // Memory modes: RSS after a phase, and each client's share of a total.
  auto rss = [&](const char* name) {
    auto s = sample();
    result.phases.emplace_back(name, s ? s->rss_kib : -1);
    return s;
  };
  auto share = [n = clients.size(), total = opts.sessions](std::size_t i) {
    return total / n + (i < total % n ? 1 : 0);
  };

  auto t0 = clock::now();
  run_phase(clients, [](vclient& c, std::size_t, auto done) { c.setup(done); });
  if (any_broken(clients)) {
    result.aborted = true;
  } else if (!opts.memory_mode()) {
    // -- the load
    result.before = sample();
    auto now = clock::now();
    ctl.start = now;
    ctl.warmup_end = now + opts.warmup;
    if (opts.run_for)
      ctl.deadline = ctl.warmup_end + *opts.run_for;
    if (opts.requests)
      ctl.budget = static_cast<std::int64_t>(*opts.requests);
    if (opts.open_loop())
      ctl.interval = nanos{static_cast<std::int64_t>(
        1e9 * static_cast<double>(opts.clients) / opts.rate)};
    phase load{clients,
               [](vclient& c, std::size_t, auto done) { c.run(done); }};
    // The server's CPU time is counted from the end of the warm-up.
    std::this_thread::sleep_until(ctl.warmup_end);
    result.window_start = sample();
    auto window_start = clock::now();
    double bench_cpu = own_cpu_seconds();
    load.wait();
    auto end = clock::now();
    // Up to the last reply: an overloaded open-loop run drains its backlog
    // past the deadline, and those replies count.
    result.window_s = seconds(end - ctl.warmup_end);
    result.after = sample();
    result.sampled_s = seconds(clock::now() - window_start);
    result.bench_cpu_s = own_cpu_seconds() - bench_cpu;
  } else if (opts.kind == scenario::idle_sessions) {
    // Every connection holds one session already (its set-up): the
    // connections' own memory is in the baseline.
    result.before = rss("baseline");
    run_phase(clients, [&](vclient& c, std::size_t i, auto done) {
      c.open_idle_sessions(share(i), done);
    });
    auto open = rss("open");
    std::size_t opened = 0; // the threads are idle now
    for (const auto& c : clients)
      opened += c.client->idle_sessions();
    run_phase(clients, [](vclient& c, std::size_t, auto done) {
      c.close_idle_sessions(done);
    });
    result.after = rss("deleted");
    result.per_unit.emplace_back("sessions_opened",
                                 static_cast<double>(opened));
    if (result.before && open && opened > 0)
      result.per_unit.emplace_back(
        "bytes_per_session",
        static_cast<double>(open->rss_kib - result.before->rss_kib) * 1024.0
          / static_cast<double>(opened));
    result.window_s = seconds(clock::now() - t0);
  } else {
    // fill-tracking
    result.before = rss("baseline");
    auto step = [&](vclient::fill_step s) {
      run_phase(clients, [&](vclient& c, std::size_t i, auto done) {
        c.fill(s, share(i), done);
      });
    };
    step(vclient::fill_step::start);
    auto started = rss("sessions_started");
    step(vclient::fill_step::tasks);
    auto ran = rss("tasks_run");
    step(vclient::fill_step::summary);
    rss("summarized");
    step(vclient::fill_step::end);
    result.after = rss("sessions_ended");
    double sessions = static_cast<double>(opts.sessions);
    double tasks = sessions * static_cast<double>(opts.tasks);
    if (result.before && started && ran) {
      double base = static_cast<double>(result.before->rss_kib) * 1024.0;
      double s1 = static_cast<double>(started->rss_kib) * 1024.0;
      double s2 = static_cast<double>(ran->rss_kib) * 1024.0;
      result.per_unit.emplace_back("bytes_per_tracking_session",
                                   (s2 - base) / sessions);
      result.per_unit.emplace_back("bytes_per_task", (s2 - base) / tasks);
      result.per_unit.emplace_back("bytes_per_started_session",
                                   (s1 - base) / sessions);
      result.per_unit.emplace_back("bytes_per_task_run", (s2 - s1) / tasks);
    }
    result.window_s = seconds(clock::now() - t0);
  }

  run_phase(clients,
            [](vclient& c, std::size_t, auto done) { c.cleanup(done); });
  if (opts.kind == scenario::fill_tracking && !opts.stdio()
      && cfg.builder.needs_initialize())
    rss("mcp_sessions_deleted");

  // -- the stdio server ends with its input
  if (server) {
    latch l{1};
    net::post(workers[0]->ioc, [&] {
      server->finish([&](std::string error) {
        if (!error.empty())
          workers[0]->state.stats.error("server exit", error, false);
        l.arrive();
      });
    });
    l.wait();
  }

  // Nothing should be pending now: let each thread's run() return on its
  // own, and stop the stragglers after a second.
  for (auto& w : workers)
    w->guard.reset();
  auto limit = clock::now() + std::chrono::seconds{1};
  for (auto& w : workers) {
    while (!w->ioc.stopped() && clock::now() < limit)
      std::this_thread::sleep_for(std::chrono::milliseconds{1});
    w->ioc.stop();
    w->thread.join();
  }
  for (auto& w : workers)
    result.stats.merge(w->state.stats);
  clients.clear();
  server.reset();
  return result;
}

} // namespace ttb
