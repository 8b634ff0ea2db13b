#pragma once

// RapidJSON's Writer with a faster string path. Its own String() escapes
// byte by byte after reserving six bytes per input byte; a tool result is
// written twice (structuredContent and, escaped again, the text block), so
// string writing was a third of a 20-zone time_convert request. string()
// copies runs that need no escape in bulk and reserves exactly.

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <string_view>

namespace ttm::protocol {

/// Appends `s` as a JSON string (quotes included) escaped as RapidJSON's
/// Writer does: `"`, `\` and control characters; UTF-8 and `/` as they are.
void append_json_string(std::string& out, std::string_view s);

/// The exact length append_json_string would add.
std::size_t json_string_length(std::string_view s);

class json_writer : public rapidjson::Writer<rapidjson::StringBuffer> {
public:
  using base = rapidjson::Writer<rapidjson::StringBuffer>;
  using base::base;

  /// Writes `s` as a string value (or a key, after StartObject or a value).
  bool string(std::string_view s);

  /// Writes `json`, already a complete JSON value of `type`, as it is.
  bool raw(std::string_view json, rapidjson::Type type);
};

} // namespace ttm::protocol
