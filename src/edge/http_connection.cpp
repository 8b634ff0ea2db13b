// One HTTP connection: Beast reads a request, the rules of http_rules.hpp
// decide, and a POSTed message goes to the transport actor with
// send_inline (http_inline.hpp: the actors it wakes run on this I/O thread);
// the transport answers through a `post_sink`, which collects the replies
// and posts them back to the connection's strand once the frame is done. No
// I/O thread ever waits for an actor, and no actor ever touches a socket.

#include "edge/http_connection.hpp"

#include "edge/http_inline.hpp"
#include "edge/oauth.hpp"
#include "log.hpp"
#include "metrics.hpp"
#include "mcp/wire.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/modern.hpp"
#include "protocol/request_ids.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include <caf/send.hpp>


#include <limits>

namespace ttm::edge {

namespace {

http_method method_of(http::verb v) {
  switch (v) {
    case http::verb::get:
      return http_method::get;
    case http::verb::head:
      return http_method::head;
    case http::verb::post:
      return http_method::post;
    case http::verb::delete_:
      return http_method::delete_;
    default:
      return http_method::other;
  }
}

template <class Request, class Parser>
request_head head_of(const Request& req, const Parser& parser) {
  auto first = [&](auto name) -> std::optional<std::string_view> {
    auto h = req.find(name);
    if (h == req.end())
      return std::nullopt;
    return std::string_view{h->value().data(), h->value().size()};
  };
  request_head h;
  h.version = req.version();
  h.method = method_of(req.method());
  h.target = std::string_view{req.target().data(), req.target().size()};
  h.host = first(http::field::host);
  h.host_count = req.count(http::field::host);
  h.origin = first(http::field::origin);
  h.authorization = first(http::field::authorization);
  h.content_type = first(http::field::content_type);
  h.accept = first(http::field::accept);
  h.expect = first(http::field::expect);
  h.session_id = first("Mcp-Session-Id");
  h.protocol_version = first("MCP-Protocol-Version");
  h.mcp_method = first("Mcp-Method");
  h.mcp_name = first("Mcp-Name");
  for (const auto& field : req) {
    auto name = field.name_string();
    if (name.size() > param_header_prefix.size()
        && beast::iequals(name.substr(0, param_header_prefix.size()),
                          param_header_prefix))
      h.params.emplace_back(
        std::string_view{name.data() + param_header_prefix.size(),
                         name.size() - param_header_prefix.size()},
        std::string_view{field.value().data(), field.value().size()});
  }
  if (auto len = parser.content_length())
    h.content_length = *len;
  return h;
}

read_failure failure_of(error_code ec, bool closed) {
  if (ec == http::error::header_limit)
    return read_failure::header_limit;
  if (ec == http::error::body_limit)
    return read_failure::body_limit;
  if (ec == http::error::end_of_stream || ec == beast::error::timeout
      || ec == net::error::operation_aborted || closed)
    return read_failure::closed;
  return read_failure::malformed;
}

/// Collects what the transport says about one frame (called on the
/// transport actor only) and posts it to the connection's strand at the end.
class post_sink final : public actors::reply_sink {
public:
  explicit post_sink(std::shared_ptr<connection> conn)
    : conn_(std::move(conn)) {
  }

  void deliver(std::string json) override {
    reply_.responses.push_back(std::move(json));
  }

  void deliver_notification(std::string json) override {
    reply_.notifications.push_back(std::move(json));
  }

  void frame_done() override {
    finish(transport_reply::done);
  }

  void refused(actors::route_refusal why) override {
    finish(why == actors::route_refusal::busy ? transport_reply::busy
                                              : transport_reply::unknown_route);
  }

  void close() override {
    finish(transport_reply::closed);
  }

private:
  void finish(transport_reply::kind_t kind) {
    // Once per frame; also lets go of the connection.
    auto conn = std::move(conn_);
    if (!conn)
      return;
    reply_.kind = kind;
    auto ex = conn->executor();
    net::post(ex, [conn = std::move(conn), r = std::move(reply_)]() mutable {
      conn->on_reply(std::move(r));
    });
  }

  std::shared_ptr<connection> conn_;
  transport_reply reply_;
};

} // namespace

connection::connection(socket_type socket, http_server& srv,
                       std::uint64_t id)
  : stream_(std::move(socket)), srv_(srv), id_(id),
    accepted_at_(std::chrono::steady_clock::now()) {
  error_code ec;
  auto ep = stream_.socket().remote_endpoint(ec);
  if (!ec)
    peer_ = ep.address().to_string();
}

connection::~connection() {
  release_request();
  if (busy_)
    srv_.add_busy(-1);
  std::lock_guard<std::mutex> guard{srv_.mtx};
  if (auto it = srv_.conns.find(id_); it != srv_.conns.end()) {
    if (it->second.evicting)
      --srv_.evicting;
    srv_.conns.erase(it);
  }
}

void connection::start() {
  net::dispatch(stream_.get_executor(),
                [self = shared_from_this()] { self->read_next(); });
}

void connection::on_drain() {
  if (!busy_)
    close_now();
}

void connection::close_now() {
  if (closed_)
    return;
  closed_ = true;
  // First: the descriptor's number may be reused once it is closed.
  srv_.closed(id_);
  error_code ec;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
  stream_.close();
  if (linger_timer_)
    linger_timer_->cancel();
}

void connection::set_busy(bool b) {
  if (b != busy_) {
    busy_ = b;
    srv_.add_busy(b ? 1 : -1);
  }
}

void connection::read_next() {
  if (closed_)
    return;
  // Draining: a connection served before closes; one accepted meanwhile
  // gets one answer (a probe's, or 503), then closes (see write).
  if (srv_.draining && served_) {
    close_now();
    return;
  }
  parser_.emplace();
  parser_->header_limit(max_header_bytes);
  // No body limit while the header is read: Beast would refuse a large
  // Content-Length in the header as a parse error. decide_head answers it
  // with 413 after the Host/Origin/token checks; read_body() sets the limit
  // for chunked bodies. (Boost 1.74 compares a Content-Length against an
  // empty limit as "too large", so "no limit" is the largest value.)
  parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
  ctx_ = {};
  if (buffer_.size() > 0) {
    // Pipelined: the next request began with the last one's bytes.
    if (!srv_.enter(id_, conn_phase::in_header)) {
      close_now();
      return;
    }
    read_header();
    return;
  }
  // Idle: wait for the next request's first byte (a new connection only
  // as long as the header timeout allows for its whole first header).
  srv_.set_idle(id_);
  if (served_)
    stream_.expires_after(srv_.opts.idle_timeout);
  else
    stream_.expires_at(accepted_at_ + srv_.opts.header_timeout);
  stream_.async_read_some(
    buffer_.prepare(4096),
    [self = shared_from_this()](error_code ec, std::size_t n) {
      if (ec) {
        self->close_now();
        return;
      }
      self->buffer_.commit(n);
      auto head = self->buffer_.data();
      bool partial
        = !self->served_
          && !holds_header_end(std::string_view{
            static_cast<const char*>(head.data()), head.size()});
      if (!self->srv_.enter(self->id_, conn_phase::in_header, partial)) {
        self->close_now();
        return;
      }
      self->read_header();
    });
}

void connection::read_header() {
  // One deadline for the whole request, headers and body; a new
  // connection's first header also within the header timeout.
  request_start_ = std::chrono::steady_clock::now();
  auto deadline = request_start_ + srv_.opts.read_timeout;
  if (!served_)
    deadline = std::min<time_point>(deadline,
                                    accepted_at_ + srv_.opts.header_timeout);
  stream_.expires_at(deadline);
  http::async_read_header(
    stream_, buffer_, *parser_,
    [self = shared_from_this()](error_code ec, std::size_t) {
      self->on_header(ec);
    });
}

void connection::on_header(error_code ec) {
  if (ec) {
    auto d = decide_read_error(failure_of(ec, closed_), false, ec.message());
    if (d.kind == read_error_decision::close) {
      close_now();
      return;
    }
    set_busy(true);
    ctx_.keep_alive = false;
    protocol::ensure_id(ctx_.trace, srv_.opts.ids);
    if (d.status == 400)
      TTM_LOG_F(debug, "http", "malformed request: " + ec.message(), about());
    return respond_plain(d.status, std::move(d.text));
  }
  // Chosen to make room at the cap while its header came in: it goes.
  if (!srv_.enter(id_, conn_phase::busy)) {
    close_now();
    return;
  }
  set_busy(true);
  if (!served_) {
    served_ = true;
    stream_.expires_at(request_start_ + srv_.opts.read_timeout);
  }
  auto& req = parser_->get();
  auto header = [&req](std::string_view name)
    -> std::optional<std::string_view> {
    auto h = req.find(name);
    if (h == req.end())
      return std::nullopt;
    return std::string_view{h->value().data(), h->value().size()};
  };
  ctx_.trace = protocol::from_headers(header("X-Request-Id"),
                                      header("traceparent"),
                                      header("tracestate"));
  ctx_.version = req.version();
  ctx_.keep_alive = req.keep_alive();
  ctx_.head = req.method() == http::verb::head;
  route(req);
}

void connection::route(const request& req) {
  std::string_view target{req.target().data(), req.target().size()};
  if (srv_.opts.oauth && !srv_.opts.metrics_only
      && on_resource_metadata(req, target.substr(0, target.find('?'))))
    return;
  // The readiness check runs for /readyz only.
  auto unready = srv_.opts.unready && target.rfind("/readyz", 0) == 0
                   ? srv_.opts.unready()
                   : std::string{};
  auto d = srv_.opts.metrics_only
             ? route_metrics_only(method_of(req.method()), target)
             : route_path(method_of(req.method()), target, srv_.opts.path,
                          srv_.draining, unready);
  switch (d.kind) {
    case path_decision::plain:
      return respond_plain(d.status, std::move(d.text), d.allow);
    case path_decision::json:
      return respond_raw(d.status, std::move(d.text), "application/json");
    case path_decision::metrics:
      return on_metrics(req);
    case path_decision::mcp:
      if (srv_.draining) {
        // Shutting down: the probes still answer (/readyz 503), MCP
        // requests go elsewhere.
        ctx_.keep_alive = false;
        auto version = req.find("MCP-Protocol-Version");
        return refuse(draining_refusal(
          version != req.end()
          && protocol::names_modern_era(std::string_view{
            version->value().data(), version->value().size()})));
      }
      return on_mcp(req);
  }
}

void connection::on_metrics(const request& req) {
  if (!srv_.opts.metrics_only) {
    auto d = decide_metrics(srv_.access, head_of(req, *parser_),
                            srv_.loopback);
    if (d.kind != path_decision::metrics)
      return respond_plain(d.status, std::move(d.text), d.allow);
  }
  auto res = start_response(http::status::ok);
  set_body(*res, metrics::page(), metrics::content_type);
  write(std::move(res));
}

void connection::on_mcp(const request& req) {
  // A static token is tried first, by exact match; any other bearer token
  // goes to the OAuth resource server, off this thread (signatures cost;
  // an unknown kid may fetch keys), and the request goes on when it has
  // answered. Not while the address is locked out: decide_head answers
  // that without looking at the token.
  if (auto* oauth = srv_.opts.oauth.get()) {
    auto auth = req.find(http::field::authorization);
    std::optional<std::string_view> value;
    if (auth != req.end())
      value = std::string_view{auth->value().data(), auth->value().size()};
    auto token = access_policy::bearer_token(value);
    if (token && !srv_.access.principal_of(value)
        && !srv_.throttle.locked(peer_, std::chrono::steady_clock::now())) {
      oauth->validate(std::move(*token), [self = shared_from_this(),
                                          oauth](oauth::token_verdict v) {
        bearer_verdict b;
        if (v.ok()) {
          b.principal = std::move(v.granted.principal);
          b.scopes = std::move(v.granted.scopes);
        } else {
          b.challenge = oauth->challenge(v.failure);
          b.message = oauth::failure_text(v.failure);
          b.counts = v.failure != oauth::token_failure::expired
                     && v.failure != oauth::token_failure::not_yet_valid;
        }
        auto ex = self->executor();
        net::post(ex, [self = std::move(self), b = std::move(b)] {
          self->on_mcp_checked(&b);
        });
      });
      return;
    }
  }
  on_mcp_checked(nullptr);
}

void connection::on_mcp_checked(const bearer_verdict* bearer) {
  if (closed_)
    return;
  const auto& req = parser_->get();
  oauth_gate oauth;
  oauth.bearer = bearer;
  if (srv_.opts.oauth)
    oauth.challenge = srv_.opts.oauth->challenge();
  ctx_.mcp = decide_head(
    srv_.access, head_of(req, *parser_), srv_.opts.max_body_bytes,
    auth_gate{&srv_.throttle, peer_, std::chrono::steady_clock::now()},
    oauth);
  switch (ctx_.mcp.kind) {
    case head_decision::refuse:
      if (auto s = ctx_.mcp.why.status; s == 401 || s == 403 || s == 429)
        srv_.audit_refusal(ctx_.mcp.why, peer_);
      return refuse(ctx_.mcp.why);
    case head_decision::end_session:
      ctx_.is_delete = true;
      send_inline(srv_.transport, actors::end_atom::value,
                     ctx_.mcp.session, ctx_.mcp.principal, make_sink());
      return;
    case head_decision::read_body:
      if (ctx_.mcp.send_continue)
        return send_continue();
      return read_body();
  }
}

void connection::send_continue() {
  auto res = std::make_shared<http::response<http::empty_body>>(
    http::status::continue_, ctx_.version);
  http::async_write(stream_, *res,
                    [self = shared_from_this(), res](error_code ec,
                                                     std::size_t) {
                      if (ec) {
                        self->close_now();
                        return;
                      }
                      self->read_body();
                    });
}

void connection::read_body() {
  parser_->body_limit(srv_.opts.max_body_bytes);
  http::async_read(stream_, buffer_, *parser_,
                   [self = shared_from_this()](error_code ec, std::size_t) {
                     self->on_body(ec);
                   });
}

void connection::on_body(error_code ec) {
  if (ec) {
    auto d = decide_read_error(failure_of(ec, closed_), true, ec.message());
    switch (d.kind) {
      case read_error_decision::close:
        close_now();
        return;
      case read_error_decision::too_large:
        return refuse(too_large(
          srv_.opts.max_body_bytes,
          protocol::names_modern_era(ctx_.mcp.headers.version)));
      case read_error_decision::plain:
        // A malformed body (e.g. a bad chunk size) is answered, not dropped.
        ctx_.keep_alive = false;
        TTM_LOG_F(debug, "http", "malformed request body: " + ec.message(),
                  about());
        return respond_plain(d.status, std::move(d.text));
    }
  }
  stream_.expires_never(); // the transport may take its time
  auto f = mcp::decode(parser_->get().body());
  protocol::resolve(ctx_.trace, f, srv_.opts.ids);
  f.trace = ctx_.trace;
  auto d = decide_body(ctx_.mcp, f, srv_.opts.mirrored);
  dispatch(std::move(d), std::move(f));
}

void connection::dispatch(body_decision d, protocol::frame f) {
  ctx_.id = std::move(d.id);
  ctx_.modern = d.modern;
  ctx_.expects_response = d.expects_response;
  if ((d.kind == body_decision::open || d.kind == body_decision::forward
       || d.kind == body_decision::call)
      && (!scope_allows(f) || !admit_request()))
    return;
  switch (d.kind) {
    case body_decision::refuse:
      return refuse(d.why);
    case body_decision::accept:
      TTM_LOG_F(debug, "http", "accepted 2026-07-28 notification '"
                                 + f.messages.front().method
                                 + "' without effect",
                about());
      return write(start_response(http::status::accepted));
    case body_decision::open:
      try {
        ctx_.new_session = new_session_id();
      } catch (const std::exception& e) {
        TTM_LOG_F(error, "http", e.what(), about());
        return refuse(make_refusal(500,
                                   "Internal error: cannot create a session "
                                   "id",
                                   protocol::internal_error));
      }
      send_inline(srv_.transport, actors::open_atom::value,
                     ctx_.new_session, ctx_.mcp.principal, std::move(f),
                     make_sink());
      return;
    case body_decision::forward:
      send_inline(srv_.transport, actors::forward_atom::value,
                     ctx_.mcp.session, ctx_.mcp.principal, std::move(f),
                     make_sink());
      return;
    case body_decision::call:
      send_inline(srv_.transport, actors::call_atom::value,
                     ctx_.mcp.principal, std::move(f), make_sink());
      return watch_hangup();
  }
}

bool connection::admit_request() {
  const auto& limiter = srv_.opts.limiter;
  if (!limiter || limiter->unlimited())
    return true;
  // Without tokens every request is `local`'s: the address tells clients
  // apart.
  bool anonymous = !srv_.access.auth_required();
  auto key = anonymous ? peer_ : ctx_.mcp.principal;
  auto v = limiter->admit(key);
  if (!v) {
    TTM_LOG(debug, "http", "request refused: "
                             + std::string{v.kind == domain::rate_verdict::
                                                       too_many_in_flight
                                             ? "--max-in-flight"
                                             : "--rate-limit"}
                             + " reached");
    auto why = rate_refusal(v, ctx_.modern);
    srv_.audit_refusal(why, peer_,
                       anonymous ? std::string{} : ctx_.mcp.principal);
    refuse(why);
    return false;
  }
  ctx_.limit_key = std::move(key);
  return true;
}

bool connection::scope_allows(const protocol::frame& f) {
  if (!ctx_.mcp.scopes || !srv_.opts.oauth)
    return true; // a static token's request, or no auth: anything
  auto need = srv_.opts.oauth->missing_scope(f, *ctx_.mcp.scopes);
  if (need.empty())
    return true;
  auto why = make_refusal(403,
                          "Forbidden: this call needs the OAuth scope '"
                            + need + "', which the access token lacks",
                          http_refusal_code, ctx_.modern,
                          srv_.opts.oauth->insufficient_scope(need));
  srv_.audit_refusal(why, peer_, ctx_.mcp.principal);
  refuse(why);
  return false;
}

bool connection::on_resource_metadata(const request& req,
                                      std::string_view path) {
  if (!srv_.opts.oauth->is_metadata_path(path, srv_.opts.path))
    return false;
  if (req.method() != http::verb::get && req.method() != http::verb::head) {
    respond_plain(405, "use GET or HEAD", "GET, HEAD");
    return true;
  }
  auto res = start_response(http::status::ok);
  // Public metadata, read by browser-based clients from other origins.
  res->set(http::field::access_control_allow_origin, "*");
  set_body(*res, srv_.opts.oauth->metadata_document(), "application/json");
  write(std::move(res));
  return true;
}

void connection::release_request() {
  if (ctx_.limit_key) {
    srv_.opts.limiter->release(*ctx_.limit_key);
    ctx_.limit_key.reset();
  }
}

/// While a 2026-07-28 request runs, reads from the socket: the client
/// hanging up cancels the request (nothing more is sent for it). Bytes of
/// a pipelined next request are kept for later.
void connection::watch_hangup() {
  if (buffer_.size() > 0)
    return; // the next request is here already: the client is still on
  watching_ = true;
  stream_.async_read_some(
    buffer_.prepare(4096),
    [self = shared_from_this()](error_code ec, std::size_t n) {
      self->watching_ = false;
      if (!ec) {
        self->buffer_.commit(n);
      } else if (ec != net::error::operation_aborted && !self->closed_
                 && self->busy_) {
        TTM_LOG_F(debug, "http", "the client closed the response stream: "
                                 "request cancelled",
                  self->about());
        self->close_now();
        return;
      }
      if (std::exchange(self->read_after_watch_, false))
        self->read_next();
    });
}

actors::sink_ptr connection::make_sink() {
  return std::make_shared<post_sink>(shared_from_this());
}

} // namespace ttm::edge
