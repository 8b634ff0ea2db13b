#include "edge/http_param_headers.hpp"

#include "edge/http_headers.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>

namespace ttm::edge {

namespace {

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size()
         && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
              return std::tolower(static_cast<unsigned char>(x))
                     == std::tolower(static_cast<unsigned char>(y));
            });
}

/// A primitive argument as its header carries it (strings as they are,
/// booleans as true/false, numbers in decimal); nullopt: not a primitive
/// (the schema check refuses it later).
std::optional<std::string> as_header_text(const rapidjson::Value& v) {
  if (v.IsString())
    return std::string{v.GetString(), v.GetStringLength()};
  if (v.IsBool())
    return std::string{v.GetBool() ? "true" : "false"};
  if (v.IsNumber()) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w{buf};
    v.Accept(w);
    return std::string{buf.GetString(), buf.GetSize()};
  }
  return std::nullopt;
}

} // namespace

std::optional<std::string> param_mismatch(const param_headers& sent,
                                          const mirrored_args& declared,
                                          const rapidjson::Value* arguments) {
  for (const auto& [arg, name] : declared) {
    std::string header = std::string{param_header_prefix} + name;
    const std::string* value = nullptr;
    for (const auto& [n, v] : sent)
      if (same_name(n, name)) {
        value = &v;
        break;
      }
    const rapidjson::Value* body = nullptr;
    if (arguments != nullptr && arguments->IsObject())
      if (auto m = arguments->FindMember(arg.c_str());
          m != arguments->MemberEnd() && !m->value.IsNull())
        body = &m->value;
    if (body == nullptr) {
      if (value != nullptr)
        return "the " + header + " header is present but arguments." + arg
               + " is not; send the header only with the argument";
      continue;
    }
    auto text = as_header_text(*body);
    if (!text)
      continue;
    if (value == nullptr)
      return "the " + header + " header is missing; it must repeat"
             " arguments." + arg + " ('" + *text + "')";
    auto decoded = decode_header_value(*value);
    if (!decoded)
      return "the " + header + " header '" + *value
             + "' is not valid =?base64?...?= text";
    if (*decoded != *text)
      return header + " header value '" + *decoded
             + "' does not match body value '" + *text + "'";
  }
  return std::nullopt;
}

} // namespace ttm::edge
