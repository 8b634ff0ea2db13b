#include "edge/http_rules.hpp"

#include "log.hpp"
#include "protocol/error_codes.hpp"
#include "protocol/mcp.hpp"
#include "protocol/modern.hpp"

#include <algorithm>

namespace ttm::edge {

mcp_headers read_mcp_headers(const request_head& h) {
  mcp_headers m;
  if (h.protocol_version)
    m.version = std::string{trim(*h.protocol_version)};
  if (h.mcp_method)
    m.method = std::string{trim(*h.mcp_method)};
  if (h.mcp_name)
    m.name = std::string{trim(*h.mcp_name)};
  for (const auto& [name, value] : h.params)
    m.params.emplace_back(std::string{name}, std::string{trim(value)});
  return m;
}

int refusal_code(int code, bool modern) noexcept {
  return code == http_refusal_code && modern ? protocol::invalid_request
                                             : code;
}

refusal make_refusal(int status, std::string message, int code, bool modern,
                     std::string_view www_authenticate) {
  refusal r;
  r.status = status;
  r.code = refusal_code(code, modern);
  r.message = std::move(message);
  r.www_authenticate = std::string{www_authenticate};
  if (status == 405)
    r.allow = "POST, DELETE";
  return r;
}

path_decision route_path(http_method method, std::string_view target,
                         std::string_view mcp_path, bool draining,
                         std::string_view unready) {
  auto path = target.substr(0, target.find('?'));
  path_decision d;
  if (path == "/healthz" || path == "/readyz") {
    if (method != http_method::get && method != http_method::head)
      return {path_decision::plain, 405, "use GET or HEAD", "GET, HEAD"};
    if (path == "/readyz" && draining)
      return {path_decision::json, 503, R"({"status":"draining"})", {}};
    if (path == "/readyz" && !unready.empty())
      return {path_decision::json, 503,
              R"({"status":"unavailable","reason":)"
                + protocol::json_quote(unready) + "}",
              {}};
    return {path_decision::json, 200,
            path == "/healthz" ? R"({"status":"ok"})" : R"({"status":"ready"})",
            {}};
  }
  if (path == "/metrics") {
    if (method != http_method::get && method != http_method::head)
      return {path_decision::plain, 405, "use GET or HEAD", "GET, HEAD"};
    return {path_decision::metrics, 200, {}, {}};
  }
  if (path != mcp_path)
    return {path_decision::plain, 404,
            "no such endpoint; MCP is served at " + std::string{mcp_path},
            {}};
  return d;
}

path_decision route_metrics_only(http_method method,
                                 std::string_view target) {
  auto path = target.substr(0, target.find('?'));
  if (path != "/metrics")
    return {path_decision::plain, 404,
            "no such endpoint; this listener serves /metrics only", {}};
  if (method != http_method::get && method != http_method::head)
    return {path_decision::plain, 405, "use GET or HEAD", "GET, HEAD"};
  return {path_decision::metrics, 200, {}, {}};
}

path_decision decide_metrics(const access_policy& access,
                             const request_head& h, bool loopback) {
  if (h.host_count > 1)
    return {path_decision::plain, 400, "Bad Request: more than one Host header",
            {}};
  if (!h.host && h.version >= 11)
    return {path_decision::plain, 400,
            "Bad Request: the Host header is missing", {}};
  if (h.host && !access.host_allowed(*h.host))
    return {path_decision::plain, 403,
            "Forbidden: Host '" + std::string{*h.host}
              + "' is not allowed (--allowed-hosts)",
            {}};
  if (h.origin && !access.origin_allowed(*h.origin))
    return {path_decision::plain, 403,
            "Forbidden: Origin '" + std::string{*h.origin}
              + "' is not allowed (--allowed-origins)",
            {}};
  if (!loopback && access.auth_required())
    return {path_decision::plain, 403,
            "Forbidden: /metrics is not served on a listener beyond loopback "
            "that requires bearer tokens; serve it with --metrics-listen on "
            "a private address",
            {}};
  return {path_decision::metrics, 200, {}, {}};
}

refusal too_large(std::size_t max_body_bytes, bool modern) {
  return make_refusal(413,
                      "Payload Too Large: the body exceeds "
                        + std::to_string(max_body_bytes) + " bytes",
                      http_refusal_code, modern);
}

head_decision decide_head(const access_policy& access, const request_head& h,
                          std::size_t max_body_bytes, const auth_gate& gate,
                          const oauth_gate& oauth) {
  head_decision d;
  // Read first: a refusal of a 2026-07-28 request uses that era's codes.
  d.headers = read_mcp_headers(h);
  bool modern_header = protocol::names_modern_era(d.headers.version);
  auto refuse = [&](int status, std::string message,
                    int code = http_refusal_code,
                    std::string_view www_auth = {}) {
    d.kind = head_decision::refuse;
    d.why = make_refusal(status, std::move(message), code, modern_header,
                         www_auth);
    return d;
  };
  // DNS rebinding: a browser page may reach us under a foreign name.
  if (h.host_count > 1)
    return refuse(400, "Bad Request: more than one Host header");
  if (!h.host) {
    if (h.version >= 11)
      return refuse(400, "Bad Request: the Host header is missing");
  } else if (!access.host_allowed(*h.host)) {
    TTM_LOG(info, "http",
            "refused a request for Host '" + std::string{*h.host} + "'");
    return refuse(403, "Forbidden: Host '" + std::string{*h.host}
                         + "' is not allowed (--allowed-hosts)");
  }
  if (h.origin && !access.origin_allowed(*h.origin)) {
    TTM_LOG(info, "http",
            "refused a request from Origin '" + std::string{*h.origin} + "'");
    return refuse(403, "Forbidden: Origin '" + std::string{*h.origin}
                         + "' is not allowed (--allowed-origins)");
  }
  auto* throttle = access.auth_required() ? gate.throttle : nullptr;
  auto too_many = [&](std::chrono::seconds left) {
    refuse(429, "Too Many Requests: too many wrong bearer tokens from this "
                "address; retry after "
                  + std::to_string(left.count()) + " s");
    d.why.retry_after = std::to_string(left.count());
    d.why.close = true;
    return d;
  };
  // Locked out: refused whatever the token, so guessing cannot go on.
  if (throttle)
    if (auto left = throttle->locked(gate.address, gate.now))
      return too_many(*left);
  const auto* bearer = oauth.bearer;
  auto principal = bearer ? bearer->principal
                          : access.principal_of(h.authorization);
  if (!principal) {
    // Never log the token itself.
    bool absent = !h.authorization;
    TTM_LOG(info, "http",
            absent ? "refused a request without a bearer token"
                   : bearer ? "refused a request with a refused OAuth "
                              "access token: "
                                + bearer->message
                            : "refused a request with a wrong token");
    if (throttle && !absent && (!bearer || bearer->counts))
      if (auto lockout = throttle->failed(gate.address, gate.now)) {
        TTM_LOG(warning, "http",
                "too many wrong bearer tokens from " + gate.address
                  + ": locked out for " + std::to_string(lockout->count())
                  + " s");
        return too_many(*lockout);
      }
    std::string challenge
      = bearer ? bearer->challenge
      : !oauth.challenge.empty()
        ? oauth.challenge
          + (absent ? "" : R"(, error="invalid_token")")
        : absent ? R"(Bearer realm="time-tracker-mcp")"
                 : R"(Bearer realm="time-tracker-mcp", )"
                   R"(error="invalid_token")";
    refuse(401,
           absent   ? "Unauthorized: send 'Authorization: Bearer TOKEN'"
           : bearer ? "Unauthorized: " + bearer->message
                    : "Unauthorized: the bearer token is not valid",
           http_refusal_code, challenge);
    d.why.close = true;
    return d;
  }
  if (bearer)
    d.scopes = bearer->scopes;
  if (throttle)
    throttle->succeeded(gate.address);
  d.principal = std::move(*principal);
  if (modern_header && h.method == http_method::delete_)
    return refuse(405, "Method Not Allowed: protocol revision "
                         + std::string{protocol::modern_revision}
                         + " has no sessions to end; POST each request");
  if (h.method != http_method::post && h.method != http_method::delete_)
    // We never send server-initiated messages outside a request's own
    // response, so there is no standalone SSE stream to GET.
    return refuse(405, "Method Not Allowed: use POST for JSON-RPC messages "
                       "and DELETE to end a session; this server opens no "
                       "standalone SSE stream (GET)");
  // The 2025 rules for Mcp-Session-Id and MCP-Protocol-Version. They are
  // applied once the body shows a 2025 request (at once for DELETE):
  // 2026-07-28 ignores Mcp-Session-Id (and Last-Event-ID), and its own
  // header checks come first.
  if (h.session_id && !modern_header) {
    d.session = std::string{trim(*h.session_id)};
    if (!valid_session_id(d.session))
      d.legacy_refusal = "Bad Request: Mcp-Session-Id must be 1 to 128 "
                         "visible ASCII characters";
  }
  // The revision header follows initialize; initialize itself negotiates
  // in its body. Absent: 2025-03-26, which we serve.
  const auto& version = d.headers.version;
  if (!d.session.empty() && !modern_header && d.legacy_refusal.empty()
      && !version.empty() && !protocol::is_supported_revision(version))
    d.legacy_refusal = "Bad Request: unsupported MCP-Protocol-Version '"
                       + version
                       + "' (supported: " + protocol::supported_revisions_text
                       + ")";
  if (h.method == http_method::delete_) {
    if (!d.legacy_refusal.empty())
      return refuse(400, d.legacy_refusal);
    if (d.session.empty())
      return refuse(400, "Bad Request: DELETE needs the Mcp-Session-Id "
                         "header of the session to end");
    d.kind = head_decision::end_session;
    return d;
  }
  if (!h.content_type || media_type(*h.content_type) != "application/json")
    return refuse(415, "Unsupported Media Type: POST a JSON-RPC message as "
                       "'Content-Type: application/json'");
  d.accept = parse_accept(h.accept);
  if (!d.accept.json && !d.accept.sse)
    return refuse(406, "Not Acceptable: the Accept header must allow "
                       "application/json or text/event-stream");
  if (h.content_length && *h.content_length > max_body_bytes) {
    d.kind = head_decision::refuse;
    d.why = too_large(max_body_bytes, modern_header);
    return d;
  }
  d.send_continue = h.version >= 11 && h.expect
                    && lower(trim(*h.expect)) == "100-continue";
  d.kind = head_decision::read_body;
  return d;
}

namespace {

refusal from_modern(const protocol::modern_refusal& r) {
  refusal out;
  out.status = r.http_status;
  out.code = r.code;
  out.message = r.message;
  out.data_json = r.data_json;
  return out;
}

/// A POST of the 2026-07-28 revision: the header checks of its Streamable
/// HTTP transport, between the envelope checks of protocol/modern.hpp.
body_decision decide_modern(const head_decision& head,
                            const protocol::frame& f, body_decision d,
                            const mirrored_lookup& mirrored) {
  d.modern = true;
  auto refuse = [&](int status, std::string message, int code) {
    d.kind = body_decision::refuse;
    d.why = make_refusal(status, std::move(message), code, true);
    return d;
  };
  auto refuse_modern = [&](const protocol::modern_refusal& r) {
    d.kind = body_decision::refuse;
    d.why = from_modern(r);
    return d;
  };
  auto mismatch = [&](std::string text) {
    return refuse(400, "Header mismatch: " + std::move(text),
                  protocol::header_mismatch);
  };
  if (f.batch)
    return refuse(400,
                  "Invalid Request: protocol revision "
                    + std::string{protocol::modern_revision}
                    + " takes one JSON-RPC message per POST, not a batch",
                  protocol::invalid_request);
  const auto& m = f.messages.front();
  if (m.kind == protocol::message::response)
    return refuse(400,
                  "Invalid Request: in protocol revision "
                    + std::string{protocol::modern_revision}
                    + " the server sends no requests, so clients send no "
                      "responses",
                  protocol::invalid_request);
  const auto& hv = head.headers.version;
  const auto& hm = head.headers.method;
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
      400,
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
    d.kind = body_decision::accept;
    return d;
  }
  if (auto r = protocol::check_version(m))
    return refuse_modern(*r);
  if (hm.empty())
    return mismatch("the Mcp-Method header is missing; it must be '"
                    + m.method + "'");
  if (m.method == "tools/call" || m.method == "prompts/get"
      || m.method == "resources/read") {
    const auto& raw = head.headers.name;
    if (!raw)
      return mismatch("the Mcp-Name header is missing; it must be '" + m.name
                      + "'");
    auto name = decode_header_value(*raw);
    if (!name)
      return mismatch("the Mcp-Name header '" + *raw
                      + "' is not valid =?base64?...?= text");
    if (*name != m.name)
      return mismatch("Mcp-Name header value '" + *name
                      + "' does not match body value '" + m.name + "'");
  }
  if (m.method == "tools/call" && mirrored)
    if (const auto* declared = mirrored(m.name)) {
      const rapidjson::Value* args = nullptr;
      if (m.params_value && m.params_value->IsObject())
        if (auto a = m.params_value->FindMember("arguments");
            a != m.params_value->MemberEnd())
          args = &a->value;
      if (auto why = param_mismatch(head.headers.params, *declared, args))
        return mismatch(std::move(*why));
    }
  if (auto r = protocol::check_method(m))
    return refuse_modern(*r);
  d.expects_response = true;
  d.kind = body_decision::call;
  return d;
}

} // namespace

body_decision decide_body(const head_decision& head,
                          const protocol::frame& f,
                          const mirrored_lookup& mirrored) {
  body_decision d;
  bool modern_header = protocol::names_modern_era(head.headers.version);
  auto refuse = [&](int status, std::string message,
                    int code = http_refusal_code) {
    d.kind = body_decision::refuse;
    d.why = make_refusal(status, std::move(message), code, modern_header);
    return d;
  };
  if (f.error_code != 0)
    return refuse(400, f.error_message, f.error_code);
  if (!f.batch && f.messages.size() == 1) {
    const auto& m = f.messages.front();
    if (m.kind == protocol::message::invalid) {
      d.id = m.id;
      return refuse(400, m.error_message, m.error_code);
    }
    // HTTP must answer: the spec's 400 for a notification it cannot
    // accept (the decoder's reason says "Invalid Request" already).
    if (m.kind == protocol::message::malformed_notification)
      return refuse(400, m.error_message, protocol::invalid_request);
    if (m.kind == protocol::message::request)
      d.id = m.id;
  }
  // The era of a POST: a message claiming 2026-07-28 in its _meta, or a
  // 2026-07-28 (or later) MCP-Protocol-Version header, is never handed to
  // the 2025 code.
  if (modern_header
      || std::any_of(f.messages.begin(), f.messages.end(),
                     [](const protocol::message& m) { return m.meta.claimed; }))
    return decide_modern(head, f, std::move(d), mirrored);
  if (!head.legacy_refusal.empty())
    return refuse(400, head.legacy_refusal);
  d.expects_response = std::any_of(
    f.messages.begin(), f.messages.end(), [](const protocol::message& m) {
      return m.kind == protocol::message::request
             || m.kind == protocol::message::invalid;
    });
  bool is_initialize = !f.batch && f.messages.size() == 1
                       && f.messages.front().kind == protocol::message::request
                       && f.messages.front().method == "initialize";
  if (head.session.empty()) {
    if (!is_initialize)
      return refuse(400, "Bad Request: the Mcp-Session-Id header is missing; "
                         "start a session with initialize (without the "
                         "header) and send its id on every later request");
    d.kind = body_decision::open;
    return d;
  }
  d.kind = body_decision::forward;
  return d;
}

refusal session_not_found() {
  return make_refusal(404,
                      "Session not found: it ended (DELETE), expired after "
                      "its idle timeout, or never existed; send initialize "
                      "without Mcp-Session-Id to start a new one",
                      session_not_found_code);
}

refusal sessions_busy(std::chrono::seconds retry_after) {
  auto r = make_refusal(503, "Service Unavailable: the limit of concurrent "
                             "MCP sessions is reached; retry later");
  r.retry_after = std::to_string(retry_after.count());
  return r;
}

bool answer_with_sse(const accept_info& accept, bool has_notifications) {
  return (has_notifications && accept.sse) || !accept.json;
}

std::string sse_body(const std::vector<std::string>& notifications,
                     const std::vector<std::string>& responses) {
  std::string body;
  auto event = [&](const std::string& json) {
    body += "event: message\ndata: ";
    body += json;
    body += "\n\n";
  };
  for (const auto& n : notifications)
    event(n);
  for (const auto& m : responses)
    event(m);
  return body;
}

read_error_decision decide_read_error(read_failure failure, bool in_body,
                                      std::string_view detail) {
  if (failure == read_failure::closed)
    return {read_error_decision::close, 0, {}};
  if (!in_body && failure == read_failure::header_limit)
    return {read_error_decision::plain, 431,
            "request headers exceed 16 KiB"};
  if (in_body && failure == read_failure::body_limit)
    return {read_error_decision::too_large, 413, {}};
  return {read_error_decision::plain, 400,
          (in_body ? "malformed HTTP request body: "
                   : "malformed HTTP request: ")
            + std::string{detail}};
}

bool admit_connection(std::size_t open, std::size_t max_connections) noexcept {
  return open < max_connections;
}

std::optional<idle_connection>
evictable(std::uint64_t id, conn_phase phase, bool served,
          std::chrono::steady_clock::time_point since,
          std::chrono::steady_clock::time_point now, bool partial) {
  if (phase == conn_phase::busy)
    return std::nullopt;
  if (phase == conn_phase::lingering)
    return idle_connection{id, since, idle_connection::stalled};
  bool late = now - since >= slow_header_grace;
  bool chance = now - since < first_request_chance
                && !(partial && phase == conn_phase::in_header);
  if (!served)
    return idle_connection{id, since,
                           late     ? idle_connection::stalled
                           : chance ? idle_connection::fresh
                                    : idle_connection::unserved};
  if (phase == conn_phase::waiting)
    return idle_connection{id, since, idle_connection::kept_alive};
  if (late)
    return idle_connection{id, since, idle_connection::stalled};
  return std::nullopt; // a served client sending its next request
}

bool holds_header_end(std::string_view head) noexcept {
  // RFC 9112 2.2: a bare LF may end a line; Beast accepts it too. A CRLF
  // CRLF end holds "\n\r\n".
  return head.find("\n\r\n") != std::string_view::npos
         || head.find("\n\n") != std::string_view::npos;
}

admission decide_admission(std::size_t open, std::size_t max_connections,
                           const std::vector<idle_connection>& idle,
                           const unread_probe& unread, bool ready) {
  if (admit_connection(open, max_connections))
    return {admission::admit, 0};
  auto order = [](const idle_connection* x, const idle_connection* y) {
    if (x->standing != y->standing)
      return x->standing < y->standing;
    return x->idle_since < y->idle_since
           || (x->idle_since == y->idle_since && x->id < y->id);
  };
  std::vector<const idle_connection*> ranked;
  ranked.reserve(idle.size());
  for (const auto& c : idle)
    ranked.push_back(&c);
  std::sort(ranked.begin(), ranked.end(), order);
  // The probe is a system call: asked in order, only until one may go.
  bool owed = false;
  for (const auto* c : ranked) {
    if (c->standing == idle_connection::fresh) {
      if (ready && !(unread && unread(c->id)))
        return {admission::evict, c->id};
      owed = true;
      continue;
    }
    if (owed && c->standing == idle_connection::kept_alive)
      return {admission::wait, 0};
    if (c->standing != idle_connection::stalled && unread && unread(c->id)) {
      owed = true;
      continue;
    }
    return {admission::evict, c->id};
  }
  return {owed ? admission::wait : admission::refuse, 0};
}

const std::string& connection_refusal_response() {
  static const std::string refusal = [] {
    std::string body = "Service Unavailable: too many open connections; "
                       "retry later\n";
    return "HTTP/1.1 503 Service Unavailable\r\nServer: time-tracker-mcp\r\n"
           "Content-Type: text/plain; charset=utf-8\r\nRetry-After: 1\r\n"
           "Connection: close\r\nContent-Length: "
           + std::to_string(body.size()) + "\r\n\r\n" + body;
  }();
  return refusal;
}

} // namespace ttm::edge

namespace ttm::edge {

refusal draining_refusal(bool modern) {
  auto r = make_refusal(503,
                        "Service unavailable: the server is shutting down; "
                        "retry with another instance, or once it is back",
                        http_refusal_code, modern);
  r.retry_after = "1";
  r.close = true;
  return r;
}

refusal rate_refusal(const domain::rate_verdict& v, bool modern) {
  auto ms = std::to_string(v.retry_after.count());
  auto r = make_refusal(
    429,
    v.kind == domain::rate_verdict::too_many_in_flight
      ? "Too many requests in flight for this client (--max-in-flight); "
        "retry once one is answered"
      : "Too many requests from this client (--rate-limit); retry after "
          + ms + " ms",
    protocol::rate_limited, modern);
  r.data_json = R"({"retry_after_ms":)" + ms + "}";
  r.retry_after = std::to_string(v.retry_after_seconds());
  return r;
}

} // namespace ttm::edge
