#pragma once

// Lax input (issue 29 item 9), as pydantic's lax mode does for Python MCP
// servers: before a tool's arguments are validated, the values whose
// meaning is unambiguous are rewritten to the type the tool's input schema
// declares. Guided by the schema alone, so no tool has code of its own:
//   - a string holding a whole number where an integer is declared ("5");
//   - "true" / "false" where a boolean is declared;
//   - a whole number where a short string (maxLength <= 32) without an
//     enum is declared: an estimate in minutes, 15 (a zone, id, key or
//     metadata value, all longer, still refuses a number);
//   - one string where an array of strings is declared ("Asia/Tokyo").
// Everything else is left as it is, so validation refuses it with its
// usual message.

#include <rapidjson/document.h>

namespace ttm::tools {

/// Rewrites `value` in place as above, following `schema` (a JSON Schema
/// of the forms the tools' input declarations generate: type, properties,
/// additionalProperties, items, enum). Returns whether anything changed.
bool coerce_lax(rapidjson::Value& value, const rapidjson::Value& schema,
                rapidjson::Document::AllocatorType& alloc);

} // namespace ttm::tools
