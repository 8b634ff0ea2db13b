#pragma once

// Header values of MCP over HTTP as plain text: Accept and media types,
// `=?base64?…?=` values, session ids. No Beast, no CAF.

#include <optional>
#include <string>
#include <string_view>

namespace ttm::edge {

/// ASCII lower case (header names and values we compare are ASCII).
std::string lower(std::string_view s);

/// Without leading and trailing spaces and tabs (HTTP's OWS).
std::string_view trim(std::string_view s);

/// The media type of a Content-Type / Accept entry: lower case, no params.
std::string media_type(std::string_view entry);

/// True when an Accept entry carries q=0 ("not acceptable").
bool q_is_zero(std::string_view entry);

struct accept_info {
  bool json = false;
  bool sse = false;
};

/// What an Accept header allows. Absent means anything (RFC 9110), which we
/// answer as JSON; SSE only when named (or text/*): a client that merely
/// says */* may not speak it.
accept_info parse_accept(std::optional<std::string_view> header);

/// Decodes an MCP header value: `=?base64?…?=` is the Base64 of UTF-8 text
/// (for values that are not plain visible ASCII); anything else is itself.
/// nullopt when the sentinel form holds no valid Base64.
std::optional<std::string> decode_header_value(std::string_view value);

/// 128 bits from the kernel's CSPRNG as 32 hex digits (visible ASCII, as
/// MCP requires of session ids). Throws std::runtime_error if getrandom
/// fails.
std::string new_session_id();

/// Session ids as MCP defines them: 1..128 visible ASCII characters.
bool valid_session_id(std::string_view id);

/// A session id for the log: its first 8 characters.
std::string short_id(const std::string& id);

} // namespace ttm::edge
