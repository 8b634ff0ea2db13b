#pragma once

// The rules of MCP over HTTP as plain functions: of the request line and
// headers (`decide_head`), then of the decoded body (`decide_body`), each
// returning what to answer (status, JSON-RPC error, extra headers) or where
// to route the message. Both eras: the 2025 Streamable HTTP session and
// header rules, and the 2026-07-28 header<->body checks. No Beast, no CAF:
// http_connection.cpp does the I/O and follows these decisions.

#include "edge/http_access.hpp"
#include "domain/rate_limit.hpp"
#include "edge/http_headers.hpp"
#include "edge/http_param_headers.hpp"
#include "protocol/json_rpc.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::edge {

/// JSON-RPC codes in HTTP error bodies (implementation-defined range).
inline constexpr int http_refusal_code = -32000;
inline constexpr int session_not_found_code = -32001;

/// The largest request header block (431 beyond).
inline constexpr std::size_t max_header_bytes = 16 * 1024;

enum class http_method { get, head, post, delete_, other };

/// What the rules read of a request: the first value of each header as sent
/// (nullopt: absent). The views must outlive the decision call only.
struct request_head {
  unsigned version = 11; ///< HTTP/1.1: 11
  http_method method = http_method::post;
  std::string_view target;
  std::optional<std::string_view> host;
  std::size_t host_count = 0; ///< how many Host headers
  std::optional<std::string_view> origin;
  std::optional<std::string_view> authorization;
  std::optional<std::string_view> content_type;
  std::optional<std::string_view> accept;
  std::optional<std::string_view> expect;
  std::optional<std::string_view> session_id;       ///< Mcp-Session-Id
  std::optional<std::string_view> protocol_version; ///< MCP-Protocol-Version
  std::optional<std::string_view> mcp_method;       ///< Mcp-Method
  std::optional<std::string_view> mcp_name;         ///< Mcp-Name
  /// Mcp-Param-*: (the name after the prefix, the value as sent).
  std::vector<std::pair<std::string_view, std::string_view>> params;
  std::optional<std::uint64_t> content_length;
};

/// The MCP headers, trimmed (empty: absent; Mcp-Name keeps absent apart).
struct mcp_headers {
  std::string version;
  std::string method;
  std::optional<std::string> name;
  /// Mcp-Param-* (values trimmed).
  param_headers params;
};

mcp_headers read_mcp_headers(const request_head& h);

/// A refusal on the MCP endpoint: the HTTP status, a JSON-RPC error for the
/// body, and the extra headers it carries (empty: none).
struct refusal {
  int status = 400;
  int code = http_refusal_code;
  std::string message;
  std::string data_json;
  std::string www_authenticate;
  std::string allow;       ///< set on every 405
  std::string retry_after; ///< seconds
  /// Close the connection after the response (401, 429: a client that
  /// guesses tokens must reconnect for each guess).
  bool close = false;
};

/// The JSON-RPC code of an HTTP-level refusal: -32000 (2025), or -32600
/// for a 2026-07-28 request, whose replies use no code of -32000..-32019.
int refusal_code(int code, bool modern) noexcept;

/// A refusal; `modern` remaps -32000 as `refusal_code` does.
refusal make_refusal(int status, std::string message,
                     int code = http_refusal_code, bool modern = false,
                     std::string_view www_authenticate = {});

/// A request outside the MCP endpoint, or a probe.
struct path_decision {
  enum kind_t {
    mcp,   ///< the MCP endpoint: decide_head next
    plain,  ///< text/plain `text` + "\n"
    json,   ///< application/json `text`
    metrics ///< GET or HEAD /metrics: decide_metrics next (MCP listener)
  } kind = mcp;
  int status = 200;
  std::string text;
  std::string allow;
};

/// /healthz, /readyz (503 while draining, or with `unready` saying why
/// the server cannot serve, e.g. the journal is not open), /metrics, the
/// MCP path, or 404.
path_decision route_path(http_method method, std::string_view target,
                         std::string_view mcp_path, bool draining,
                         std::string_view unready = {});

/// On the metrics-only listener (--metrics-listen): /metrics, else 404. No
/// MCP access rules there: it serves nothing else.
path_decision route_metrics_only(http_method method, std::string_view target);

/// GET /metrics on the MCP listener: the Host and Origin checks of MCP
/// requests (DNS rebinding), never a bearer token (a scraper has none), so
/// served only where that gives nothing away: on a loopback listener, or
/// one without tokens (all of it is open then). A listener beyond loopback
/// with tokens refuses it (403): use --metrics-listen there. Returns the
/// refusal (plain), or `metrics`: serve the page.
path_decision decide_metrics(const access_policy& access,
                             const request_head& h, bool loopback);

/// After the headers of a request to the MCP endpoint.
struct head_decision {
  enum kind_t {
    refuse,      ///< answer `why`
    end_session, ///< DELETE: end `session`
    read_body    ///< POST: read the body (after 100 Continue if asked)
  } kind = refuse;
  refusal why;
  mcp_headers headers;
  /// Whose request this is: the bearer token's principal, or `local`.
  std::string principal;
  /// An OAuth access token's scopes (what its calls may do); nullopt: a
  /// static token's or no token's request, which may do anything.
  std::optional<std::vector<std::string>> scopes;
  /// The 2025 Mcp-Session-Id, trimmed (empty: absent or a 2026-07-28 one).
  std::string session;
  /// Why the 2025 header rules refuse this request, should the body show
  /// a 2025 request (empty: they do not).
  std::string legacy_refusal;
  accept_info accept;
  bool send_continue = false;
};

/// What the OAuth resource server said of a bearer token that is not a
/// static one (checked before decide_head, off the I/O thread).
struct bearer_verdict {
  /// nullopt: refused.
  std::optional<std::string> principal;
  std::vector<std::string> scopes;
  /// Of the 401 when refused (WWW-Authenticate, and the body's reason).
  std::string challenge;
  std::string message;
  /// A refusal that counts as a wrong token for the throttle (an expired
  /// token is a client's honest mistake: it does not).
  bool counts = true;
};

/// Where a request comes from, for the token-guessing throttle.
struct auth_gate {
  auth_throttle* throttle = nullptr; ///< none: unthrottled
  std::string address;               ///< the client's IP address
  auth_throttle::time_point now{};
};

/// What OAuth (--oauth-issuer) adds to the token check.
struct oauth_gate {
  /// WWW-Authenticate of a 401 without a usable token (RFC 9728's
  /// resource_metadata); empty: the realm of static tokens.
  std::string challenge;
  /// The OAuth check of the request's token, when it was not a static
  /// one; null: the static tokens decide.
  const bearer_verdict* bearer = nullptr;
};

/// Host, Origin, bearer token (429 while the client address is locked out,
/// see auth_throttle), method, the 2025 session and version headers,
/// Content-Type, Accept, Content-Length and Expect, in that order.
head_decision decide_head(const access_policy& access, const request_head& h,
                          std::size_t max_body_bytes,
                          const auth_gate& gate = {},
                          const oauth_gate& oauth = {});

/// 413 for a body over the limit.
refusal too_large(std::size_t max_body_bytes, bool modern);

/// After the body of a POST, decoded.
struct body_decision {
  enum kind_t {
    refuse,  ///< answer `why` (with `id`)
    accept,  ///< 202, no body: a 2026-07-28 notification
    open,    ///< 2025 initialize without a session: open a new one
    forward, ///< 2025: to the session `head.session`
    call     ///< 2026-07-28: to the principal's client
  } kind = refuse;
  refusal why;
  /// The id of a single request, for error bodies (else none).
  protocol::request_id id;
  bool expects_response = false;
  /// A 2026-07-28 request.
  bool modern = false;
};

/// `mirrored`: the tools' "x-mcp-header" arguments, for the Mcp-Param-*
/// checks of a 2026-07-28 tools/call (none: no such checks).
body_decision decide_body(const head_decision& head,
                          const protocol::frame& f,
                          const mirrored_lookup& mirrored = {});

/// The transport's refusals of a routed request.
refusal session_not_found();
refusal sessions_busy(std::chrono::seconds retry_after);

/// 503 for a request to the MCP endpoint while draining (SIGTERM): the
/// connection closes.
refusal draining_refusal(bool modern);

/// 429 for a request over --rate-limit or --max-in-flight: Retry-After in
/// whole seconds (rounded up), `data.retry_after_ms`, code -32050 in both
/// eras; the connection stays open.
refusal rate_refusal(const domain::rate_verdict& v, bool modern);

/// Whether a response goes as SSE: when there are notifications to send
/// first and the client takes SSE, or when it takes nothing else.
bool answer_with_sse(const accept_info& accept, bool has_notifications);

/// One `event: message` per notification, then per response.
std::string sse_body(const std::vector<std::string>& notifications,
                     const std::vector<std::string>& responses);

/// How reading a request failed, in the edge's terms.
enum class read_failure {
  header_limit, ///< headers over max_header_bytes
  body_limit,   ///< body over --max-body-bytes
  closed,       ///< end of stream, timeout or cancelled: nobody to answer
  malformed     ///< anything else the parser refused
};

struct read_error_decision {
  enum kind_t {
    close,     ///< close without a response
    plain,     ///< text/plain `status` `text`, then close
    too_large  ///< the 413 refusal, then close
  } kind = close;
  int status = 0;
  std::string text;
};

/// `in_body`: the headers were complete; `detail`: the parser's message.
read_error_decision decide_read_error(read_failure failure, bool in_body,
                                      std::string_view detail);

/// Whether one more connection is admitted while `open` are.
bool admit_connection(std::size_t open, std::size_t max_connections) noexcept;

/// Where a connection is in its request cycle.
enum class conn_phase {
  waiting,   ///< for a request's first byte (new, or between requests)
  in_header, ///< its request's header has begun, not ended
  busy,      ///< from a complete header to its response's last byte
  lingering  ///< answered early, dropping the rest of its body until closed
};

/// At the cap, a connection inside its header longer than this (a new one:
/// since it was accepted) is taken for a stalled one: a client sends its
/// header at once.
inline constexpr std::chrono::milliseconds slow_header_grace{1000};

/// At the cap, a new connection is not closed for another one sooner than
/// this after its accept: time for a client to send what it has queued
/// (a loaded client may write its request tens of ms after the connect).
/// Under a flood of new connections the accepts wait for it instead.
inline constexpr std::chrono::milliseconds first_request_chance{250};

/// A connection the cap may close to admit a new one.
struct idle_connection {
  /// In the order they go: one stalled inside a request header (or a new
  /// one silent) past `slow_header_grace`; one not yet served (new, within
  /// the grace); one kept alive between requests, having been served. A
  /// `fresh` one (not yet served, within `first_request_chance` of its
  /// accept) does not go: it is waited for, before a kept-alive one goes.
  enum standing_t { stalled, unserved, fresh, kept_alive };
  std::uint64_t id = 0;
  /// Since when it waits: accepted (not yet served), its request began
  /// (inside a header), or its last response ended (kept alive).
  std::chrono::steady_clock::time_point idle_since{};
  standing_t standing = kept_alive;
};

/// Whether the cap may close connection `id` (in `phase`, `served` a
/// request before, waiting since `since`), and in which standing: never
/// while busy, nor an established client inside a header within the grace;
/// a lingering one (it has its answer, and closes soon anyway) as stalled.
/// `partial`: a new connection whose first bytes were a header without its
/// end. It has had its chance (a client sends its header at once), so it
/// is not `fresh`: a flood of sockets that send part of a header and stop
/// would otherwise stand before every new connection for its first
/// chance, and hold the listen backlog (where a client's new connection
/// then waits behind thousands of them) as long as the flood lasts.
std::optional<idle_connection>
evictable(std::uint64_t id, conn_phase phase, bool served,
          std::chrono::steady_clock::time_point since,
          std::chrono::steady_clock::time_point now, bool partial = false);

/// Whether `head` (a connection's first bytes) holds the end of an HTTP
/// request header.
bool holds_header_end(std::string_view head) noexcept;

struct admission {
  enum kind_t {
    admit,  ///< below the cap
    evict,  ///< at the cap: close `victim` (see idle_connection), admit
    wait,   ///< at the cap, owing reads: hold the new one, accept no more,
            ///< decide again shortly (at most `slow_header_grace`)
    refuse  ///< at the cap with none to close: 503
  } kind = admit;
  std::uint64_t victim = 0;
};

/// Whether a connection has input the server has not read yet.
using unread_probe = std::function<bool(std::uint64_t id)>;

/// A new connection while `open` are (not counting those being evicted):
/// at the cap one of `idle` makes room, the first by standing, then the one
/// waiting longest, so that neither silent sockets nor sockets stuck
/// inside a header can lock out clients that send requests, or push out an
/// established one.
///
/// Within the grace, a connection with input not yet read (`unread`) is
/// not taken: the delay is the server's, not the client's. After a stall
/// the listener hands over a burst of connections at once; taking the
/// oldest unserved one then would close a client whose request is waiting
/// in its socket. If such a connection, or a fresh one, is all that stands
/// before a kept-alive one, the answer is `wait`: a new connection's turn
/// comes before an established client is pushed out.
///
/// `ready`: the new connection holds a whole request header already. It
/// takes the place of the oldest fresh one that has shown none (nothing
/// unread): a fresh socket's first chance does not outrank a request that
/// is here. Otherwise the wait holds the listen backlog, and under a
/// flood of connections that stay silent a client's new connection, ready
/// or not, would wait behind every one of them.
admission decide_admission(std::size_t open, std::size_t max_connections,
                           const std::vector<idle_connection>& idle,
                           const unread_probe& unread = {},
                           bool ready = false);

/// The whole response (bytes) to a connection over the cap: 503.
const std::string& connection_refusal_response();

} // namespace ttm::edge
