#pragma once

// One declaration of a tool's arguments (or result) yields both the JSON
// Schema the client sees and the code that decodes (or encodes) the struct, so
// the two cannot drift apart. Arguments are decoded only after RapidJSON's
// SchemaValidator accepted them against that same schema.

#include "protocol/json_writer.hpp"

#include <rapidjson/document.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

namespace ttm::tools {

using json_writer = protocol::json_writer;

/// A JSON object of string values, in the order the client sent them.
using string_map = std::vector<std::pair<std::string, std::string>>;

// -- value traits: JSON Schema type, decoding and encoding per C++ type -------

/// Writes "type": NAME. A schema never has a `type` array: a nullable
/// result field is an `anyOf` with a "null" branch (field::write_schema),
/// which clients that map schemas onto a single-type dialect (the OpenAPI
/// subset of Gemini function declarations, ...) can read.
inline void write_type(json_writer& w, const char* name) {
  w.Key("type");
  w.String(name);
}

/// Length limits on the string items of an array or values of a map.
struct item_limit {
  std::optional<std::size_t> min_length;
  std::optional<std::size_t> max_length;
  /// Array items: the allowed values ("enum"), when not empty.
  std::vector<std::string> one_of = {};
};

/// Writes "minLength" / "maxLength" for a string item schema.
inline void write_item_limit(json_writer& w, const item_limit& limit) {
  if (!limit.one_of.empty()) {
    w.Key("enum");
    w.StartArray();
    for (const auto& x : limit.one_of)
      w.String(x.c_str());
    w.EndArray();
  }
  if (limit.min_length) {
    w.Key("minLength");
    w.Uint64(*limit.min_length);
  }
  if (limit.max_length) {
    w.Key("maxLength");
    w.Uint64(*limit.max_length);
  }
}

template <class T, class = void>
struct json_type;

/// A struct nested in a result (e.g. one entry of a list) declares its
/// fields once by specializing this with
/// `static const object_schema<S>& schema();`.
template <class S>
struct nested;

/// A struct nested in the arguments (e.g. one operation of
/// time_tasks_edit) declares its fields the same way, by specializing this.
template <class S>
struct nested_arg;

/// Whether S declares nested<S> / nested_arg<S>. The json_type
/// specializations below test these traits, not std::void_t<...> of each
/// declaration: clang takes two partial specializations that differ only
/// inside std::void_t for the same one (a redefinition, CWG 1558); gcc
/// does not.
template <class S, class = void>
struct is_nested : std::false_type {};
template <class S>
struct is_nested<S, std::void_t<decltype(nested<S>::schema())>>
  : std::true_type {};
template <class S, class = void>
struct is_nested_arg : std::false_type {};
template <class S>
struct is_nested_arg<S, std::void_t<decltype(nested_arg<S>::schema())>>
  : std::true_type {};

template <>
struct json_type<std::string> {
  static void schema(json_writer& w, item_limit = {}) {
    write_type(w, "string");
  }
  static std::string decode(const rapidjson::Value& v) {
    return {v.GetString(), v.GetStringLength()};
  }
  static void encode(json_writer& w, const std::string& x) {
    w.string(x);
  }
};

template <>
struct json_type<bool> {
  static void schema(json_writer& w, item_limit = {}) {
    write_type(w, "boolean");
  }
  static bool decode(const rapidjson::Value& v) {
    return v.GetBool();
  }
  static void encode(json_writer& w, bool x) {
    w.Bool(x);
  }
};

template <>
struct json_type<std::int64_t> {
  static void schema(json_writer& w, item_limit = {}) {
    write_type(w, "integer");
  }
  static std::int64_t decode(const rapidjson::Value& v) {
    return v.GetInt64();
  }
  static void encode(json_writer& w, std::int64_t x) {
    w.Int64(x);
  }
};

template <>
struct json_type<std::vector<std::string>> {
  static void schema(json_writer& w, item_limit items = {}) {
    write_type(w, "array");
    w.Key("items");
    w.StartObject();
    json_type<std::string>::schema(w);
    write_item_limit(w, items);
    w.EndObject();
  }
  static std::vector<std::string> decode(const rapidjson::Value& v) {
    std::vector<std::string> out;
    out.reserve(v.Size());
    for (const auto& x : v.GetArray())
      out.emplace_back(x.GetString(), x.GetStringLength());
    return out;
  }
  static void encode(json_writer& w, const std::vector<std::string>& xs) {
    w.StartArray();
    for (const auto& x : xs)
      json_type<std::string>::encode(w, x);
    w.EndArray();
  }
};

template <>
struct json_type<std::vector<std::int64_t>> {
  static void schema(json_writer& w, item_limit = {}) {
    write_type(w, "array");
    w.Key("items");
    w.StartObject();
    write_type(w, "integer");
    w.EndObject();
  }
  static std::vector<std::int64_t> decode(const rapidjson::Value& v) {
    std::vector<std::int64_t> out;
    for (const auto& x : v.GetArray())
      out.push_back(x.GetInt64());
    return out;
  }
  static void encode(json_writer& w, const std::vector<std::int64_t>& xs) {
    w.StartArray();
    for (auto x : xs)
      w.Int64(x);
    w.EndArray();
  }
};

template <>
struct json_type<string_map> {
  static void schema(json_writer& w, item_limit values = {}) {
    write_type(w, "object");
    w.Key("additionalProperties");
    w.StartObject();
    json_type<std::string>::schema(w);
    write_item_limit(w, values);
    w.EndObject();
  }
  static string_map decode(const rapidjson::Value& v) {
    string_map out;
    out.reserve(v.MemberCount());
    for (const auto& m : v.GetObject())
      out.emplace_back(std::string{m.name.GetString(), m.name.GetStringLength()},
                       std::string{m.value.GetString(),
                                   m.value.GetStringLength()});
    return out;
  }
  static void encode(json_writer& w, const string_map& xs) {
    w.StartObject();
    for (const auto& [k, v] : xs) {
      w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
      json_type<std::string>::encode(w, v);
    }
    w.EndObject();
  }
};

// -- optional values: absent arguments stay empty, empty results are null -----

template <class T>
struct json_type<std::optional<T>> {
  static void schema(json_writer& w, item_limit items = {}) {
    json_type<T>::schema(w, items);
  }
  static std::optional<T> decode(const rapidjson::Value& v) {
    return json_type<T>::decode(v);
  }
  static void encode(json_writer& w, const std::optional<T>& x) {
    if (x)
      json_type<T>::encode(w, *x);
    else
      w.Null();
  }
};

// -- common field options -----------------------------------------------------

/// Constraints shared by argument and result fields; written into the schema.
struct field_constraints {
  std::vector<std::string> one_of;
  std::optional<std::size_t> min_length;
  std::optional<std::size_t> max_length;
  std::optional<std::size_t> max_items;
  std::optional<std::size_t> min_items;
  std::optional<std::size_t> max_properties;
  /// Arrays: each item's length limits; maps: each value's.
  item_limit items;
  /// Arguments: "x-mcp-header" (2026-07-28, SEP-2243): clients over HTTP
  /// repeat the argument in the header Mcp-Param-<header>, which the
  /// server checks against the body (edge/http_param_headers.hpp) and a
  /// proxy may route by. Empty: none.
  std::string header;

  void write(json_writer& w) const;
};

template <class T>
struct is_optional : std::false_type {};

template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

// -- object schemas -----------------------------------------------------------

/// Declares the fields of a struct `S` once. The same declaration writes the
/// JSON Schema, decodes validated arguments into an `S` and encodes an `S`
/// as a result, so the published schema and the code cannot drift apart.
template <class S>
class object_schema {
public:
  class field_base {
  public:
    virtual ~field_base() = default;
    virtual void decode(S& out, const rapidjson::Value* v) const = 0;
    virtual void encode(json_writer& w, const S& x) const = 0;
    /// `as_result`: an empty std::optional is written as null, so the
    /// result schema allows null where the arguments schema does not.
    virtual void write_schema(json_writer& w, bool as_result) const = 0;
    /// Results: always written (not a std::optional member).
    virtual bool always_present() const = 0;

    std::string name;
    std::string description;
    /// Arguments: must be present.
    bool mandatory = false;
  };

  template <class T>
  class field final : public field_base {
  public:
    explicit field(T S::*member) : member_(member) {
    }

    field& required() {
      this->mandatory = true;
      return *this;
    }

    /// Value used when the argument is absent; also published as "default".
    field& default_to(T value) {
      default_ = std::move(value);
      return *this;
    }

    field& one_of(std::vector<std::string> values) {
      constraints_.one_of = std::move(values);
      return *this;
    }

    field& min_length(std::size_t n) {
      constraints_.min_length = n;
      return *this;
    }

    field& max_length(std::size_t n) {
      constraints_.max_length = n;
      return *this;
    }

    field& max_properties(std::size_t n) {
      constraints_.max_properties = n;
      return *this;
    }

    /// Arguments: declares "x-mcp-header": `name` (see field_constraints).
    field& mirror_header(const char* name) {
      constraints_.header = name;
      return *this;
    }

    /// Array items or map values: at most `n` characters each.
    field& item_min_length(std::size_t n) {
      constraints_.items.min_length = n;
      return *this;
    }

    field& item_max_length(std::size_t n) {
      constraints_.items.max_length = n;
      return *this;
    }

    /// Array items: one of `values`.
    field& item_one_of(std::vector<std::string> values) {
      constraints_.items.one_of = std::move(values);
      return *this;
    }

    /// Results: an empty std::optional leaves the key out instead of
    /// writing null.
    field& omit_when_empty() {
      omit_when_empty_ = true;
      return *this;
    }

    field& max_items(std::size_t n) {
      constraints_.max_items = n;
      return *this;
    }

    field& min_items(std::size_t n) {
      constraints_.min_items = n;
      return *this;
    }

    void decode(S& out, const rapidjson::Value* v) const override {
      if (v != nullptr)
        out.*member_ = json_type<T>::decode(*v);
      else if (default_)
        out.*member_ = *default_;
    }

    void encode(json_writer& w, const S& x) const override {
      if constexpr (is_optional<T>::value)
        if (omit_when_empty_ && !(x.*member_))
          return;
      w.string(this->name);
      json_type<T>::encode(w, x.*member_);
    }

    void write_schema(json_writer& w, bool as_result) const override {
      bool nullable = as_result && is_optional<T>::value && !omit_when_empty_;
      w.StartObject();
      if (nullable) {
        // {"anyOf": [{typed, constrained}, {"type": "null"}]}: null as a
        // branch of its own, never a `type` array (see write_type).
        w.Key("anyOf");
        w.StartArray();
        w.StartObject();
        json_type<T>::schema(w, constraints_.items);
        constraints_.write(w);
        w.EndObject();
        w.StartObject();
        write_type(w, "null");
        w.EndObject();
        w.EndArray();
        w.Key("description");
        json_type<std::string>::encode(w, this->description);
      } else {
        json_type<T>::schema(w, constraints_.items);
        w.Key("description");
        json_type<std::string>::encode(w, this->description);
        constraints_.write(w);
      }
      if (default_) {
        w.Key("default");
        json_type<T>::encode(w, *default_);
      }
      w.EndObject();
    }

    bool always_present() const override {
      return !is_optional<T>::value;
    }

  private:
    T S::*member_;
    std::optional<T> default_;
    field_constraints constraints_;
    bool omit_when_empty_ = false;
  };

  /// Declares the field stored in `member`. Optional arguments without a
  /// default use `std::optional<T>` members.
  template <class T>
  field<T>& add(const char* name, T S::*member, const char* description) {
    auto f = std::make_unique<field<T>>(member);
    f->name = name;
    f->description = description;
    auto& ref = *f;
    fields_.push_back(std::move(f));
    return ref;
  }

  /// JSON Schema of an arguments object: declared `required` fields, no
  /// additional properties.
  std::string json() const {
    rapidjson::StringBuffer buf;
    json_writer w{buf};
    w.StartObject();
    w.Key("type");
    w.String("object");
    w.Key("properties");
    w.StartObject();
    write_properties(w, false);
    w.EndObject();
    w.Key("required");
    w.StartArray();
    for (const auto& f : fields_)
      if (f->mandatory)
        w.String(f->name.c_str());
    w.EndArray();
    w.Key("additionalProperties");
    w.Bool(false);
    w.EndObject();
    return buf.GetString();
  }

  /// Decodes arguments that already passed schema validation.
  S decode(const rapidjson::Value& obj) const {
    S out{};
    for (const auto& f : fields_) {
      auto i = obj.FindMember(f->name.c_str());
      f->decode(out, i != obj.MemberEnd() ? &i->value : nullptr);
    }
    return out;
  }

  /// Writes `x` as a JSON object.
  std::string encode(const S& x) const {
    rapidjson::StringBuffer buf{nullptr, 16384};
    json_writer w{buf};
    write(w, x);
    return {buf.GetString(), buf.GetSize()};
  }

  void write(json_writer& w, const S& x) const {
    w.StartObject();
    for (const auto& f : fields_)
      f->encode(w, x);
    w.EndObject();
  }

  /// Writes `x` as a tool's successful result: its fields, then
  /// "error": false, which every success carries (docs/tools.md
  /// "Vocabulary"; the spec's time_task_end shows it).
  std::string encode_success(const S& x) const {
    rapidjson::StringBuffer buf{nullptr, 16384};
    json_writer w{buf};
    w.StartObject();
    for (const auto& f : fields_)
      f->encode(w, x);
    w.Key("error");
    w.Bool(false);
    w.EndObject();
    return {buf.GetString(), buf.GetSize()};
  }

  /// Writes "name": {schema} for every field, as arguments or as result.
  void write_properties(json_writer& w, bool as_result) const {
    for (const auto& f : fields_) {
      w.Key(f->name.c_str());
      f->write_schema(w, as_result);
    }
  }

  /// Writes the names of the arguments that must be present.
  void write_mandatory(json_writer& w) const {
    for (const auto& f : fields_)
      if (f->mandatory)
        w.String(f->name.c_str());
  }

  bool has_field(const std::string& name) const {
    for (const auto& f : fields_)
      if (f->name == name)
        return true;
    return false;
  }

  /// Writes the names of the fields a result always carries.
  void write_required(json_writer& w) const {
    for (const auto& f : fields_)
      if (f->always_present())
        w.String(f->name.c_str());
  }

private:
  std::vector<std::unique_ptr<field_base>> fields_;
};

/// The members of a nested result object's schema (type, properties,
/// required), inside an object the caller opened.
template <class E>
void write_nested_object(json_writer& w) {
  write_type(w, "object");
  w.Key("properties");
  w.StartObject();
  nested<E>::schema().write_properties(w, true);
  w.EndObject();
  w.Key("required");
  w.StartArray();
  nested<E>::schema().write_required(w);
  w.EndArray();
}

/// A list of nested objects in a result, e.g. the per-task details of a
/// summary. Results only: arguments are flat.
template <class E>
struct json_type<std::vector<E>, std::enable_if_t<is_nested<E>::value>> {
  static void schema(json_writer& w, item_limit = {}) {
    write_type(w, "array");
    w.Key("items");
    w.StartObject();
    write_nested_object<E>(w);
    w.EndObject();
  }
  static std::vector<E> decode(const rapidjson::Value&) {
    throw std::logic_error("lists of objects are results, not arguments");
  }
  static void encode(json_writer& w, const std::vector<E>& xs) {
    w.StartArray();
    for (const auto& x : xs)
      nested<E>::schema().write(w, x);
    w.EndArray();
  }
};

/// One nested object in a result (e.g. time_convert's `source`). Results
/// only, like the lists above.
template <class E>
struct json_type<E, std::enable_if_t<is_nested<E>::value>> {
  static void schema(json_writer& w, item_limit = {}) {
    write_nested_object<E>(w);
  }
  static E decode(const rapidjson::Value&) {
    throw std::logic_error("nested objects are results, not arguments");
  }
  static void encode(json_writer& w, const E& x) {
    nested<E>::schema().write(w, x);
  }
};

/// A list of nested objects in the arguments: each item an object with the
/// declared properties, its mandatory ones required, nothing else allowed.
template <class E>
struct json_type<std::vector<E>, std::enable_if_t<is_nested_arg<E>::value>> {
  static void schema(json_writer& w, item_limit = {}) {
    write_type(w, "array");
    w.Key("items");
    w.StartObject();
    write_type(w, "object");
    w.Key("properties");
    w.StartObject();
    nested_arg<E>::schema().write_properties(w, false);
    w.EndObject();
    w.Key("required");
    w.StartArray();
    nested_arg<E>::schema().write_mandatory(w);
    w.EndArray();
    w.Key("additionalProperties");
    w.Bool(false);
    w.EndObject();
  }
  static std::vector<E> decode(const rapidjson::Value& v) {
    std::vector<E> out;
    out.reserve(v.Size());
    for (const auto& x : v.GetArray())
      out.push_back(nested_arg<E>::schema().decode(x));
    return out;
  }
  static void encode(json_writer& w, const std::vector<E>& xs) {
    w.StartArray();
    for (const auto& x : xs)
      nested_arg<E>::schema().write(w, x);
    w.EndArray();
  }
};

/// The roles one declaration plays for a tool.
template <class Args>
using input_schema = object_schema<Args>;

template <class Result>
using output_schema = object_schema<Result>;

} // namespace ttm::tools
