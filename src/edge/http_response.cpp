// The writing side of one HTTP connection (see http_connection.cpp for the
// reading side): refusals, plain and raw bodies, the X-Request-Id and
// keep-alive headers, lingering after an early error so that the client
// sees the response, and the transport's reply to a frame.

#include "edge/http_connection.hpp"

#include "log.hpp"
#include "metrics.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/request_ids.hpp"

#include <caf/send.hpp>

#include <rapidjson/document.h>

#include <sys/socket.h>

#include <cerrno>

namespace ttm::edge {

namespace {

/// Ignores everything: for fire-and-forget `end` messages.
class discard_sink final : public actors::reply_sink {
public:
  void deliver(std::string) override {
  }
  void refused(actors::route_refusal) override {
  }
  void close() override {
  }
};

/// After an early error response, how much of an unread body is dropped
/// before the server stops reading, and when it closes: until then the
/// client can read the response instead of a reset.
constexpr std::size_t max_linger_bytes = 8 * 1024 * 1024;
constexpr auto linger_timeout = std::chrono::seconds{2};

/// Whether an initialize response carries a result (not an error).
bool is_result(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str(), json.size());
  return !d.HasParseError() && d.IsObject() && d.HasMember("result");
}

/// Whether the peer of socket `fd` has closed its side (or reset): a
/// non-blocking peek, which takes nothing from the socket.
bool hung_up(int fd) {
  char c;
  auto n = ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0
         || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

} // namespace

void connection::refuse(const refusal& r) {
  release_request(); // e.g. admitted, then no session id could be made
  if (r.close)
    ctx_.keep_alive = false;
  auto res = start_response(static_cast<http::status>(r.status));
  if (!r.www_authenticate.empty())
    res->set(http::field::www_authenticate, r.www_authenticate);
  if (!r.allow.empty())
    res->set(http::field::allow, r.allow);
  if (!r.retry_after.empty())
    res->set(http::field::retry_after, r.retry_after);
  auto body = protocol::encode_error(ctx_.id, r.code, r.message, r.data_json);
  protocol::stamp_error(body, ctx_.trace.request_id);
  TTM_LOG_F(debug, "http", "refused with " + std::to_string(r.status) + ": "
                             + r.message,
            about());
  set_body(*res, std::move(body), "application/json");
  write(std::move(res));
}

void connection::respond_plain(int status, std::string text,
                               std::string_view allow) {
  auto res = start_response(static_cast<http::status>(status));
  if (!allow.empty())
    res->set(http::field::allow, allow);
  set_body(*res, std::move(text) + "\n", "text/plain; charset=utf-8");
  write(std::move(res));
}

void connection::respond_raw(int status, std::string body,
                             std::string_view type) {
  auto res = start_response(static_cast<http::status>(status));
  set_body(*res, std::move(body), type);
  write(std::move(res));
}

std::shared_ptr<connection::response>
connection::start_response(http::status status) {
  auto res = std::make_shared<response>(status, ctx_.version);
  res->set(http::field::server, "time-tracker-mcp");
  // Every response names its request, refusals included (a request whose
  // header could not be read gets a fresh id).
  protocol::ensure_id(ctx_.trace, srv_.opts.ids);
  res->set("X-Request-Id", ctx_.trace.request_id);
  return res;
}

void connection::set_body(response& res, std::string body,
                          std::string_view type) {
  if (!body.empty())
    res.set(http::field::content_type, type);
  if (ctx_.head) {
    res.content_length(body.size());
    return;
  }
  res.body() = std::move(body);
}

void connection::write(std::shared_ptr<response> res) {
  if (closed_)
    return;
  // Every response goes out here: each refusal (4xx, 5xx) is counted, by
  // status, whichever rule made it.
  metrics::refusal(static_cast<int>(res->result_int()));
  // A body we did not read would be taken for the next request.
  bool body_unread = parser_ && !parser_->is_done();
  bool keep = ctx_.keep_alive && !srv_.draining && !body_unread;
  res->keep_alive(keep);
  if (!ctx_.head)
    res->prepare_payload(); // Content-Length, also 0 (202), none for 204
  stream_.expires_after(srv_.opts.write_timeout);
  http::async_write(stream_, *res,
                    [self = shared_from_this(), res, keep,
                     body_unread](error_code ec, std::size_t) {
                      self->set_busy(false);
                      if (ec) {
                        self->close_now();
                        return;
                      }
                      if (keep && self->watching_) {
                        // The hang-up watch still reads: end it first.
                        self->read_after_watch_ = true;
                        error_code ignored;
                        self->stream_.socket().cancel(ignored);
                      } else if (keep)
                        self->read_next();
                      else if (body_unread)
                        self->linger();
                      else
                        self->close_now();
                    });
}

/// Closes after an early response while the client may still be sending
/// its body: stop sending, drop what comes (bounded), close after
/// `linger_timeout`, so that the client reads the response instead of a
/// TCP reset.
void connection::linger() {
  // Closed first when the cap needs room: it has had its answer.
  if (!srv_.enter(id_, conn_phase::lingering))
    return close_now(); // chosen for eviction meanwhile
  error_code ec;
  stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  buffer_.clear();
  // The stream's timeout covers only its own reads; the drain waits on the
  // socket, so a timer of its own bounds it.
  linger_timer_.emplace(stream_.get_executor());
  linger_timer_->expires_after(linger_timeout);
  linger_timer_->async_wait([self = shared_from_this()](error_code e) {
    if (!e)
      self->close_now();
  });
  drain_input(0);
}

void connection::drain_input(std::size_t so_far) {
  stream_.socket().async_wait(
    tcp::socket::wait_read, [self = shared_from_this(), so_far](error_code ec) {
      if (ec || self->closed_)
        return self->close_now();
      // MSG_TRUNC: the kernel drops the bytes without copying them out
      // (with 64 KiB reads a refused body cost the I/O thread 2-3 ms).
      int fd = self->stream_.socket().native_handle();
      std::size_t total = so_far;
      for (;;) {
        ssize_t n = ::recv(fd, nullptr, max_linger_bytes - total + 1,
                           MSG_TRUNC | MSG_DONTWAIT);
        if (n > 0) {
          total += static_cast<std::size_t>(n);
          if (total > max_linger_bytes)
            return self->stop_draining();
          continue;
        }
        if (n < 0 && errno == EINTR)
          continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
          return self->drain_input(total);
        return self->close_now(); // end of input, or an error
      }
    });
}

/// Past the drain's budget: read no more and let TCP's flow control hold
/// the client until the linger timer closes. A client that reads while it
/// sends (most do) has its response by then; closing at once would reset
/// the connection before a slow one read it. The smallest receive buffer
/// bounds what the kernel keeps for it meanwhile.
void connection::stop_draining() {
  int small = 1;
  ::setsockopt(stream_.socket().native_handle(), SOL_SOCKET, SO_RCVBUF, &small,
               sizeof small);
}

void connection::on_reply(transport_reply r) {
  release_request();
  if (closed_) {
    // The client left during initialize: nobody will use that session.
    if (!ctx_.new_session.empty() && r.kind == transport_reply::done)
      caf::anon_send(srv_.transport, actors::end_atom::value,
                     ctx_.new_session, ctx_.mcp.principal,
                     actors::sink_ptr{std::make_shared<discard_sink>()});
    return;
  }
  // A 2026-07-28 call runs inline on this thread (send_inline), so its
  // reply is here before watch_hangup could see a hang-up that came with
  // the request: one already in the socket cancels it now, as it would
  // have while the call was in flight.
  if (watching_ && hung_up(stream_.socket().native_handle())) {
    TTM_LOG_F(debug, "http", "the client closed the response stream: "
                             "request cancelled",
              about());
    close_now();
    return;
  }
  switch (r.kind) {
    case transport_reply::unknown_route:
      return refuse(session_not_found());
    case transport_reply::busy:
      return refuse(sessions_busy(srv_.opts.retry_after));
    case transport_reply::closed:
      TTM_LOG_F(debug, "http", "session " + short_id(ctx_.mcp.session)
                                 + " ended by the client",
                about());
      return write(start_response(http::status::no_content));
    case transport_reply::done:
      break;
  }
  if (ctx_.is_delete) // not reached: end answers close or refused
    return write(start_response(http::status::no_content));
  auto res = start_response(http::status::ok);
  if (!ctx_.new_session.empty()) {
    if (r.responses.size() == 1 && is_result(r.responses.front())) {
      res->set("Mcp-Session-Id", ctx_.new_session);
      TTM_LOG_F(debug, "http", "session " + short_id(ctx_.new_session)
                                 + " created",
                about());
    } else {
      // A failed initialize creates no session.
      caf::anon_send(srv_.transport, actors::end_atom::value,
                     ctx_.new_session, ctx_.mcp.principal,
                     actors::sink_ptr{std::make_shared<discard_sink>()});
    }
  }
  if (!ctx_.expects_response || r.responses.empty()) {
    // Notifications and responses from the client, or a request that was
    // cancelled while in flight (MCP: it gets no response).
    res->result(http::status::accepted);
    return write(std::move(res));
  }
  if (!answer_with_sse(ctx_.mcp.accept, !r.notifications.empty())) {
    set_body(*res, std::move(r.responses.back()), "application/json");
    return write(std::move(res));
  }
  res->set(http::field::cache_control, "no-cache");
  res->set("X-Accel-Buffering", "no");
  set_body(*res, sse_body(r.notifications, r.responses), "text/event-stream");
  write(std::move(res));
}

} // namespace ttm::edge
