#pragma once

// The opaque cursor of a history page (time_session_list's `cursor`,
// resources/list's `cursor`): base64url of "1:<start ns>:<session id>", the
// last row of the previous page. Keyset pagination: sessions started since
// never shift the pages after the first.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace ttm::domain {

std::string encode_history_cursor(std::int64_t start_ns,
                                  const std::string& id);

/// (start ns, session id), or nullopt for text that is not such a cursor.
std::optional<std::pair<std::int64_t, std::string>>
decode_history_cursor(const std::string& text);

} // namespace ttm::domain
