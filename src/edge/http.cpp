// The Streamable HTTP edge's listener: binds, accepts (at most
// --max-connections at once), drains and stops. Each accepted socket becomes
// a `connection` (http_connection.cpp), which follows http_rules.hpp.

#include "edge/http.hpp"

#include "edge/http_connection.hpp"
#include "edge/oauth.hpp"

#include "log.hpp"
#include "metrics.hpp"

#include <boost/asio/post.hpp>

#include <caf/send.hpp>

#include <future>
#include <stdexcept>

#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

namespace ttm::edge {
namespace {

/// Whether a just accepted socket holds a whole request header (or more
/// than a few KiB of one: it is not silent), without reading it.
bool holds_request(int fd) {
  char head[8192];
  auto n = ::recv(fd, head, sizeof head, MSG_PEEK | MSG_DONTWAIT);
  if (n <= 0)
    return false;
  return static_cast<std::size_t>(n) == sizeof head
         || holds_header_end(std::string_view{head, static_cast<std::size_t>(n)});
}

} // namespace

void http_server::make_access_policy() {
  // The bound address is a name clients may use too, unless it is loopback
  // (always allowed) or unspecified (0.0.0.0, ::: no one's name).
  std::optional<std::string> bind_name;
  error_code ec;
  auto addr = net::ip::make_address(opts.host, ec);
  loopback = !ec && addr.is_loopback();
  if (!ec && !addr.is_unspecified() && opts.host != "127.0.0.1"
      && opts.host != "::1")
    bind_name = addr.is_v6() ? "[" + opts.host + "]" : opts.host;
  access = access_policy{bound_port,         bind_name,
                         opts.allowed_hosts, opts.allowed_origins,
                         opts.auth_tokens,   opts.auth_principals};
  access.set_oauth(opts.oauth != nullptr);
}

void http_server::do_accept() {
  accepting = true;
  acceptor.async_accept(
    net::make_strand(ioc),
    [this, round = accept_round](error_code ec, socket_type socket) {
      // A drain's sweep cancelled this accept (and accepts on itself): a
      // connection it had taken already waited in the backlog at the drain.
      bool swept = round != accept_round;
      if (!swept)
        accepting = false;
      if (ec == net::error::operation_aborted || !acceptor.is_open())
        return;
      if (swept) {
        if (!ec && take_waiting(std::move(socket)))
          TTM_LOG(debug, "http", "drain: closed an idle connection accepted "
                                 "before it began");
        return;
      }
      if (ec) {
        // E.g. out of file descriptors: back off instead of spinning, and
        // say so once a second at most.
        if (warn_limited())
          TTM_LOG(warning, "http", "accept failed: " + ec.message());
        accept_backoff.expires_after(std::chrono::milliseconds{100});
        accept_backoff.async_wait([this](error_code wec) {
          if (!wec)
            do_accept();
        });
        return;
      }
      admit(std::move(socket), std::chrono::steady_clock::now(), true);
    });
}

admission::kind_t http_server::try_admit(socket_type& socket, bool& ready) {
  std::shared_ptr<connection> conn, victim;
  auto kind = admission::refuse;
  {
    std::lock_guard<std::mutex> guard{mtx};
    kind = make_room(victim, socket.native_handle(), ready);
    if (kind == admission::admit || kind == admission::evict) {
      auto id = next_conn_id++;
      int fd = socket.native_handle();
      conn = std::make_shared<connection>(std::move(socket), *this, id);
      auto& e = conns[id];
      e = conn_entry{conn, conn_phase::waiting, std::chrono::steady_clock::now()};
      e.fd = fd;
    }
  }
  if (victim) {
    net::post(victim->executor(), [victim] { victim->close_now(); });
    if (warn_limited())
      TTM_LOG(info, "http",
              "closed a stalled, unserved or idle connection to admit a "
              "new one: "
                + std::to_string(opts.max_connections)
                + " are open (--max-connections)");
  }
  if (conn)
    conn->start();
  return kind;
}

void http_server::admit(socket_type socket,
                        std::chrono::steady_clock::time_point held_since,
                        bool then_accept) {
  error_code ignored;
  socket.set_option(tcp::no_delay{true}, ignored);
  bool ready = false;
  auto kind = try_admit(socket, ready);
  if (kind == admission::wait && then_accept) {
    auto waited = std::chrono::steady_clock::now() - held_since;
    if (ready && waited < slow_header_grace) {
      // Its request is here, and only connections owed reads stand before
      // an established client: the listener's backlog waits (no accept)
      // while they read what has come; decided again on this strand.
      auto held = std::make_shared<socket_type>(std::move(socket));
      accept_backoff.expires_after(std::chrono::milliseconds{2});
      accept_backoff.async_wait([this, held, held_since](error_code ec) {
        if (!ec && acceptor.is_open())
          admit(std::move(*held), held_since, true);
      });
      return;
    }
    if (!ready && waited < first_request_chance) {
      // Its request may be on its way (accepted right after the
      // handshake): set aside for it, and the listener goes on, so that
      // the connections behind it in the backlog are not held by it.
      park(std::move(socket), held_since);
      do_accept();
      return;
    }
  }
  if (kind == admission::wait || kind == admission::refuse)
    refuse_connection(socket);
  if (then_accept)
    do_accept();
}

void http_server::park(socket_type socket,
                       std::chrono::steady_clock::time_point since) {
  if (parked.size() >= max_parked) {
    // The one set aside longest has had most of its chance.
    refuse_connection(*parked.front().socket);
    parked.erase(parked.begin());
  }
  parked.push_back({std::make_shared<socket_type>(std::move(socket)), since});
  arm_park();
}

void http_server::arm_park() {
  if (park_armed)
    return;
  park_armed = true;
  park_timer.expires_after(std::chrono::milliseconds{2});
  park_timer.async_wait([this](error_code ec) {
    park_armed = false;
    if (!ec && acceptor.is_open())
      review_parked();
  });
}

void http_server::review_parked() {
  auto now = std::chrono::steady_clock::now();
  auto waiting = std::move(parked);
  parked.clear();
  for (auto& p : waiting) {
    bool last = now - p.since >= first_request_chance;
    if (!last && !holds_request(p.socket->native_handle())) {
      parked.push_back(std::move(p));
      continue;
    }
    bool ready = false;
    auto kind = try_admit(*p.socket, ready);
    if (kind == admission::wait && !last)
      parked.push_back(std::move(p));
    else if (kind == admission::wait || kind == admission::refuse)
      refuse_connection(*p.socket);
  }
  if (!parked.empty())
    arm_park();
}

void http_server::closed(std::uint64_t id) {
  std::lock_guard<std::mutex> guard{mtx};
  if (auto it = conns.find(id); it != conns.end())
    it->second.fd = -1;
}

void http_server::begin_drain() {
  // Connections accepted before this runs (on the acceptor's strand) are
  // registered: the idle ones close now.
  for_each_connection([](connection& c) { c.on_drain(); });
  // Those set aside at the cap, as those still in the backlog (below).
  auto aside = std::move(parked);
  parked.clear();
  for (auto& p : aside)
    take_waiting(std::move(*p.socket));
  if (!acceptor.is_open())
    return;
  bool rearm = accepting;
  if (accepting) {
    ++accept_round;
    accepting = false;
    error_code ignored;
    acceptor.cancel(ignored);
  }
  // The clients opened these before the drain, as they did the idle
  // connections just closed: not accepting them yet was our delay, and a
  // client waiting for its idle connection to close must not wait for
  // --header-timeout. Bounded: a flood keeps the backlog full.
  error_code ec;
  acceptor.non_blocking(true, ec);
  std::size_t idle_closed = 0;
  for (std::size_t taken = 0; !ec && taken < max_swept; ++taken) {
    socket_type socket{net::make_strand(ioc)};
    acceptor.accept(socket, ec);
    if (!ec && take_waiting(std::move(socket)))
      ++idle_closed;
  }
  if (idle_closed > 0)
    TTM_LOG(debug, "http", "drain: closed " + std::to_string(idle_closed)
                             + " idle connection(s) still in the listen "
                               "backlog");
  error_code ignored;
  acceptor.non_blocking(false, ignored);
  if (rearm)
    do_accept();
}

bool http_server::take_waiting(socket_type socket) {
  error_code ec;
  auto pending = socket.available(ec);
  if (!ec && pending > 0) {
    // A request is here already: it gets its one answer, as on a
    // connection opened during the drain.
    admit(std::move(socket), std::chrono::steady_clock::now(), false);
    return false;
  }
  // Idle (or closed by the client): no unread input, so a plain close.
  socket.close(ec);
  return true;
}

admission::kind_t
http_server::make_room(std::shared_ptr<connection>& victim, int fd,
                       bool& ready) {
  std::vector<idle_connection> idle;
  auto open = conns.size() - evicting;
  if (!admit_connection(open, opts.max_connections)) {
    ready = holds_request(fd);
    auto now = std::chrono::steady_clock::now();
    for (const auto& [id, e] : conns)
      if (!e.evicting)
        if (auto c = evictable(id, e.phase, e.served, e.since, now, e.partial))
          idle.push_back(*c);
  }
  auto unread = [this](std::uint64_t id) {
    int fd = conns.at(id).fd;
    int pending = 0;
    return fd >= 0 && ::ioctl(fd, FIONREAD, &pending) == 0 && pending > 0;
  };
  auto a = decide_admission(open, opts.max_connections, idle, unread, ready);
  if (a.kind == admission::evict) {
    auto& e = conns.at(a.victim);
    e.evicting = true;
    ++evicting;
    victim = e.conn.lock(); // null: it is being destroyed anyway
  }
  return a.kind;
}

void http_server::audit_refusal(const refusal& why, const std::string& address,
                                const std::string& principal) {
  auto left_out = audit.admit(address, std::chrono::steady_clock::now());
  if (!left_out)
    return;
  actors::audited_refusal r;
  r.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
  r.status = why.status;
  r.reason = why.message;
  r.client_address = address;
  r.principal = principal;
  r.suppressed = *left_out;
  caf::anon_send(transport, actors::audit_atom::value, std::move(r));
}

void http_server::set_idle(std::uint64_t id) {
  std::lock_guard<std::mutex> guard{mtx};
  if (auto it = conns.find(id); it != conns.end()) {
    it->second.phase = conn_phase::waiting;
    // A new connection's wait counts from its accept.
    if (it->second.served)
      it->second.since = std::chrono::steady_clock::now();
  }
}

bool http_server::enter(std::uint64_t id, conn_phase phase, bool partial) {
  std::lock_guard<std::mutex> guard{mtx};
  auto it = conns.find(id);
  if (it == conns.end() || it->second.evicting)
    return false;
  auto& e = it->second;
  e.phase = phase;
  e.partial = partial && !e.served;
  if (phase == conn_phase::busy)
    e.served = true;
  else if (e.served)
    e.since = std::chrono::steady_clock::now();
  return true;
}

bool http_server::warn_limited() {
  auto now = std::chrono::steady_clock::now();
  if (now - last_warning < std::chrono::seconds{1})
    return false;
  last_warning = now;
  return true;
}

void http_server::refuse_connection(socket_type& socket) {
  // A fresh socket's send buffer takes this at once: no waiting on the
  // acceptor's strand.
  const auto& refusal = connection_refusal_response();
  error_code ignored;
  socket.non_blocking(true, ignored);
  socket.write_some(net::buffer(refusal), ignored);
  socket.shutdown(tcp::socket::shutdown_send, ignored);
  // Closing with unread input would reset the connection, and a reset can
  // make the client drop the 503 it already received: take what has come.
  char scratch[4096];
  for (int i = 0; i < 16; ++i) {
    error_code rec;
    socket.read_some(net::buffer(scratch), rec);
    if (rec)
      break;
  }
  socket.close(ignored);
  metrics::refusal(503);
  if (warn_limited())
    TTM_LOG(warning, "http", "refused a connection: "
                               + std::to_string(opts.max_connections)
                               + " are open (--max-connections)");
}

template <class F>
void http_server::for_each_connection(F f) {
  std::vector<std::shared_ptr<connection>> live;
  {
    std::lock_guard<std::mutex> guard{mtx};
    for (auto& [id, e] : conns)
      if (auto c = e.conn.lock())
        live.push_back(std::move(c));
  }
  for (auto& c : live)
    net::post(c->executor(), [c, f] { f(*c); });
}

http_edge::http_edge(actors::transport_actor transport, http_options opts)
  : server_(std::make_unique<http_server>(std::move(transport), std::move(opts))) {
}

http_edge::~http_edge() {
  stop();
}

void http_edge::start() {
  auto& s = *server_;
  error_code ec;
  auto addr = net::ip::make_address(s.opts.host, ec);
  if (ec)
    throw std::runtime_error("cannot listen on '" + s.opts.host
                             + "': not an IP address");
  tcp::endpoint ep{addr, s.opts.port};
  auto where = s.opts.host + ":" + std::to_string(s.opts.port);
  s.acceptor.open(ep.protocol(), ec);
  if (!ec)
    s.acceptor.set_option(net::socket_base::reuse_address{true}, ec);
  if (!ec)
    s.acceptor.bind(ep, ec);
  if (!ec)
    s.acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec)
    throw std::runtime_error("cannot listen on " + where + ": "
                             + ec.message());
  s.bound_port = s.acceptor.local_endpoint().port();
  s.make_access_policy();
  if (s.opts.oauth) {
    // Without --oauth-resource (loopback only): our own URL is the
    // resource, known now that the port is.
    if (s.opts.oauth->config().resource.empty())
      s.opts.oauth->set_resource(url());
    s.opts.oauth->start();
  }
  s.work.emplace(s.ioc.get_executor());
  net::post(s.acceptor.get_executor(), [&s] { s.do_accept(); });
  for (std::size_t i = 0; i < std::max<std::size_t>(s.opts.threads, 1); ++i)
    s.threads.emplace_back([&s] {
      // Named, so that /proc/<pid>/task tells it from the workers (the
      // abuse harness's --diag reads its CPU and run-queue wait).
      pthread_setname_np(pthread_self(), "ttm.http-io");
      s.ioc.run();
    });
}

std::uint16_t http_edge::port() const {
  return server_->bound_port;
}

std::string http_edge::url() const {
  auto host = server_->opts.host;
  if (host.find(':') != std::string::npos)
    host = "[" + host + "]";
  return "http://" + host + ":" + std::to_string(server_->bound_port)
         + server_->opts.path;
}

void http_edge::begin_drain(std::chrono::milliseconds timeout) {
  auto& s = *server_;
  if (s.threads.empty() || s.drain_begun)
    return;
  s.drain_begun = true;
  // The listener stays open until `stop`: new connections get one answer
  // each (/readyz 503, /healthz 200, 503 on the MCP endpoint), so probes
  // see the drain instead of a refused connection.
  s.draining = true;
  // On the acceptor's strand: each connection is either registered (and
  // closed if idle) or still in the listen backlog (swept), none in between.
  auto begun = std::make_shared<std::promise<void>>();
  auto done = begun->get_future();
  net::post(s.acceptor.get_executor(), [&s, begun] {
    s.begin_drain();
    begun->set_value();
  });
  done.wait_for(timeout);
}

bool http_edge::drain(std::chrono::milliseconds timeout) {
  auto& s = *server_;
  if (s.threads.empty())
    return true;
  begin_drain(timeout);
  std::unique_lock<std::mutex> guard{s.mtx};
  return s.cv.wait_for(guard, timeout, [&s] { return s.busy == 0; });
}

void http_edge::stop() {
  auto& s = *server_;
  if (s.stopped || s.threads.empty())
    return;
  s.stopped = true;
  s.draining = true;
  net::post(s.acceptor.get_executor(), [&s] {
    error_code ec;
    s.acceptor.close(ec);
    s.accept_backoff.cancel();
    s.park_timer.cancel();
  });
  s.for_each_connection([](connection& c) { c.close_now(); });
  s.work.reset();
  // Connections waiting for the transport hold no pending operation, so
  // run() may return while they live on; stop() ends run() either way.
  s.ioc.stop();
  for (auto& t : s.threads)
    t.join();
  // Checks under way post to connections of the io_context: stop them
  // while it still exists.
  if (s.opts.oauth)
    s.opts.oauth->stop();
  // No I/O thread runs any more; let go of the actor.
  s.transport = actors::transport_actor{};
}

} // namespace ttm::edge
