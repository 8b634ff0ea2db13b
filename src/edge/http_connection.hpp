#pragma once

// Private to the HTTP edge (http.cpp, http_connection.cpp): the server state
// and one Beast connection. Everything that includes Beast is behind this
// header; the decisions it follows are in http_rules.hpp.

// Beast's string_view is std::string_view in the edge.
#ifndef BOOST_BEAST_USE_STD_STRING_VIEW
#define BOOST_BEAST_USE_STD_STRING_VIEW
#endif

#include "actors/transport_messages.hpp"
#include "edge/refusal_audit.hpp"
#include "edge/http_options.hpp"
#include "edge/http_access.hpp"
#include "edge/http_rules.hpp"
#include "log.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

namespace ttm::edge {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;
/// A connection's strand and socket, typed: Beast's tcp_stream holds an
/// any_io_executor, which a strand does not fit into without a heap copy,
/// and every async operation copies and `prefer`s it (issue 33: about a
/// dozen allocations per request).
using strand_type = net::strand<net::io_context::executor_type>;
using socket_type = tcp::socket::rebind_executor<strand_type>::other;

class connection;

struct http_server {
  // Declared before the io_context: connections destroyed with it (pending
  // handlers) unregister themselves here.
  std::mutex mtx;
  std::condition_variable cv;
  struct conn_entry {
    std::weak_ptr<connection> conn;
    conn_phase phase = conn_phase::waiting;
    /// Accepted, until its first request's header is complete; then when
    /// its last response ended (waiting) or its request began (in_header).
    std::chrono::steady_clock::time_point since;
    /// A request's header was complete once: an established client.
    bool served = false;
    /// Not served, and its first bytes were a header without its end
    /// (evictable's `partial`).
    bool partial = false;
    /// Chosen to make room at the cap: it closes instead of reading on.
    bool evicting = false;
    /// Its socket, for the unread-input probe only; -1 once closed.
    int fd = -1;
  };
  std::unordered_map<std::uint64_t, conn_entry> conns;
  /// Entries of `conns` marked evicting (not counted against the cap).
  std::size_t evicting = 0;
  std::uint64_t next_conn_id = 0;
  /// Connections between a request's complete header and its response's
  /// last byte: what a drain waits for.
  std::size_t busy = 0;

  actors::transport_actor transport;
  http_options opts;
  access_policy access;
  auth_throttle throttle;
  refusal_audit audit;
  std::atomic<bool> draining{false};
  /// http_edge::begin_drain ran (main thread only).
  bool drain_begun = false;
  std::uint16_t bound_port = 0;
  /// Bound to a loopback address (see decide_metrics).
  bool loopback = false;
  bool stopped = false;

  net::io_context ioc;
  std::optional<net::executor_work_guard<net::io_context::executor_type>>
    work;
  tcp::acceptor acceptor{net::make_strand(ioc)};
  net::steady_timer accept_backoff{acceptor.get_executor()};
  /// New connections at the cap whose request has not come yet, set aside
  /// (acceptor strand only) for at most first_request_chance so that the
  /// accept loop goes on: see admit.
  struct parked_socket {
    std::shared_ptr<socket_type> socket;
    std::chrono::steady_clock::time_point since;
  };
  std::vector<parked_socket> parked;
  static constexpr std::size_t max_parked = 32;
  net::steady_timer park_timer{acceptor.get_executor()};
  bool park_armed = false;
  std::vector<std::thread> threads;

  http_server(actors::transport_actor t, http_options o)
    : transport(std::move(t)), opts(std::move(o)),
      throttle(auth_throttle::limits{
        opts.auth_max_failures, opts.auth_failure_window, opts.auth_lockout,
        opts.auth_max_lockout, opts.auth_max_addresses}),
      ioc(static_cast<int>(std::max<std::size_t>(opts.threads, 1))) {
  }

  /// A connection starts waiting for a request's first byte.
  void set_idle(std::uint64_t id);
  /// Its request began (first byte; `partial`: without its header's end),
  /// or its header is complete (busy). False when it was chosen for
  /// eviction meanwhile: then it closes without reading on.
  bool enter(std::uint64_t id, conn_phase phase, bool partial = false);
  /// Under `mtx`: room for one more connection (`fd`, just accepted), by
  /// closing one that is stalled, not yet served or idle if need be (see
  /// decide_admission). `ready`: at the cap, whether `fd` holds a whole
  /// request header (looked at only there: a system call).
  admission::kind_t make_room(std::shared_ptr<connection>& victim, int fd,
                              bool& ready);
  /// Registers an accepted socket as a connection and starts it (admit,
  /// evict: then `socket` is moved from), or not (wait, refuse). `ready`
  /// as make_room's.
  admission::kind_t try_admit(socket_type& socket, bool& ready);
  /// Registers an accepted socket as a connection and starts it, or
  /// refuses it (--max-connections). The accept loop's own call
  /// (`then_accept`), when the answer is `wait`: holds the backlog for a
  /// socket whose request is here (within slow_header_grace of
  /// `held_since`), sets aside one whose request is not (park, within
  /// first_request_chance) and accepts on; a drain's sweep decides at once.
  void admit(socket_type socket,
             std::chrono::steady_clock::time_point held_since,
             bool then_accept);
  void park(socket_type socket, std::chrono::steady_clock::time_point since);
  void arm_park();
  /// Each set-aside socket whose request came, or whose chance is over,
  /// is decided again (admitted, or refused with 503).
  void review_parked();
  /// Connection `id` closed its socket (see conn_entry::fd).
  void closed(std::uint64_t id);

  void add_busy(int delta) {
    {
      std::lock_guard<std::mutex> guard{mtx};
      busy = static_cast<std::size_t>(static_cast<long>(busy) + delta);
    }
    cv.notify_all();
  }

  /// THE hook for the audit trail: a refusal of who sent a request (401,
  /// 403, 429, and any other refusal a rule adds for a client) goes to
  /// the journal through the transport, rate-limited per address (see
  /// refusal_audit). `principal`: empty when not known. Never the token.
  void audit_refusal(const refusal& why, const std::string& address,
                     const std::string& principal = {});

  void make_access_policy();
  void do_accept();
  /// On the acceptor's strand: idle connections close, and so do those
  /// still waiting in the listen backlog (see take_waiting).
  void begin_drain();
  /// A connection from the listen backlog at a drain's start: true when
  /// closed (idle), false when admitted (it sent a request already).
  bool take_waiting(socket_type socket);
  /// The accept under way is of this round; a drain's sweep of the backlog
  /// cancels it and starts the next (acceptor strand only, as `accepting`).
  std::uint64_t accept_round = 0;
  bool accepting = false;
  /// Connections taken from the backlog at a drain, at most.
  static constexpr std::size_t max_swept = 4096;
  void refuse_connection(socket_type& socket);
  /// Rate limit for warnings a flood could repeat (on the acceptor strand).
  bool warn_limited();
  std::chrono::steady_clock::time_point last_warning{};
  template <class F>
  void for_each_connection(F f);
};

/// What the transport said about one frame, handed to the connection.
struct transport_reply {
  enum kind_t { done, unknown_route, busy, closed } kind = done;
  std::vector<std::string> notifications;
  std::vector<std::string> responses;
};

/// One TCP connection; all of its work runs on its own strand.
class connection : public std::enable_shared_from_this<connection> {
public:
  connection(socket_type socket, http_server& srv, std::uint64_t id);
  ~connection();

  void start();

  strand_type executor() {
    return stream_.get_executor();
  }

  /// On the strand: a drain started. Idle connections close now; a request
  /// in flight finishes and its response closes the connection.
  void on_drain();

  /// On the strand: the edge is stopping.
  void close_now();

  /// On the strand: the transport is done with the request's frame.
  void on_reply(transport_reply r);

private:
  using time_point = std::chrono::steady_clock::time_point;
  using request = http::request<http::string_body>;
  using response = http::response<http::string_body>;

  /// Per request.
  struct request_ctx {
    unsigned version = 11;
    bool keep_alive = true;
    bool head = false;
    /// What the headers decided: principal, session, MCP headers, Accept.
    head_decision mcp;
    /// Set for initialize: the session id being created.
    std::string new_session;
    bool expects_response = false;
    protocol::request_id id; // of a single request, for error bodies
    bool is_delete = false;
    /// A 2026-07-28 request: no session; a hang-up cancels it.
    bool modern = false;
    /// Admitted by --rate-limit/--max-in-flight under this key: released
    /// when the transport answers (or the connection goes).
    std::optional<std::string> limit_key;
    /// The request's id and trace context (X-Request-Id, traceparent,
    /// then the body's _meta.traceparent, else generated): in its log
    /// lines, its frame, error bodies and the X-Request-Id response header.
    protocol::trace_context trace;
  };

  /// Log fields naming the current request.
  log::fields about() const noexcept {
    log::fields f;
    f.request_id = ctx_.trace.request_id;
    f.trace_id = ctx_.trace.trace_id;
    f.principal = ctx_.mcp.principal;
    return f;
  }

  void set_busy(bool b);
  void read_next();
  void read_header();
  void on_header(error_code ec);
  void route(const request& req);
  void on_metrics(const request& req);
  void on_mcp(const request& req);
  /// After the OAuth check of the request's token (null: none needed).
  void on_mcp_checked(const bearer_verdict* bearer);
  /// Serves Protected Resource Metadata (RFC 9728) when `path` is its.
  bool on_resource_metadata(const request& req, std::string_view path);
  /// The OAuth scope check of a frame: false when refused (answered).
  bool scope_allows(const protocol::frame& f);
  void send_continue();
  void read_body();
  void on_body(error_code ec);
  void dispatch(body_decision d, protocol::frame f);
  /// Takes a --rate-limit token and an in-flight place, or answers 429.
  bool admit_request();
  void release_request();
  void watch_hangup();
  actors::sink_ptr make_sink();

  void refuse(const refusal& r);
  void respond_plain(int status, std::string text, std::string_view allow = {});
  void respond_raw(int status, std::string body, std::string_view type);
  std::shared_ptr<response> start_response(http::status status);
  void set_body(response& res, std::string body, std::string_view type);
  void write(std::shared_ptr<response> res);
  void linger();
  void drain_input(std::size_t so_far);
  void stop_draining();

  beast::basic_stream<tcp, strand_type> stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  /// Bounds linger's drain (made only then).
  std::optional<net::steady_timer::rebind_executor<strand_type>::other>
    linger_timer_;
  http_server& srv_;
  std::uint64_t id_;
  request_ctx ctx_;
  /// The client's IP address (for the token-guessing throttle).
  std::string peer_;
  time_point accepted_at_;
  /// When the current request's header began to be read.
  time_point request_start_;
  /// A request's headers were complete once: the header timeout is over.
  bool served_ = false;
  bool busy_ = false;
  bool closed_ = false;
  bool watching_ = false;
  bool read_after_watch_ = false;
};

} // namespace ttm::edge
