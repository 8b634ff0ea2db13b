#pragma once

// Whether a frame's work may grow with the caller's data: derived from the
// tools' declarations (tools::cost), never from a list kept here. The
// client actor asks before it runs a frame on an HTTP I/O thread
// (actors/inline_unit.hpp).

#include "protocol/json_rpc.hpp"
#include "tools/registry.hpp"

namespace ttm::mcp {

/// True when a message of `f` calls a tool declared heavy, or reads a
/// report resource (rendered by time_session_report, which is heavy).
bool heavy_frame(const protocol::frame& f, const tools::registry& tools);

} // namespace ttm::mcp
