#include "client.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

namespace ttb {

namespace net = boost::asio;

namespace {

constexpr const char* start_label = "tools/call time_session_start";
constexpr const char* task_start_label = "tools/call time_task_start";
constexpr const char* task_end_label = "tools/call time_task_end";
constexpr const char* summary_label = "tools/call time_session_summary";
constexpr const char* end_label = "tools/call time_session_end";
constexpr const char* report_label = "tools/call time_session_report";

/// Checks an integer member when the server sends it.
std::string expect_int(const rapidjson::Value& p, const char* name,
                       std::int64_t want) {
  auto it = p.FindMember(name);
  if (it == p.MemberEnd())
    return {};
  if (!it->value.IsInt64() || it->value.GetInt64() != want)
    return std::string{name} + " is not " + std::to_string(want);
  return {};
}

std::uint64_t mix_seed(std::uint64_t seed, std::size_t index) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (z ^ (z >> 31)) | 1;
}

} // namespace

run_config::run_config(const options& o)
  : opts(o),
    builder(o.protocol_version),
    tool_label("tools/call " + o.tool),
    tool_want(o.expect == expectation::ok           ? mcp::want::tool_ok
              : o.expect == expectation::tool_error ? mcp::want::tool_error
                                                    : mcp::want::rpc_error),
    tasks(mcp::task_ids(o.tasks)),
    start_args(mcp::request_builder::session_start_args("M2", tasks)) {
  for (const auto& m : o.mix)
    mix_total += m.weight;
  spawn.command = o.command;
  spawn.server_log = o.server_log;
  spawn.timeout_ns = o.timeout.count();
}

vclient::vclient(worker_state& w, const run_config& cfg, run_control& ctl,
                 std::shared_ptr<channel> ch, std::size_t index,
                 bool owns_session)
  : w_(w),
    cfg_(cfg),
    ctl_(ctl),
    ch_(std::move(ch)),
    index_(index),
    owns_session_(owns_session),
    timer_(w.ioc),
    rng_(mix_seed(cfg.opts.seed, index)) {
}

outgoing vclient::request(outgoing m) const {
  m.session = session_;
  return m;
}

outgoing vclient::initialized(const std::string& session) const {
  auto m = cfg_.builder.initialized();
  m.session = session;
  return m;
}

// -- the exchange machinery ---------------------------------------------------

void vclient::schedule(action_fn action) {
  if (broken_)
    return finish_run();
  clock::time_point intended;
  auto now = clock::now();
  if (ctl_.interval.count() > 0) {
    intended = next_slot_;
    next_slot_ += ctl_.interval;
  } else {
    intended = now;
  }
  if (intended >= ctl_.deadline)
    return finish_run();
  bool measured = intended >= ctl_.warmup_end;
  if (measured && ctl_.budget.fetch_sub(1) <= 0)
    return finish_run();
  if (intended > now) {
    timer_.expires_at(intended);
    timer_.async_wait([self = shared_from_this(), intended, measured,
                       action = std::move(action)](
                        boost::system::error_code ec) {
      if (!ec) // cancelled: the run ended
        action(intended, measured);
    });
    return;
  }
  action(intended, measured);
}

void vclient::exchange(std::string label, outgoing msg, mcp::want want,
                       clock::time_point intended, bool measured,
                       check_fn check, next_fn next, channel* via) {
  auto id = msg.id;
  bool main_session = !session_.empty() && msg.session == session_;
  intended_ = intended;
  measured_ = measured;
  channel& ch = via ? *via : *ch_;
  if (measured && ctl_.interval.count() > 0)
    w_.stats.record_send_lag(static_cast<std::uint64_t>(
      std::chrono::duration_cast<nanos>(clock::now() - intended).count()));
  ch.send(std::move(msg), [self = shared_from_this(), label = std::move(label),
                           id, want, intended, measured, main_session,
                           check = std::move(check),
                           next = std::move(next)](incoming in) {
    auto done_at = clock::now();
    std::string error;
    auto doc = mcp::check_reply(in, id, want, error,
                                self->cfg_.builder.era());
    if (error.empty() && check && doc) {
      rapidjson::Document scratch;
      const auto* payload = mcp::tool_payload(*doc, scratch);
      error = payload ? check(*payload)
                      : "the tool result has neither structuredContent nor "
                        "JSON text content";
    }
    if (!in.transport_error.empty()) {
      if (++self->transport_failures_ >= 3)
        self->broken_ = true;
    } else {
      self->transport_failures_ = 0;
    }
    if (in.status == 404 && main_session)
      self->need_session_ = true;
    auto& stats = self->w_.stats;
    if (!error.empty()) {
      stats.error(label, error, measured);
      next(false, doc, in);
      return;
    }
    if (measured)
      stats.record(label, static_cast<std::uint64_t>(
                            std::chrono::duration_cast<nanos>(done_at
                                                              - intended)
                              .count()));
    next(true, doc, in);
  });
}

void vclient::call(std::string label, outgoing msg, mcp::want want,
                   check_fn check, next_fn next, channel* via) {
  schedule([self = shared_from_this(), label = std::move(label),
            msg = std::move(msg), want, check = std::move(check),
            next = std::move(next), via](clock::time_point intended,
                                         bool measured) mutable {
    self->exchange(std::move(label), std::move(msg), want, intended, measured,
                   std::move(check), std::move(next), via);
  });
}

// -- set-up, run, clean-up ----------------------------------------------------

void vclient::setup(done_fn done) {
  if (!owns_session_ || !cfg_.builder.needs_initialize()
      || cfg_.opts.raw_post)
    return done();
  auto id = next_id();
  auto msg = request(cfg_.builder.initialize(id));
  msg.session.clear();
  exchange("initialize", std::move(msg), mcp::want::result, clock::now(),
           false, nullptr,
           [self = shared_from_this(), done](bool ok, const mcp::document_ptr&,
                                             const incoming& in) {
             if (!ok) {
               self->broken_ = true;
               return done();
             }
             self->session_ = in.session;
             self->need_session_ = false;
             self->exchange(
               "notifications/initialized",
               self->initialized(self->session_),
               mcp::want::notification, clock::now(), false, nullptr,
               [self, done](bool ok2, const mcp::document_ptr&,
                            const incoming&) {
                 if (!ok2)
                   self->broken_ = true;
                 done();
               });
           });
}

void vclient::run(done_fn done) {
  on_done_ = std::move(done);
  if (ctl_.interval.count() > 0) {
    // Spread the clients' schedules evenly over one interval.
    auto clients = static_cast<std::int64_t>(cfg_.opts.clients);
    next_slot_ = ctl_.start
                 + nanos{ctl_.interval.count()
                         * static_cast<std::int64_t>(index_) / clients};
  }
  iterate();
}

void vclient::finish_run() {
  timer_.cancel();
  if (auto done = std::move(on_done_)) {
    on_done_ = nullptr;
    net::post(w_.ioc, std::move(done));
  }
}

void vclient::cleanup(done_fn done) {
  hs_channel_.reset();
  if (hs_proc_) {
    // A stdio handshake cut short by the end of the run.
    auto proc = std::move(hs_proc_);
    proc->finish([self = shared_from_this(), proc, done](std::string) {
      self->cleanup(done);
    });
    return;
  }
  if (cfg_.opts.stdio() || session_.empty())
    return done();
  auto m = cfg_.builder.end_session(session_);
  exchange("DELETE (clean-up)", std::move(m), mcp::want::session_end,
           clock::now(), false, nullptr,
           [self = shared_from_this(), done](bool, const mcp::document_ptr&,
                                             const incoming&) {
             self->session_.clear();
             done();
           });
}

scenario vclient::pick() {
  if (cfg_.opts.kind != scenario::mixed)
    return cfg_.opts.kind;
  // xorshift64*
  rng_ ^= rng_ >> 12;
  rng_ ^= rng_ << 25;
  rng_ ^= rng_ >> 27;
  auto r = (rng_ * 0x2545F4914F6CDD1DULL) >> 11;
  auto x = static_cast<unsigned>(r % cfg_.mix_total);
  for (const auto& m : cfg_.opts.mix) {
    if (x < m.weight)
      return m.kind;
    x -= m.weight;
  }
  return cfg_.opts.mix.back().kind;
}

void vclient::iterate() {
  if (broken_)
    return finish_run();
  auto s = pick();
  if (need_session_ && s != scenario::handshake && owns_session_) {
    // The server forgot our session (404): open a new one, not measured.
    return setup([self = shared_from_this()] {
      if (self->need_session_)
        self->broken_ = true;
      net::post(self->w_.ioc, [self] { self->iterate(); });
    });
  }
  switch (s) {
    case scenario::get_current:
      return get_current();
    case scenario::ping:
      return ping();
    case scenario::workflow:
      return workflow_start();
    case scenario::workflow_edits:
      return edits_start();
    case scenario::handshake:
      if (cfg_.opts.stdio())
        return handshake_stdio();
      return cfg_.builder.modern() ? handshake_http_modern()
                                   : handshake_http();
    default:
      return finish_run();
  }
}

void vclient::iteration_done(const char* name, bool ok) {
  if (ok && iter_measured_)
    w_.stats.record(name, static_cast<std::uint64_t>(
                            std::chrono::duration_cast<nanos>(clock::now()
                                                              - iter_start_)
                              .count()));
  iterate();
}

void vclient::acknowledge(const char* tool, const std::string& session,
                          std::string_view task,
                          const mcp::document_ptr& doc) {
  if (!cfg_.acks)
    return;
  std::string_view status;
  rapidjson::Document scratch;
  if (const auto* p = doc ? mcp::tool_payload(*doc, scratch) : nullptr) {
    for (const char* flag : {"already_running", "already_ended"}) {
      auto it = p->FindMember(flag);
      if (it != p->MemberEnd() && it->value.IsBool() && it->value.GetBool())
        return; // a repeated call: nothing changed
    }
    if (std::string_view{tool} == "time_task_end")
      if (const char* s = mcp::string_member(*p, "status"))
        status = s;
  }
  cfg_.acks->add(tool, session, task, status);
}

// -- scenarios ----------------------------------------------------------------

outgoing vclient::scenario_call(const std::string& session) {
  auto id = next_id();
  auto m = request(cfg_.builder.tools_call(id, cfg_.opts.tool, cfg_.opts.args));
  m.session = session;
  return m;
}

void vclient::get_current() {
  call(cfg_.tool_label, scenario_call(session_), cfg_.tool_want, nullptr,
       [self = shared_from_this()](bool, const mcp::document_ptr&,
                                   const incoming&) { self->iterate(); });
}

void vclient::ping() {
  auto id = next_id();
  call(cfg_.builder.ping_method(), request(cfg_.builder.ping(id)),
       mcp::want::result, nullptr,
       [self = shared_from_this()](bool, const mcp::document_ptr&,
                                   const incoming&) { self->iterate(); });
}

void vclient::workflow_start() {
  auto id = next_id();
  call(start_label,
       request(cfg_.builder.tools_call(id, "time_session_start",
                                       cfg_.start_args)),
       mcp::want::tool_ok,
       [self = shared_from_this()](const rapidjson::Value& p) -> std::string {
         const char* sid = mcp::string_member(p, "session_id");
         if (!sid || !*sid)
           return "no session_id in the result";
         self->sid_ = sid;
         return expect_int(p, "task_count",
                           static_cast<std::int64_t>(self->cfg_.tasks.size()));
       },
       [self = shared_from_this()](bool ok, const mcp::document_ptr& doc,
                                   const incoming&) {
         if (!ok)
           return self->iterate();
         self->acknowledge("time_session_start", self->sid_, {}, doc);
         self->iter_name_ = "[workflow]";
         self->iter_start_ = self->intended_;
         self->iter_measured_ = self->measured_;
         self->task_ = 0;
         if (self->cfg_.tasks.empty())
           return self->workflow_close(false);
         self->workflow_task(true);
       });
}

void vclient::workflow_task(bool start) {
  auto id = next_id();
  const auto& task = cfg_.tasks[task_];
  call(start ? task_start_label : task_end_label,
       request(cfg_.builder.tools_call(
                 id, start ? "time_task_start" : "time_task_end",
                 mcp::request_builder::task_args(sid_, task))),
       mcp::want::tool_ok,
       [start, &task](const rapidjson::Value& p) -> std::string {
         const char* got = mcp::string_member(p, "task_id");
         if (!got || task != got)
           return "task_id is not " + task;
         if (start) {
           auto it = p.FindMember("already_running");
           if (it != p.MemberEnd() && it->value.IsBool()
               && it->value.GetBool())
             return "already_running is true for a task never started";
         } else {
           const char* status = mcp::string_member(p, "status");
           if (status && std::string_view{status} != "completed")
             return std::string{"status is "} + status + ", not completed";
         }
         return {};
       },
       [self = shared_from_this(), start](bool ok,
                                          const mcp::document_ptr& doc,
                                          const incoming&) {
         if (!ok)
           return self->iterate();
         self->acknowledge(start ? "time_task_start" : "time_task_end",
                           self->sid_, self->cfg_.tasks[self->task_], doc);
         if (start)
           return self->workflow_task(false);
         if (++self->task_ < self->cfg_.tasks.size())
           return self->workflow_task(true);
         self->closes_left_ = self->cfg_.opts.summaries;
         if (!self->cfg_.opts.report_format.empty())
           return self->workflow_report();
         self->workflow_close(false);
       });
}

void vclient::workflow_report() {
  auto id = next_id();
  call(report_label,
       request(cfg_.builder.tools_call(
                 id, "time_session_report",
                 mcp::request_builder::report_args(
                   sid_, cfg_.opts.report_format))),
       mcp::want::tool_ok,
       [self = shared_from_this()](const rapidjson::Value& p) -> std::string {
         const char* sid = mcp::string_member(p, "session_id");
         if (sid && self->sid_ != sid)
           return "session_id is not the session's";
         return {};
       },
       [self = shared_from_this()](bool ok, const mcp::document_ptr&,
                                   const incoming&) {
         if (!ok)
           return self->iterate();
         self->workflow_close(false);
       });
}

void vclient::workflow_close(bool end) {
  // Summary, then end: both report every task completed.
  auto id = next_id();
  auto k = static_cast<std::int64_t>(cfg_.tasks.size());
  call(end ? end_label : summary_label,
       request(cfg_.builder.tools_call(
                 id, end ? "time_session_end" : "time_session_summary",
                 mcp::request_builder::session_args(sid_))),
       mcp::want::tool_ok,
       [k](const rapidjson::Value& p) {
         return expect_int(p, "tasks_completed", k);
       },
       [self = shared_from_this(), end](bool ok, const mcp::document_ptr& doc,
                                        const incoming&) {
         if (end) {
           if (ok)
             self->acknowledge("time_session_end", self->sid_, {}, doc);
           return self->iteration_done(self->iter_name_, ok);
         }
         if (!ok)
           return self->iterate();
         // --summaries N: the report and the summary again, then the end.
         if (self->closes_left_ > 1) {
           --self->closes_left_;
           if (!self->cfg_.opts.report_format.empty())
             return self->workflow_report();
           return self->workflow_close(false);
         }
         self->workflow_close(true);
       });
}

void vclient::handshake_http() {
  auto id = next_id();
  auto msg = request(cfg_.builder.initialize(id));
  msg.session.clear();
  call("initialize", std::move(msg), mcp::want::result, nullptr,
       [self = shared_from_this()](bool ok, const mcp::document_ptr&,
                                   const incoming& in) {
         if (!ok)
           return self->iterate();
         self->iter_start_ = self->intended_;
         self->iter_measured_ = self->measured_;
         self->hs_session_ = in.session;
         self->call(
           "notifications/initialized",
           self->initialized(self->hs_session_),
           mcp::want::notification, nullptr,
           [self](bool ok2, const mcp::document_ptr&, const incoming&) {
             if (!ok2)
               return self->handshake_http_delete(false);
             self->call(self->cfg_.tool_label,
                        self->scenario_call(self->hs_session_),
                        self->cfg_.tool_want, nullptr,
                        [self](bool ok3, const mcp::document_ptr&,
                               const incoming&) {
                          self->handshake_http_delete(ok3);
                        });
           });
       });
}

void vclient::handshake_http_delete(bool ok) {
  if (hs_session_.empty()) // a server without sessions: nothing to end
    return iteration_done("[handshake]", ok);
  auto m = cfg_.builder.end_session(hs_session_);
  hs_session_.clear();
  if (!ok) {
    // Still end the session, unmeasured, so that failures leak nothing.
    return exchange("DELETE", std::move(m), mcp::want::session_end,
                    clock::now(), false, nullptr,
                    [self = shared_from_this()](bool, const mcp::document_ptr&,
                                                const incoming&) {
                      self->iterate();
                    });
  }
  call("DELETE", std::move(m), mcp::want::session_end, nullptr,
       [self = shared_from_this()](bool ok2, const mcp::document_ptr&,
                                   const incoming&) {
         self->iteration_done("[handshake]", ok2);
       });
}

void vclient::handshake_stdio() {
  // Over stdio a handshake is a new server process: spawn, initialize,
  // initialized (modern: server/discover), one call, then end of input and
  // the process's exit.
  schedule([self = shared_from_this()](clock::time_point intended,
                                       bool measured) {
    bool modern = self->cfg_.builder.modern();
    const char* first = modern ? "server/discover (spawn)"
                               : "initialize (spawn)";
    self->iter_start_ = intended;
    self->iter_measured_ = measured;
    std::string error;
    self->hs_proc_ = spawn_stdio_server(self->w_.ioc, self->cfg_.spawn, error);
    if (!self->hs_proc_) {
      self->w_.stats.error(first, error, measured);
      self->broken_ = true;
      return self->iterate();
    }
    auto id = self->next_id();
    auto msg = self->request(modern ? self->cfg_.builder.discover(id)
                                    : self->cfg_.builder.initialize(id));
    auto* proc = self->hs_proc_.get();
    self->exchange(
      first, std::move(msg), mcp::want::result, intended, measured, nullptr,
      [self, proc, modern](bool ok, const mcp::document_ptr&,
                           const incoming&) {
        auto finish = [self](bool all_ok) {
          self->schedule([self, all_ok](clock::time_point t, bool m) {
            self->hs_proc_->finish([self, all_ok, t, m](std::string err) {
              self->hs_proc_.reset();
              bool fine = all_ok && err.empty();
              if (!err.empty())
                self->w_.stats.error("exit (stdin closed)", err, m);
              else if (m)
                self->w_.stats.record(
                  "exit (stdin closed)",
                  static_cast<std::uint64_t>(
                    std::chrono::duration_cast<nanos>(clock::now() - t)
                      .count()));
              self->iteration_done("[handshake]", fine);
            });
          });
        };
        if (!ok)
          return finish(false);
        auto one_call = [self, proc, finish] {
          self->call(self->cfg_.tool_label, self->scenario_call({}),
                     self->cfg_.tool_want, nullptr,
                     [finish](bool ok3, const mcp::document_ptr&,
                              const incoming&) { finish(ok3); },
                     proc);
        };
        if (modern)
          return one_call();
        self->call(
          "notifications/initialized", self->initialized({}),
          mcp::want::notification, nullptr,
          [finish, one_call](bool ok2, const mcp::document_ptr&,
                             const incoming&) {
            if (!ok2)
              return finish(false);
            one_call();
          },
          proc);
      },
      proc);
  });
}

void vclient::handshake_http_modern() {
  // 2026-07-28 has no session to open: a new client is a new connection
  // (its connect is in the first reply's latency), server/discover, one
  // call; then the connection is closed.
  schedule([self = shared_from_this()](clock::time_point intended,
                                       bool measured) {
    self->iter_start_ = intended;
    self->iter_measured_ = measured;
    self->hs_channel_ = make_http_channel(self->w_.ioc, self->cfg_.target,
                                          self->cfg_.endpoints);
    auto* ch = self->hs_channel_.get();
    auto id = self->next_id();
    self->exchange(
      "server/discover (new connection)",
      self->request(self->cfg_.builder.discover(id)), mcp::want::result,
      intended, measured, nullptr,
      [self, ch](bool ok, const mcp::document_ptr&, const incoming&) {
        if (!ok)
          return self->handshake_http_modern_done(false);
        self->call(self->cfg_.tool_label, self->scenario_call({}),
                   self->cfg_.tool_want, nullptr,
                   [self](bool ok2, const mcp::document_ptr&,
                          const incoming&) {
                     self->handshake_http_modern_done(ok2);
                   },
                   ch);
      },
      ch);
  });
}

void vclient::handshake_http_modern_done(bool ok) {
  hs_channel_.reset(); // closes the connection
  iteration_done("[handshake]", ok);
}

// -- memory modes -------------------------------------------------------------

void vclient::open_idle_sessions(std::size_t n, done_fn done) {
  open_idle_next(n, std::move(done));
}

void vclient::open_idle_next(std::size_t left, done_fn done) {
  if (left == 0 || broken_)
    return done();
  auto id = next_id();
  auto msg = request(cfg_.builder.initialize(id));
  msg.session.clear();
  exchange("initialize", std::move(msg), mcp::want::result, clock::now(), true,
           nullptr,
           [self = shared_from_this(), left, done](
             bool ok, const mcp::document_ptr&, const incoming& in) {
             if (!ok)
               return self->open_idle_next(left - 1, done);
             if (in.session.empty()) {
               self->w_.stats.error("initialize",
                                    "no Mcp-Session-Id: the server keeps no "
                                    "sessions to measure",
                                    false);
               self->broken_ = true;
               return done();
             }
             self->idle_.push_back(in.session);
             self->exchange(
               "notifications/initialized",
               self->initialized(in.session),
               mcp::want::notification, clock::now(), true, nullptr,
               [self, left, done](bool, const mcp::document_ptr&,
                                  const incoming&) {
                 self->open_idle_next(left - 1, done);
               });
           });
}

void vclient::close_idle_sessions(done_fn done) {
  close_idle_next(0, std::move(done));
}

void vclient::close_idle_next(std::size_t i, done_fn done) {
  if (i >= idle_.size()) {
    idle_.clear();
    return done();
  }
  auto m = cfg_.builder.end_session(idle_[i]);
  exchange("DELETE", std::move(m), mcp::want::session_end, clock::now(), true,
           nullptr,
           [self = shared_from_this(), i, done](bool, const mcp::document_ptr&,
                                                const incoming&) {
             self->close_idle_next(i + 1, done);
           });
}

void vclient::fill(fill_step step, std::size_t sessions, done_fn done) {
  if (step == fill_step::start) {
    tracking_.clear();
    tracking_.resize(sessions);
  }
  fill_task_ = 0;
  fill_started_ = false;
  fill_next(step, 0, std::move(done));
}

void vclient::fill_next(fill_step step, std::size_t i, done_fn done) {
  // Skip the sessions whose start failed.
  while (i < tracking_.size() && step != fill_step::start
         && tracking_[i].empty())
    ++i;
  if (i >= tracking_.size() || broken_)
    return done();
  auto self = shared_from_this();
  auto id = next_id();
  auto k = static_cast<std::int64_t>(cfg_.tasks.size());
  const auto& sid = tracking_[i];
  // On to the next session; `tool`: the change to acknowledge (--ack-log).
  auto after = [self, step, i, done](const char* tool) {
    return [self, step, i, done, tool](bool ok, const mcp::document_ptr& doc,
                                       const incoming&) {
      if (ok && tool)
        self->acknowledge(tool, self->tracking_[i], {}, doc);
      self->fill_next(step, i + 1, done);
    };
  };
  switch (step) {
    case fill_step::start: {
      auto milestone = "FILL-" + std::to_string(index_) + "-"
                       + std::to_string(i);
      exchange(start_label,
               request(cfg_.builder.tools_call(
                         id, "time_session_start",
                         mcp::request_builder::session_start_args(milestone,
                                                                  cfg_.tasks))),
               mcp::want::tool_ok, clock::now(), true,
               [self, i](const rapidjson::Value& p) -> std::string {
                 const char* s = mcp::string_member(p, "session_id");
                 if (!s || !*s)
                   return "no session_id in the result";
                 self->tracking_[i] = s;
                 return {};
               },
               after("time_session_start"));
      return;
    }
    case fill_step::tasks: {
      const auto& task = cfg_.tasks[fill_task_];
      bool start = !fill_started_;
      exchange(start ? task_start_label : task_end_label,
               request(cfg_.builder.tools_call(
                         id, start ? "time_task_start" : "time_task_end",
                         mcp::request_builder::task_args(sid, task))),
               mcp::want::tool_ok, clock::now(), true, nullptr,
               [self, step, i, done](bool ok, const mcp::document_ptr& doc,
                                     const incoming&) {
                 if (ok)
                   self->acknowledge(self->fill_started_ ? "time_task_end"
                                                         : "time_task_start",
                                     self->tracking_[i],
                                     self->cfg_.tasks[self->fill_task_], doc);
                 if (!self->fill_started_) {
                   self->fill_started_ = true;
                   return self->fill_next(step, i, done);
                 }
                 self->fill_started_ = false;
                 if (++self->fill_task_ < self->cfg_.tasks.size())
                   return self->fill_next(step, i, done);
                 self->fill_task_ = 0;
                 self->fill_next(step, i + 1, done);
               });
      return;
    }
    case fill_step::summary:
    case fill_step::end: {
      bool summary = step == fill_step::summary;
      exchange(summary ? summary_label : end_label,
               request(cfg_.builder.tools_call(
                         id, summary ? "time_session_summary"
                                     : "time_session_end",
                         mcp::request_builder::session_args(sid))),
               mcp::want::tool_ok, clock::now(), true,
               [k](const rapidjson::Value& p) {
                 return expect_int(p, "tasks_completed", k);
               },
               after(summary ? nullptr : "time_session_end"));
      return;
    }
  }
}

} // namespace ttb
