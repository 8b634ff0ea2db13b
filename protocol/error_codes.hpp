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
};

} // namespace ttm::protocol
