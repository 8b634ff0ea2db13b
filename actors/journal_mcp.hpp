#pragma once

// The journal actor's MCP sessions (issue 32 item 2; internal to
// actors/journal.cpp): stored at initialize, read by any server that gets
// an Mcp-Session-Id it does not know, removed at DELETE and when idle.

#include "actors/journal.hpp"

#include <string>

namespace ttm::actors::detail {

/// Stores `r` (its times: now); false: not stored (logged).
bool mcp_put(journal_state& st, storage::mcp_session_record r);

/// Reads session `id`, recording its use when the last one recorded is
/// older than the coalescing interval (a minute, less for a short
/// --session-idle-timeout): no write per request.
mcp_session_reply mcp_get(journal_state& st, const std::string& id);

/// Removes session `id` (DELETE); true: it was stored.
bool mcp_end(journal_state& st, const std::string& id);

/// The sweep: removes the sessions idle past the timeout (each once over
/// all servers).
void mcp_sweep(journal_state& st);

} // namespace ttm::actors::detail
