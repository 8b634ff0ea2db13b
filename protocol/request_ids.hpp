#pragma once

// Request ids on frames and replies (issue 31): completing a frame's
// trace_context from its messages' `_meta.traceparent`, and adding the id
// to an encoded JSON-RPC error. Apart from trace_context.hpp, which the
// frame itself includes.

#include "protocol/json_rpc.hpp"
#include "protocol/trace_context.hpp"

#include <string>
#include <string_view>

namespace ttm::protocol {

/// Completes `t` for a decoded frame: without an id (or trace id) from the
/// headers, the first message whose `_meta.traceparent` is valid gives
/// them; an id still missing comes from `ids` (random_request_id when
/// empty).
void resolve(trace_context& t, const frame& f, const id_source& ids);

/// Adds `"request_id": <id>` to `error.data` of an encoded JSON-RPC error
/// reply (creating `data` when absent; other members of an object `data`
/// are kept; a non-object `data` is left as it is). Returns false, leaving
/// `reply` alone, when it is not an error reply.
bool stamp_error(std::string& reply, std::string_view request_id);

/// The JSON-RPC error code of an encoded error reply, or 0 when `reply` is
/// not one (a cheap look at its start: encode_error's shape).
int error_code_of(std::string_view reply) noexcept;

} // namespace ttm::protocol
