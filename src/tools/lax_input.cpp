#include "tools/lax_input.hpp"

#include <cstdint>
#include <cstring>
#include <string>

namespace ttm::tools {

namespace {

/// The schema's "type" when it names one type, else nullptr.
const char* type_of(const rapidjson::Value& schema) {
  if (!schema.IsObject())
    return nullptr;
  auto t = schema.FindMember("type");
  if (t == schema.MemberEnd() || !t->value.IsString())
    return nullptr;
  return t->value.GetString();
}

bool is(const char* type, const char* name) {
  return type != nullptr && std::strcmp(type, name) == 0;
}

/// "-12" → -12: an optional minus and 1 to 18 digits (so it fits int64),
/// nothing else (no spaces, signs or fractions, which are not unambiguous).
bool whole_number(const rapidjson::Value& v, std::int64_t& out) {
  std::size_t n = v.GetStringLength();
  const char* s = v.GetString();
  std::size_t i = n > 0 && s[0] == '-' ? 1 : 0;
  if (n == i || n - i > 18)
    return false;
  std::int64_t x = 0;
  for (std::size_t k = i; k < n; ++k) {
    if (s[k] < '0' || s[k] > '9')
      return false;
    x = x * 10 + (s[k] - '0');
  }
  out = i == 1 ? -x : x;
  return true;
}

/// A short string without a list of values (at most 32 characters: an
/// estimate, "15" minutes), where a whole number can mean only its digits.
/// Longer strings (zones, ids, keys, metadata) refuse a number: 1 for a
/// zone or a key is more likely a mistake than a name.
bool takes_digits(const rapidjson::Value& schema) {
  auto max = schema.FindMember("maxLength");
  return !schema.HasMember("enum") && max != schema.MemberEnd()
         && max->value.IsUint64() && max->value.GetUint64() <= 32;
}

} // namespace

bool coerce_lax(rapidjson::Value& value, const rapidjson::Value& schema,
                rapidjson::Document::AllocatorType& alloc) {
  const char* type = type_of(schema);
  if (type == nullptr)
    return false;
  bool changed = false;
  if (is(type, "object") && value.IsObject()) {
    auto props = schema.FindMember("properties");
    auto extra = schema.FindMember("additionalProperties");
    for (auto& m : value.GetObject()) {
      const rapidjson::Value* sub = nullptr;
      if (props != schema.MemberEnd() && props->value.IsObject()) {
        auto p = props->value.FindMember(m.name);
        if (p != props->value.MemberEnd())
          sub = &p->value;
      }
      if (sub == nullptr && extra != schema.MemberEnd()
          && extra->value.IsObject())
        sub = &extra->value;
      if (sub != nullptr)
        changed = coerce_lax(m.value, *sub, alloc) || changed;
    }
    return changed;
  }
  auto items = schema.FindMember("items");
  if (is(type, "array") && items != schema.MemberEnd()) {
    if (value.IsArray()) {
      for (auto& x : value.GetArray())
        changed = coerce_lax(x, items->value, alloc) || changed;
      return changed;
    }
    if (value.IsString() && is(type_of(items->value), "string")) {
      rapidjson::Value one{rapidjson::kArrayType};
      one.PushBack(rapidjson::Value{value, alloc}, alloc);
      value = one;
      return true;
    }
    return false;
  }
  if (is(type, "integer") && value.IsString()) {
    std::int64_t n = 0;
    if (!whole_number(value, n))
      return false;
    value.SetInt64(n);
    return true;
  }
  if (is(type, "boolean") && value.IsString()) {
    std::string s{value.GetString(), value.GetStringLength()};
    if (s != "true" && s != "false")
      return false;
    value.SetBool(s == "true");
    return true;
  }
  if (is(type, "string") && (value.IsInt64() || value.IsUint64())
      && takes_digits(schema)) {
    auto text = value.IsInt64() ? std::to_string(value.GetInt64())
                                : std::to_string(value.GetUint64());
    value.SetString(text.c_str(), static_cast<rapidjson::SizeType>(text.size()),
                    alloc);
    return true;
  }
  return false;
}

} // namespace ttm::tools
