// The Streamable HTTP edge: all Beast code of the project is in this file.
//
// One `connection` per TCP connection, all of its work on its own strand.
// A POSTed message goes to the transport actor with anon_send; the transport
// answers through a `post_sink`, which collects the replies and posts them
// back to the connection's strand once the frame is done. No I/O thread ever
// waits for an actor, and no actor ever touches a socket.

// Beast's string_view is std::string_view here (this file only).
#define BOOST_BEAST_USE_STD_STRING_VIEW

#include "edge/http.hpp"

#include "log.hpp"
#include "mcp/wire.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/mcp.hpp"
#include "protocol/modern.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <caf/send.hpp>

#include <rapidjson/document.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include <sys/random.h>

namespace ttm::edge {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;

int token_index(const std::string& candidate,
                const std::vector<std::string>& tokens) noexcept {
  // Every configured token is compared over its full length, whatever the
  // candidate: no early exit on the first differing byte or on a match.
  int found = -1;
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    const auto& token = tokens[t];
    unsigned diff = static_cast<unsigned>(token.size() ^ candidate.size());
    for (std::size_t i = 0; i < token.size(); ++i) {
      auto c = i < candidate.size() ? static_cast<unsigned char>(candidate[i])
                                    : 0u;
      diff |= static_cast<unsigned char>(token[i]) ^ c;
    }
    // Branch-free select: found = t when this token matched and none
    // before it did (the first line with a token wins).
    int match = -static_cast<int>(diff == 0 && !token.empty());
    int take = match & (found >> 31); // found < 0: all ones
    found = (found & ~take) | (static_cast<int>(t) & take);
  }
  return found;
}

bool token_matches(const std::string& candidate,
                   const std::vector<std::string>& tokens) noexcept {
  return token_index(candidate, tokens) >= 0;
}

std::optional<std::string> decode_header_value(std::string_view value) {
  constexpr std::string_view open = "=?base64?", close = "?=";
  if (value.size() < open.size() + close.size()
      || value.substr(0, open.size()) != open
      || value.substr(value.size() - close.size()) != close)
    return std::string{value};
  auto b64 = value.substr(open.size(),
                          value.size() - open.size() - close.size());
  auto digit = [](char c) -> int {
    if (c >= 'A' && c <= 'Z')
      return c - 'A';
    if (c >= 'a' && c <= 'z')
      return c - 'a' + 26;
    if (c >= '0' && c <= '9')
      return c - '0' + 52;
    if (c == '+')
      return 62;
    if (c == '/')
      return 63;
    return -1;
  };
  while (!b64.empty() && b64.back() == '=')
    b64.remove_suffix(1);
  if (b64.size() % 4 == 1)
    return std::nullopt;
  std::string out;
  unsigned acc = 0;
  int bits = 0;
  for (char c : b64) {
    int d = digit(c);
    if (d < 0)
      return std::nullopt;
    acc = (acc << 6) | static_cast<unsigned>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

namespace {

constexpr std::size_t max_header_bytes = 16 * 1024;
/// After an early error response, how much of an unread body is drained so
/// that the client sees the response instead of a reset.
constexpr std::size_t max_linger_bytes = 8 * 1024 * 1024;
constexpr auto linger_timeout = std::chrono::seconds{2};
/// JSON-RPC codes in HTTP error bodies (implementation-defined range).
constexpr int http_refusal_code = -32000;
constexpr int session_not_found_code = -32001;

std::string lower(std::string_view s) {
  std::string out{s};
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

/// The media type of a Content-Type / Accept entry: lower case, no params.
std::string media_type(std::string_view entry) {
  return lower(trim(entry.substr(0, entry.find(';'))));
}

/// True when an Accept entry carries q=0 ("not acceptable").
bool q_is_zero(std::string_view entry) {
  for (auto pos = entry.find(';'); pos != std::string_view::npos;) {
    auto next = entry.find(';', pos + 1);
    auto param = trim(entry.substr(pos + 1, next == std::string_view::npos
                                              ? std::string_view::npos
                                              : next - pos - 1));
    if (param.size() >= 2 && (param[0] == 'q' || param[0] == 'Q')
        && param[1] == '=') {
      auto v = param.substr(2);
      return v.find_first_not_of("0.") == std::string_view::npos;
    }
    pos = next;
  }
  return false;
}

struct accept_info {
  bool json = false;
  bool sse = false;
};

/// What an Accept header allows. Absent means anything (RFC 9110), which we
/// answer as JSON; SSE only when named (or text/*): a client that merely
/// says */* may not speak it.
accept_info parse_accept(std::optional<std::string_view> header) {
  if (!header)
    return {true, false};
  accept_info a;
  std::string_view rest = *header;
  while (!rest.empty()) {
    auto comma = rest.find(',');
    auto entry = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{}
                                           : rest.substr(comma + 1);
    if (q_is_zero(entry))
      continue;
    auto type = media_type(entry);
    if (type == "application/json" || type == "application/*"
        || type == "*/*")
      a.json = true;
    if (type == "text/event-stream" || type == "text/*")
      a.sse = true;
  }
  return a;
}

/// 128 bits from the kernel's CSPRNG as 32 hex digits (visible ASCII, as
/// MCP requires of session ids).
std::string new_session_id() {
  unsigned char bytes[16];
  std::size_t got = 0;
  while (got < sizeof(bytes)) {
    auto n = ::getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      throw std::runtime_error(std::string{"getrandom: "}
                               + std::strerror(errno));
    }
    got += static_cast<std::size_t>(n);
  }
  static constexpr char hex[] = "0123456789abcdef";
  std::string id;
  id.reserve(32);
  for (auto b : bytes) {
    id += hex[b >> 4];
    id += hex[b & 15];
  }
  return id;
}

/// Session ids as MCP defines them: 1..128 visible ASCII characters.
bool valid_session_id(std::string_view id) {
  return !id.empty() && id.size() <= 128
         && std::all_of(id.begin(), id.end(),
                        [](char c) { return c >= 0x21 && c <= 0x7e; });
}

std::string short_id(const std::string& id) {
  return id.size() <= 8 ? id : id.substr(0, 8) + "...";
}

/// An error body for HTTP-level refusals on the MCP endpoint.
std::string error_body(const protocol::request_id& id, int code,
                       std::string_view message) {
  return protocol::encode_error(id, code, message);
}

/// Whether an initialize response carries a result (not an error).
bool is_result(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str(), json.size());
  return !d.HasParseError() && d.IsObject() && d.HasMember("result");
}

class connection;

/// What the transport said about one frame, handed to the connection.
struct transport_reply {
  enum kind_t { done, unknown_route, busy, closed } kind = done;
  std::vector<std::string> notifications;
  std::vector<std::string> responses;
};

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

} // namespace

struct http_edge::impl {
  // Declared before the io_context: connections destroyed with it (pending
  // handlers) unregister themselves here.
  std::mutex mtx;
  std::condition_variable cv;
  std::unordered_map<std::uint64_t, std::weak_ptr<connection>> conns;
  std::uint64_t next_conn_id = 0;
  /// Connections between a request's complete header and its response's
  /// last byte: what a drain waits for.
  std::size_t busy = 0;

  actors::transport_actor transport;
  http_options opts;
  std::vector<std::string> allowed_hosts;   // lower case
  std::vector<std::string> allowed_origins; // lower case
  std::atomic<bool> draining{false};
  std::uint16_t bound_port = 0;
  bool stopped = false;

  net::io_context ioc;
  std::optional<net::executor_work_guard<net::io_context::executor_type>>
    work;
  tcp::acceptor acceptor{net::make_strand(ioc)};
  net::steady_timer accept_backoff{acceptor.get_executor()};
  std::vector<std::thread> threads;

  impl(actors::transport_actor t, http_options o)
    : transport(std::move(t)), opts(std::move(o)), ioc(static_cast<int>(
                                                     std::max<std::size_t>(
                                                       opts.threads, 1))) {
  }

  void add_busy(int delta) {
    {
      std::lock_guard<std::mutex> guard{mtx};
      busy = static_cast<std::size_t>(static_cast<long>(busy) + delta);
    }
    cv.notify_all();
  }

  void compute_allow_lists();
  void do_accept();
  void refuse_connection(tcp::socket& socket);
  /// Rate limit for warnings a flood could repeat (on the acceptor strand).
  bool warn_limited();
  std::chrono::steady_clock::time_point last_warning{};
  template <class F>
  void for_each_connection(F f);
};

namespace {

class post_sink;

class connection : public std::enable_shared_from_this<connection> {
public:
  connection(tcp::socket socket, http_edge::impl& srv, std::uint64_t id)
    : stream_(std::move(socket)), srv_(srv), id_(id) {
  }

  ~connection() {
    if (busy_)
      srv_.add_busy(-1);
    std::lock_guard<std::mutex> guard{srv_.mtx};
    srv_.conns.erase(id_);
  }

  void start() {
    net::dispatch(stream_.get_executor(),
                  [self = shared_from_this()] { self->read_next(); });
  }

  net::any_io_executor executor() {
    return stream_.get_executor();
  }

  /// On the strand: a drain started. Idle connections close now; a request
  /// in flight finishes and its response closes the connection.
  void on_drain() {
    if (!busy_)
      close_now();
  }

  /// On the strand: the edge is stopping.
  void close_now() {
    if (closed_)
      return;
    closed_ = true;
    error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
  }

  /// On the strand: the transport is done with the request's frame.
  void on_reply(transport_reply r);

private:
  using response = http::response<http::string_body>;

  /// Per request.
  struct request_ctx {
    unsigned version = 11;
    bool keep_alive = true;
    bool head = false;
    accept_info accept;
    std::string session;
    /// Set for initialize: the session id being created.
    std::string new_session;
    bool expects_response = false;
    protocol::request_id id; // of a single request, for error bodies
    bool is_delete = false;
    /// Whose request this is: the bearer token's principal, or `local`.
    std::string principal;
    /// The MCP headers, trimmed (empty: absent).
    std::string version_header;
    std::string method_header;
    std::optional<std::string> name_header;
    /// A 2026-07-28 request: no session; a hang-up cancels it.
    bool modern = false;
    /// Why the 2025 header rules refuse this request, should it be one.
    std::string legacy_refusal;
  };

  void set_busy(bool b) {
    if (b != busy_) {
      busy_ = b;
      srv_.add_busy(b ? 1 : -1);
    }
  }

  void read_next() {
    if (closed_)
      return;
    if (srv_.draining) {
      close_now();
      return;
    }
    parser_.emplace();
    parser_->header_limit(max_header_bytes);
    // No body limit while the header is read: Beast would refuse a large
    // Content-Length in the header as a parse error. route() answers it with
    // 413 after the Host/Origin/token checks; read_body() sets the limit
    // for chunked bodies. (Boost 1.74 compares a Content-Length against
    // an empty limit as "too large", so "no limit" is the largest value.)
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
    ctx_ = {};
    if (buffer_.size() > 0) {
      read_header();
      return;
    }
    // Idle keep-alive: wait for the next request's first byte.
    stream_.expires_after(srv_.opts.idle_timeout);
    stream_.async_read_some(
      buffer_.prepare(4096),
      [self = shared_from_this()](error_code ec, std::size_t n) {
        if (ec) {
          self->close_now();
          return;
        }
        self->buffer_.commit(n);
        self->read_header();
      });
  }

  void read_header() {
    // One deadline for the whole request, headers and body.
    stream_.expires_after(srv_.opts.read_timeout);
    http::async_read_header(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](error_code ec, std::size_t) {
        self->on_header(ec);
      });
  }

  void on_header(error_code ec) {
    if (ec) {
      if (ec == http::error::header_limit) {
        set_busy(true);
        ctx_.keep_alive = false;
        return respond_plain(http::status::request_header_fields_too_large,
                             "request headers exceed 16 KiB");
      }
      if (ec == http::error::end_of_stream || ec == beast::error::timeout
          || ec == net::error::operation_aborted || closed_) {
        close_now();
        return;
      }
      set_busy(true);
      ctx_.keep_alive = false;
      TTM_LOG(debug, "http", "malformed request: " + ec.message());
      return respond_plain(http::status::bad_request,
                           "malformed HTTP request: " + ec.message());
    }
    set_busy(true);
    auto& req = parser_->get();
    ctx_.version = req.version();
    ctx_.keep_alive = req.keep_alive();
    ctx_.head = req.method() == http::verb::head;
    route(req);
  }

  void route(const http::request<http::string_body>& req) {
    auto target = std::string_view{req.target().data(), req.target().size()};
    auto path = target.substr(0, target.find('?'));
    if (path == "/healthz" || path == "/readyz") {
      if (req.method() != http::verb::get && req.method() != http::verb::head)
        return respond_plain(http::status::method_not_allowed,
                             "use GET or HEAD", "GET, HEAD");
      if (path == "/readyz" && srv_.draining)
        return respond_raw(http::status::service_unavailable,
                           R"({"status":"draining"})", "application/json");
      return respond_raw(http::status::ok,
                         path == "/healthz" ? R"({"status":"ok"})"
                                            : R"({"status":"ready"})",
                         "application/json");
    }
    if (path != srv_.opts.path)
      return respond_plain(http::status::not_found,
                           "no such endpoint; MCP is served at "
                             + srv_.opts.path);
    on_mcp(req);
  }

  void on_mcp(const http::request<http::string_body>& req) {
    auto header = [&](std::string_view name) {
      auto h = req.find(name);
      return h == req.end() ? std::string{} : std::string{trim(h->value())};
    };
    // Read first: a refusal of a 2026-07-28 request uses that era's codes.
    ctx_.version_header = header("MCP-Protocol-Version");
    ctx_.method_header = header("Mcp-Method");
    if (auto n = req.find("Mcp-Name"); n != req.end())
      ctx_.name_header = std::string{trim(n->value())};
    // DNS rebinding: a browser page may reach us under a foreign name.
    auto host = req.find(http::field::host);
    if (req.count(http::field::host) > 1)
      return refuse(http::status::bad_request,
                    "Bad Request: more than one Host header");
    if (host == req.end()) {
      if (ctx_.version >= 11)
        return refuse(http::status::bad_request,
                      "Bad Request: the Host header is missing");
    } else if (!allowed(srv_.allowed_hosts, lower(trim(host->value())))) {
      TTM_LOG(info, "http", "refused a request for Host '"
                              + std::string{host->value()} + "'");
      return refuse(http::status::forbidden,
                    "Forbidden: Host '" + std::string{host->value()}
                      + "' is not allowed (--allowed-hosts)");
    }
    if (auto origin = req.find(http::field::origin); origin != req.end()) {
      auto o = lower(trim(origin->value()));
      while (!o.empty() && o.back() == '/')
        o.pop_back();
      if (!allowed(srv_.allowed_origins, o)) {
        TTM_LOG(info, "http", "refused a request from Origin '"
                                + std::string{origin->value()} + "'");
        return refuse(http::status::forbidden,
                      "Forbidden: Origin '" + std::string{origin->value()}
                        + "' is not allowed (--allowed-origins)");
      }
    }
    ctx_.principal = "local";
    if (!srv_.opts.auth_tokens.empty()) {
      auto auth = req.find(http::field::authorization);
      std::string_view value;
      if (auth != req.end())
        value = std::string_view{auth->value().data(), auth->value().size()};
      bool bearer = value.size() > 7 && lower(value.substr(0, 7)) == "bearer ";
      int token = bearer ? token_index(std::string{trim(value.substr(7))},
                                       srv_.opts.auth_tokens)
                         : -1;
      if (token >= 0) {
        auto t = static_cast<std::size_t>(token);
        ctx_.principal = t < srv_.opts.auth_principals.size()
                           ? srv_.opts.auth_principals[t]
                           : "token-" + std::to_string(t + 1);
      }
      if (token < 0) {
        // Never log the token itself.
        TTM_LOG(info, "http", auth == req.end()
                                ? "refused a request without a bearer token"
                                : "refused a request with a wrong token");
        return refuse(http::status::unauthorized,
                      auth == req.end()
                        ? "Unauthorized: send 'Authorization: Bearer TOKEN'"
                        : "Unauthorized: the bearer token is not valid",
                      http_refusal_code,
                      auth == req.end() ? R"(Bearer realm="time-tracker-mcp")"
                                        : R"(Bearer realm="time-tracker-mcp", )"
                                          R"(error="invalid_token")");
      }
    }
    bool modern_header = protocol::names_modern_era(ctx_.version_header);
    auto method = req.method();
    if (modern_header && method == http::verb::delete_)
      return refuse(http::status::method_not_allowed,
                    "Method Not Allowed: protocol revision 2026-07-28 has "
                    "no sessions to end; POST each request");
    if (method != http::verb::post && method != http::verb::delete_)
      // We never send server-initiated messages outside a request's own
      // response, so there is no standalone SSE stream to GET.
      return refuse(http::status::method_not_allowed,
                    "Method Not Allowed: use POST for JSON-RPC messages and "
                    "DELETE to end a session; this server opens no "
                    "standalone SSE stream (GET)");
    // The 2025 rules for Mcp-Session-Id and MCP-Protocol-Version. They are
    // applied once the body shows a 2025 request (at once for DELETE):
    // 2026-07-28 ignores Mcp-Session-Id (and Last-Event-ID), and its own
    // header checks come first.
    if (auto sid = req.find("Mcp-Session-Id");
        sid != req.end() && !modern_header) {
      ctx_.session = std::string{trim(sid->value())};
      if (!valid_session_id(ctx_.session))
        ctx_.legacy_refusal = "Bad Request: Mcp-Session-Id must be 1 to 128 "
                              "visible ASCII characters";
    }
    // The revision header follows initialize; initialize itself negotiates
    // in its body. Absent: 2025-03-26, which we serve.
    if (!ctx_.session.empty() && !modern_header
        && ctx_.legacy_refusal.empty() && !ctx_.version_header.empty()
        && !protocol::is_supported_revision(ctx_.version_header))
      ctx_.legacy_refusal = "Bad Request: unsupported MCP-Protocol-Version '"
                            + ctx_.version_header
                            + "' (supported: 2025-03-26, 2025-06-18, "
                              "2025-11-25)";
    if (method == http::verb::delete_) {
      if (!ctx_.legacy_refusal.empty())
        return refuse(http::status::bad_request, ctx_.legacy_refusal);
      if (ctx_.session.empty())
        return refuse(http::status::bad_request,
                      "Bad Request: DELETE needs the Mcp-Session-Id header "
                      "of the session to end");
      ctx_.is_delete = true;
      caf::anon_send(srv_.transport, actors::end_atom::value, ctx_.session,
                     ctx_.principal, make_sink());
      return;
    }
    auto ct = req.find(http::field::content_type);
    if (ct == req.end() || media_type(ct->value()) != "application/json")
      return refuse(http::status::unsupported_media_type,
                    "Unsupported Media Type: POST a JSON-RPC message as "
                    "'Content-Type: application/json'");
    auto accept = req.find(http::field::accept);
    ctx_.accept = parse_accept(
      accept == req.end() ? std::nullopt
                          : std::optional<std::string_view>{std::string_view{
                            accept->value().data(), accept->value().size()}});
    if (!ctx_.accept.json && !ctx_.accept.sse)
      return refuse(http::status::not_acceptable,
                    "Not Acceptable: the Accept header must allow "
                    "application/json or text/event-stream");
    if (auto len = parser_->content_length();
        len && *len > srv_.opts.max_body_bytes)
      return too_large();
    if (auto expect = req.find(http::field::expect);
        ctx_.version >= 11 && expect != req.end()
        && lower(trim(expect->value())) == "100-continue")
      return send_continue();
    read_body();
  }

  void too_large() {
    refuse(http::status::payload_too_large,
           "Payload Too Large: the body exceeds "
             + std::to_string(srv_.opts.max_body_bytes) + " bytes");
  }

  void send_continue() {
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

  void read_body() {
    parser_->body_limit(srv_.opts.max_body_bytes);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](error_code ec, std::size_t) {
                       self->on_body(ec);
                     });
  }

  void on_body(error_code ec) {
    if (ec == http::error::body_limit)
      return too_large();
    if (ec) {
      if (ec == http::error::end_of_stream || ec == beast::error::timeout
          || ec == net::error::operation_aborted || closed_) {
        close_now();
        return;
      }
      // A malformed body (e.g. a bad chunk size) is answered, not dropped.
      ctx_.keep_alive = false;
      TTM_LOG(debug, "http", "malformed request body: " + ec.message());
      return respond_plain(http::status::bad_request,
                           "malformed HTTP request body: " + ec.message());
    }
    stream_.expires_never(); // the transport may take its time
    const auto& body = parser_->get().body();
    auto f = mcp::decode(body);
    if (f.error_code != 0)
      return refuse(http::status::bad_request, f.error_message,
                    f.error_code);
    if (!f.batch && f.messages.size() == 1) {
      const auto& m = f.messages.front();
      if (m.kind == protocol::message::invalid) {
        ctx_.id = m.id;
        return refuse(http::status::bad_request, m.error_message,
                      m.error_code);
      }
      if (m.kind == protocol::message::malformed_notification)
        return refuse(http::status::bad_request,
                      "Invalid Request: " + m.error_message,
                      protocol::invalid_request);
      if (m.kind == protocol::message::request)
        ctx_.id = m.id;
    }
    // The era of a POST: a message claiming 2026-07-28 in its _meta, or a
    // 2026-07-28 (or later) MCP-Protocol-Version header, is never handed to
    // the 2025 code.
    if (protocol::names_modern_era(ctx_.version_header)
        || std::any_of(f.messages.begin(), f.messages.end(),
                       [](const protocol::message& m) {
                         return m.meta.claimed;
                       }))
      return on_modern(std::move(f));
    if (!ctx_.legacy_refusal.empty())
      return refuse(http::status::bad_request, ctx_.legacy_refusal);
    ctx_.expects_response = std::any_of(
      f.messages.begin(), f.messages.end(), [](const protocol::message& m) {
        return m.kind == protocol::message::request
               || m.kind == protocol::message::invalid;
      });
    bool is_initialize = !f.batch && f.messages.size() == 1
                         && f.messages.front().kind
                              == protocol::message::request
                         && f.messages.front().method == "initialize";
    if (ctx_.session.empty()) {
      if (!is_initialize)
        return refuse(http::status::bad_request,
                      "Bad Request: the Mcp-Session-Id header is missing; "
                      "start a session with initialize (without the header) "
                      "and send its id on every later request");
      try {
        ctx_.new_session = new_session_id();
      } catch (const std::exception& e) {
        TTM_LOG(error, "http", e.what());
        return refuse(http::status::internal_server_error,
                      "Internal error: cannot create a session id",
                      protocol::internal_error);
      }
      caf::anon_send(srv_.transport, actors::open_atom::value,
                     ctx_.new_session, ctx_.principal, std::move(f),
                     make_sink());
      return;
    }
    caf::anon_send(srv_.transport, actors::forward_atom::value, ctx_.session,
                   ctx_.principal, std::move(f), make_sink());
  }

  /// A POST of the 2026-07-28 revision: the header checks of its
  /// Streamable HTTP transport, then the principal's client actor.
  void on_modern(protocol::frame f) {
    ctx_.modern = true;
    if (f.batch)
      return refuse(http::status::bad_request,
                    "Invalid Request: protocol revision 2026-07-28 takes one "
                    "JSON-RPC message per POST, not a batch",
                    protocol::invalid_request);
    const auto& m = f.messages.front();
    if (m.kind == protocol::message::response)
      return refuse(http::status::bad_request,
                    "Invalid Request: in protocol revision 2026-07-28 the "
                    "server sends no requests, so clients send no responses",
                    protocol::invalid_request);
    const auto& hv = ctx_.version_header;
    const auto& hm = ctx_.method_header;
    auto mismatch = [&](std::string text) {
      refuse(http::status::bad_request, "Header mismatch: " + std::move(text),
             protocol::header_mismatch);
    };
    if (m.meta.claimed) {
      if (auto r = protocol::check_envelope(m))
        return refuse_modern(*r);
      if (hv.empty())
        return mismatch("the MCP-Protocol-Version header is missing; it "
                        "must repeat the body's _meta['"
                        + std::string{protocol::meta_key::protocol_version}
                        + "'] ('" + m.meta.version + "')");
      if (hv != m.meta.version)
        return mismatch("MCP-Protocol-Version header value '" + hv
                        + "' does not match body value '" + m.meta.version
                        + "'");
      if (!hm.empty() && hm != m.method)
        return mismatch("Mcp-Method header value '" + hm
                        + "' does not match body value '" + m.method + "'");
    } else if (m.kind == protocol::message::request) {
      return refuse(
        http::status::bad_request,
        "Invalid params: a request with 'MCP-Protocol-Version: " + hv
          + "' needs params._meta with '"
          + std::string{protocol::meta_key::protocol_version} + "' and '"
          + std::string{protocol::meta_key::client_capabilities} + "'",
        protocol::invalid_params);
    }
    if (m.kind == protocol::message::notification) {
      if (!hm.empty() && hm != m.method)
        return mismatch("Mcp-Method header value '" + hm
                        + "' does not match body value '" + m.method + "'");
      // Cancelling over HTTP means closing the request's response stream; a
      // posted notification (e.g. notifications/cancelled) names no stream
      // of ours and is accepted without effect.
      TTM_LOG(debug, "http", "accepted 2026-07-28 notification '" + m.method
                               + "' without effect");
      auto res = start_response(http::status::accepted);
      return write(std::move(res));
    }
    if (auto r = protocol::check_version(m))
      return refuse_modern(*r);
    if (hm.empty())
      return mismatch("the Mcp-Method header is missing; it must be '"
                      + m.method + "'");
    if (m.method == "tools/call" || m.method == "prompts/get"
        || m.method == "resources/read") {
      if (!ctx_.name_header)
        return mismatch("the Mcp-Name header is missing; it must be '"
                        + m.name + "'");
      auto name = decode_header_value(*ctx_.name_header);
      if (!name)
        return mismatch("the Mcp-Name header '" + *ctx_.name_header
                        + "' is not valid =?base64?...?= text");
      if (*name != m.name)
        return mismatch("Mcp-Name header value '" + *name
                        + "' does not match body value '" + m.name + "'");
    }
    if (auto r = protocol::check_method(m))
      return refuse_modern(*r);
    ctx_.expects_response = true;
    caf::anon_send(srv_.transport, actors::call_atom::value, ctx_.principal,
                   std::move(f), make_sink());
    watch_hangup();
  }

  void refuse_modern(const protocol::modern_refusal& r) {
    auto res = start_response(static_cast<http::status>(r.http_status));
    set_body(*res,
             protocol::encode_error(ctx_.id, r.code, r.message, r.data_json),
             "application/json");
    write(std::move(res));
  }

  /// While a 2026-07-28 request runs, reads from the socket: the client
  /// hanging up cancels the request (nothing more is sent for it). Bytes of
  /// a pipelined next request are kept for later.
  void watch_hangup() {
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
          TTM_LOG(debug, "http", "the client closed the response stream: "
                                 "request cancelled");
          self->close_now();
          return;
        }
        if (std::exchange(self->read_after_watch_, false))
          self->read_next();
      });
  }

  actors::sink_ptr make_sink();

  static bool allowed(const std::vector<std::string>& list,
                      const std::string& value) {
    return std::find(list.begin(), list.end(), value) != list.end();
  }

  /// An error on the MCP endpoint: a JSON-RPC error body.
  void refuse(http::status status, std::string message,
              int code = http_refusal_code, std::string_view www_auth = {}) {
    // 2026-07-28 replies use no code of -32000..-32019: an HTTP-level
    // refusal (401, 403, 405, 406, 413, 415) is an invalid request there.
    if (code == http_refusal_code
        && (ctx_.modern || protocol::names_modern_era(ctx_.version_header)))
      code = protocol::invalid_request;
    auto res = start_response(status);
    if (!www_auth.empty())
      res->set(http::field::www_authenticate, www_auth);
    if (status == http::status::method_not_allowed)
      res->set(http::field::allow, "POST, DELETE");
    set_body(*res, error_body(ctx_.id, code, message), "application/json");
    write(std::move(res));
  }

  void respond_plain(http::status status, std::string text,
                     std::string_view allow = {}) {
    auto res = start_response(status);
    if (!allow.empty())
      res->set(http::field::allow, allow);
    set_body(*res, std::move(text) + "\n", "text/plain; charset=utf-8");
    write(std::move(res));
  }

  void respond_raw(http::status status, std::string body,
                   std::string_view type) {
    auto res = start_response(status);
    set_body(*res, std::move(body), type);
    write(std::move(res));
  }

  std::shared_ptr<response> start_response(http::status status) {
    auto res = std::make_shared<response>(status, ctx_.version);
    res->set(http::field::server, "time-tracker-mcp");
    return res;
  }

  void set_body(response& res, std::string body, std::string_view type) {
    if (!body.empty())
      res.set(http::field::content_type, type);
    if (ctx_.head) {
      res.content_length(body.size());
      return;
    }
    res.body() = std::move(body);
  }

  void write(std::shared_ptr<response> res) {
    if (closed_)
      return;
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
  /// its body: stop sending, read and drop what comes (bounded), then close,
  /// so that the client reads the response instead of a TCP reset.
  void linger() {
    error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream_.expires_after(linger_timeout);
    buffer_.clear();
    drain_input(0);
  }

  void drain_input(std::size_t so_far) {
    stream_.async_read_some(
      buffer_.prepare(64 * 1024),
      [self = shared_from_this(), so_far](error_code ec, std::size_t n) {
        self->buffer_.clear();
        if (ec || so_far + n > max_linger_bytes) {
          self->close_now();
          return;
        }
        self->drain_input(so_far + n);
      });
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http_edge::impl& srv_;
  std::uint64_t id_;
  request_ctx ctx_;
  bool busy_ = false;
  bool closed_ = false;
  bool watching_ = false;
  bool read_after_watch_ = false;
};

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

actors::sink_ptr connection::make_sink() {
  return std::make_shared<post_sink>(shared_from_this());
}

void connection::on_reply(transport_reply r) {
  if (closed_) {
    // The client left during initialize: nobody will use that session.
    if (!ctx_.new_session.empty() && r.kind == transport_reply::done)
      caf::anon_send(srv_.transport, actors::end_atom::value,
                     ctx_.new_session, ctx_.principal,
                     actors::sink_ptr{std::make_shared<discard_sink>()});
    return;
  }
  switch (r.kind) {
    case transport_reply::unknown_route:
      return refuse(http::status::not_found,
                    "Session not found: it ended (DELETE), expired after its "
                    "idle timeout, or never existed; send initialize without "
                    "Mcp-Session-Id to start a new one",
                    session_not_found_code);
    case transport_reply::busy: {
      auto res = start_response(http::status::service_unavailable);
      res->set(http::field::retry_after,
               std::to_string(srv_.opts.retry_after.count()));
      set_body(*res,
               error_body(ctx_.id, http_refusal_code,
                          "Service Unavailable: the limit of concurrent MCP "
                          "sessions is reached; retry later"),
               "application/json");
      return write(std::move(res));
    }
    case transport_reply::closed: {
      TTM_LOG(debug, "http", "session " + short_id(ctx_.session)
                               + " ended by the client");
      auto res = start_response(http::status::no_content);
      return write(std::move(res));
    }
    case transport_reply::done:
      break;
  }
  if (ctx_.is_delete) // not reached: end answers close or refused
    return write(start_response(http::status::no_content));
  auto res = start_response(http::status::ok);
  if (!ctx_.new_session.empty()) {
    if (r.responses.size() == 1 && is_result(r.responses.front())) {
      res->set("Mcp-Session-Id", ctx_.new_session);
      TTM_LOG(debug, "http", "session " + short_id(ctx_.new_session)
                               + " created");
    } else {
      // A failed initialize creates no session.
      caf::anon_send(srv_.transport, actors::end_atom::value,
                     ctx_.new_session, ctx_.principal,
                     actors::sink_ptr{std::make_shared<discard_sink>()});
    }
  }
  if (!ctx_.expects_response || r.responses.empty()) {
    // Notifications and responses from the client, or a request that was
    // cancelled while in flight (MCP: it gets no response).
    res->result(http::status::accepted);
    return write(std::move(res));
  }
  bool sse = (!r.notifications.empty() && ctx_.accept.sse) || !ctx_.accept.json;
  if (!sse) {
    set_body(*res, std::move(r.responses.back()), "application/json");
    return write(std::move(res));
  }
  std::string body;
  auto event = [&](const std::string& json) {
    body += "event: message\ndata: ";
    body += json;
    body += "\n\n";
  };
  for (const auto& n : r.notifications)
    event(n);
  for (const auto& m : r.responses)
    event(m);
  res->set(http::field::cache_control, "no-cache");
  res->set("X-Accel-Buffering", "no");
  set_body(*res, std::move(body), "text/event-stream");
  write(std::move(res));
}

} // namespace

void http_edge::impl::compute_allow_lists() {
  auto port = std::to_string(bound_port);
  std::vector<std::string> names{"localhost", "127.0.0.1", "[::1]"};
  error_code ec;
  auto addr = net::ip::make_address(opts.host, ec);
  if (!ec && !addr.is_unspecified() && opts.host != "127.0.0.1"
      && opts.host != "::1")
    names.push_back(addr.is_v6() ? "[" + lower(opts.host) + "]"
                                 : lower(opts.host));
  for (const auto& n : names) {
    allowed_hosts.push_back(n + ":" + port);
    if (bound_port == 80)
      allowed_hosts.push_back(n);
    allowed_origins.push_back("http://" + n + ":" + port);
    if (bound_port == 80)
      allowed_origins.push_back("http://" + n);
  }
  for (const auto& h : opts.allowed_hosts)
    allowed_hosts.push_back(lower(trim(h)));
  for (const auto& o : opts.allowed_origins) {
    auto v = lower(trim(o));
    while (!v.empty() && v.back() == '/')
      v.pop_back();
    allowed_origins.push_back(v);
  }
}

void http_edge::impl::do_accept() {
  acceptor.async_accept(
    net::make_strand(ioc), [this](error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted || !acceptor.is_open())
        return;
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
      error_code ignored;
      socket.set_option(tcp::no_delay{true}, ignored);
      std::shared_ptr<connection> conn;
      {
        std::lock_guard<std::mutex> guard{mtx};
        if (conns.size() < opts.max_connections) {
          auto id = next_conn_id++;
          conn = std::make_shared<connection>(std::move(socket), *this, id);
          conns.emplace(id, conn);
        }
      }
      if (!conn) {
        refuse_connection(socket);
        do_accept();
        return;
      }
      conn->start();
      do_accept();
    });
}

bool http_edge::impl::warn_limited() {
  auto now = std::chrono::steady_clock::now();
  if (now - last_warning < std::chrono::seconds{1})
    return false;
  last_warning = now;
  return true;
}

void http_edge::impl::refuse_connection(tcp::socket& socket) {
  // A fresh socket's send buffer takes this at once: no waiting on the
  // acceptor's strand.
  static const std::string refusal = [] {
    std::string body = "Service Unavailable: too many open connections; "
                       "retry later\n";
    return "HTTP/1.1 503 Service Unavailable\r\nServer: time-tracker-mcp\r\n"
           "Content-Type: text/plain; charset=utf-8\r\nRetry-After: 1\r\n"
           "Connection: close\r\nContent-Length: "
           + std::to_string(body.size()) + "\r\n\r\n" + body;
  }();
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
  if (warn_limited())
    TTM_LOG(warning, "http", "refused a connection: "
                               + std::to_string(opts.max_connections)
                               + " are open (--max-connections)");
}

template <class F>
void http_edge::impl::for_each_connection(F f) {
  std::vector<std::shared_ptr<connection>> live;
  {
    std::lock_guard<std::mutex> guard{mtx};
    for (auto& [id, weak] : conns)
      if (auto c = weak.lock())
        live.push_back(std::move(c));
  }
  for (auto& c : live)
    net::post(c->executor(), [c, f] { f(*c); });
}

http_edge::http_edge(actors::transport_actor transport, http_options opts)
  : impl_(std::make_unique<impl>(std::move(transport), std::move(opts))) {
}

http_edge::~http_edge() {
  stop();
}

void http_edge::start() {
  auto& s = *impl_;
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
  s.compute_allow_lists();
  s.work.emplace(s.ioc.get_executor());
  net::post(s.acceptor.get_executor(), [&s] { s.do_accept(); });
  for (std::size_t i = 0; i < std::max<std::size_t>(s.opts.threads, 1); ++i)
    s.threads.emplace_back([&s] { s.ioc.run(); });
}

std::uint16_t http_edge::port() const {
  return impl_->bound_port;
}

std::string http_edge::url() const {
  auto host = impl_->opts.host;
  if (host.find(':') != std::string::npos)
    host = "[" + host + "]";
  return "http://" + host + ":" + std::to_string(impl_->bound_port)
         + impl_->opts.path;
}

bool http_edge::drain(std::chrono::milliseconds timeout) {
  auto& s = *impl_;
  if (s.threads.empty())
    return true;
  s.draining = true;
  net::post(s.acceptor.get_executor(), [&s] {
    error_code ec;
    s.acceptor.close(ec);
    s.accept_backoff.cancel();
  });
  s.for_each_connection([](connection& c) { c.on_drain(); });
  std::unique_lock<std::mutex> guard{s.mtx};
  return s.cv.wait_for(guard, timeout, [&s] { return s.busy == 0; });
}

void http_edge::stop() {
  auto& s = *impl_;
  if (s.stopped || s.threads.empty())
    return;
  s.stopped = true;
  s.draining = true;
  net::post(s.acceptor.get_executor(), [&s] {
    error_code ec;
    s.acceptor.close(ec);
    s.accept_backoff.cancel();
  });
  s.for_each_connection([](connection& c) { c.close_now(); });
  s.work.reset();
  // Connections waiting for the transport hold no pending operation, so
  // run() may return while they live on; stop() ends run() either way.
  s.ioc.stop();
  for (auto& t : s.threads)
    t.join();
  // No I/O thread runs any more; let go of the actor.
  s.transport = actors::transport_actor{};
}

} // namespace ttm::edge
