#pragma once

// Request ids and W3C trace context (issue 31): which id a request is known
// by in the log, in error replies and in the X-Request-Id response header.
// Precedence: a valid `X-Request-Id` header, else the trace id of a valid
// `traceparent` (the HTTP header, else the first `params._meta.traceparent`
// of the frame, the 2026-07-28 revision's place), else a generated id.
// Plain values only: a frame carries its trace_context through the actors
// (json_rpc.hpp includes this header; what needs frames and encoded replies
// is in request_ids.hpp).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace ttm::protocol {

/// A parsed W3C `traceparent` (version 00).
struct traceparent {
  std::string trace_id;  ///< 32 lowercase hex digits, not all zeros
  std::string parent_id; ///< 16 lowercase hex digits, not all zeros
  std::string flags;     ///< 2 hex digits
};

/// Parses `00-<trace-id>-<parent-id>-<flags>` strictly (W3C Trace Context
/// level 1): version 00 only, lowercase hex, no all-zero ids, exactly 55
/// characters. nullopt for anything else (the header is then ignored).
std::optional<traceparent> parse_traceparent(std::string_view text) noexcept;

/// Longest X-Request-Id taken from a client.
inline constexpr std::size_t max_request_id_bytes = 128;

/// A client's X-Request-Id is used when it is 1..128 characters of RFC 9110
/// token characters (letters, digits and !#$%&'*+-.^_`|~): nothing that
/// could break a log line, a header or a JSON string.
bool valid_request_id(std::string_view id) noexcept;

/// Where a request's id came from.
enum class id_origin : std::uint8_t {
  none,         ///< not resolved yet
  header,       ///< X-Request-Id
  traceparent,  ///< the HTTP traceparent header's trace id
  meta,         ///< params._meta.traceparent's trace id
  generated,    ///< made by the server's id source
};

std::string_view to_string(id_origin o) noexcept;

/// One request's ids as they travel with its frame (protocol::frame::trace).
struct trace_context {
  std::string request_id;
  /// The W3C trace id, when a valid traceparent came (else empty).
  std::string trace_id;
  std::string parent_id;
  std::string flags;
  /// `tracestate`, kept as it came (only beside a valid traceparent).
  std::string tracestate;
  id_origin origin = id_origin::none;
};

/// Makes request ids: the server's own source (random_request_id) or a
/// test's, injected like the clock.
using id_source = std::function<std::string()>;

/// 16 random bytes as 32 lowercase hex digits (a per-thread generator
/// seeded from std::random_device; unique, not secret).
std::string random_request_id();

/// What the HTTP headers say (each nullopt when absent). Invalid values are
/// ignored. `origin` stays `none` when neither header gave an id.
trace_context from_headers(std::optional<std::string_view> request_id,
                           std::optional<std::string_view> traceparent,
                           std::optional<std::string_view> tracestate);

/// Takes a valid `traceparent` (with its `tracestate`) into `t`: its trace
/// id, and the request id too when `t` has none yet (then from `origin`).
/// False, leaving `t` alone, when it is not valid.
bool take_traceparent(trace_context& t, std::string_view traceparent,
                      std::string_view tracestate, id_origin origin);

/// Gives `t` an id from `ids` if it has none yet (a request refused before
/// its body was read).
void ensure_id(trace_context& t, const id_source& ids);

} // namespace ttm::protocol
