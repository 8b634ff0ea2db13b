#pragma once

namespace ttm::protocol {

/// JSON-RPC 2.0 error codes (protocol faults). Tool failures are not errors
/// at this level: they are results with `isError: true` and an `error_code`.
enum error_code : int {
  parse_error = -32700,
  invalid_request = -32600,
  method_not_found = -32601,
  invalid_params = -32602,
  internal_error = -32603,
  /// resources/read of a URI that names nothing, in the 2025 revisions
  /// (2026-07-28 uses invalid_params, SEP-2164).
  resource_not_found = -32002,
  // 2026-07-28 (modern era) only.
  /// An HTTP header disagrees with the body, or a required one is missing.
  header_mismatch = -32020,
  /// The request needs a client capability it did not declare.
  missing_client_capability = -32021,
  /// The `_meta` envelope names a revision this server does not serve.
  unsupported_protocol_version = -32022,
  // Server limits, both eras (implementation-defined server errors).
  /// Over --rate-limit or --max-in-flight; `data.retry_after_ms` says when
  /// to try again (over HTTP: status 429 with Retry-After).
  rate_limited = -32050,
  /// Still waiting after --request-timeout; nothing of it was changed.
  request_timeout = -32051,
};

} // namespace ttm::protocol
