#pragma once

// Output schemas compacted with `$defs` (issue 19): clients validate with
// the output schemas, but they are not model-facing, so their bytes are
// only worth what they check. An object schema that a schema repeats (the
// timestamp object of time_calculate's start and end, ...) is written once
// under the root's `$defs` and referred to as {"$ref": "#/$defs/<name>"}.

#include <string>

namespace ttm::tools {

/// `schema` (JSON text) with its repeated sub-schemas moved to `$defs`,
/// greedily, largest saving first, while a move saves bytes. Sub-schemas
/// count as repeats when they differ only in their own "description":
/// the reference then keeps its description beside the `$ref`. Only
/// object schemas with properties at schema positions are considered
/// (property, item, additionalProperties and anyOf-branch schemas); the
/// root stays. The result validates the
/// same instances.
std::string compact_with_defs(const std::string& schema);

} // namespace ttm::tools
