#pragma once

// Mcp-Param-* (2026-07-28, SEP-2243): a tool declares "x-mcp-header" on an
// argument (tools/schema.hpp), conforming clients repeat that argument of a
// tools/call in the header Mcp-Param-<name>, and the server rejects a call
// whose headers disagree with its body (400, -32020 HeaderMismatch), so
// that a proxy routing by the header and the server acting on the body
// never see two different calls.

#include <rapidjson/document.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ttm::edge {

inline constexpr std::string_view param_header_prefix = "Mcp-Param-";

/// The Mcp-Param-* headers of a request: (the name after the prefix, the
/// value trimmed), in the order sent.
using param_headers = std::vector<std::pair<std::string, std::string>>;

/// The arguments a tool declares "x-mcp-header" on: (argument, header
/// name after the prefix).
using mirrored_args = std::vector<std::pair<std::string, std::string>>;

/// A tool's mirrored arguments by its name (nullptr: none, or no such
/// tool). Empty function: no tool mirrors any.
using mirrored_lookup = std::function<const mirrored_args*(std::string_view)>;

/// Why the headers `sent` disagree with the call's `arguments` (an object,
/// or nullptr when the call has none) for the tool's `declared` arguments,
/// for "Header mismatch: ..."; nullopt: they agree. A present (non-null)
/// argument needs its header, equal once decoded (=?base64?...?=); an
/// absent or null one must have none. Header names compare without case.
std::optional<std::string> param_mismatch(const param_headers& sent,
                                          const mirrored_args& declared,
                                          const rapidjson::Value* arguments);

} // namespace ttm::edge
