#pragma once

// How the journal writes and reads one C++ value of a payload member (a
// string, an integer, a list, a map, an optional), with the bad_event
// messages that name the member when a stored value is not of its type.
// The records that use them: codec_record.hpp.

#include "journal/bad_event.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace ttm::journal::fields {

using writer = rapidjson::Writer<rapidjson::StringBuffer>;
using json = rapidjson::Value;

[[noreturn]] inline void fail(std::string message) {
  throw bad_event{std::move(message)};
}

inline std::string quoted(const char* key) {
  return std::string{"'"} + key + "'";
}

/// "payload lacks the string 'key'": a required member that is absent.
inline std::string lacks(const char* noun, const char* key) {
  return std::string{"payload lacks the "} + noun + " " + quoted(key);
}

inline void write_string(writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

// -- values: how one C++ type is written and read -----------------------------
// Each specialization has `noun` (for lacks()), write(w, x), read(v, key)
// (throws bad_event naming `key`) and empty(x) (for absent_when_empty);
// those that can be the values of a JSON object (a map) also fits(v).

template <class T, class = void>
struct value;

template <>
struct value<std::string> {
  static constexpr const char* noun = "string";
  static bool fits(const json& v) {
    return v.IsString();
  }
  static void write(writer& w, const std::string& x) {
    write_string(w, x);
  }
  static std::string read(const json& v, const char* key) {
    if (!v.IsString())
      fail(lacks(noun, key));
    return {v.GetString(), v.GetStringLength()};
  }
  static bool empty(const std::string& x) {
    return x.empty();
  }
};

/// An integer member, written and read as a `Rep`.
template <class T, class Rep = std::int64_t>
struct integer_value {
  static constexpr const char* noun = "integer";
  static bool fits(const json& v) {
    return std::is_signed_v<Rep> ? v.IsInt64() : v.IsUint64();
  }
  static Rep read_rep(const json& v, const char* key) {
    if (!fits(v))
      fail(quoted(key) + " is not an integer");
    if constexpr (std::is_signed_v<Rep>)
      return v.GetInt64();
    else
      return v.GetUint64();
  }
  static bool empty(const T&) {
    return false;
  }
};

template <>
struct value<std::size_t> : integer_value<std::size_t, std::uint64_t> {
  static void write(writer& w, std::size_t x) {
    w.Uint64(x);
  }
  static std::size_t read(const json& v, const char* key) {
    return static_cast<std::size_t>(read_rep(v, key));
  }
};

template <>
struct value<std::chrono::milliseconds>
  : integer_value<std::chrono::milliseconds> {
  static void write(writer& w, std::chrono::milliseconds x) {
    w.Int64(x.count());
  }
  static std::chrono::milliseconds read(const json& v, const char* key) {
    return std::chrono::milliseconds{read_rep(v, key)};
  }
};

/// A list of strings; absent reads as empty.
template <>
struct value<std::vector<std::string>> {
  static constexpr const char* noun = "array";
  static void write(writer& w, const std::vector<std::string>& xs) {
    w.StartArray();
    for (const auto& x : xs)
      write_string(w, x);
    w.EndArray();
  }
  static std::vector<std::string> read(const json& v, const char* key) {
    if (!v.IsArray())
      fail(quoted(key) + " is not an array");
    std::vector<std::string> out;
    for (const auto& x : v.GetArray()) {
      if (!x.IsString())
        fail(quoted(key) + " holds a non-string");
      out.emplace_back(x.GetString(), x.GetStringLength());
    }
    return out;
  }
  static bool empty(const std::vector<std::string>& xs) {
    return xs.empty();
  }
};

/// A JSON object of T values, in order: key -> value<T>.
template <class T>
struct value<std::vector<std::pair<std::string, T>>> {
  static constexpr const char* noun = "object";
  static void write(writer& w, const std::vector<std::pair<std::string, T>>& xs) {
    w.StartObject();
    for (const auto& [k, x] : xs) {
      w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
      value<T>::write(w, x);
    }
    w.EndObject();
  }
  static std::vector<std::pair<std::string, T>> read(const json& v,
                                                      const char* key) {
    if (!v.IsObject())
      fail(quoted(key) + " is not an object");
    std::vector<std::pair<std::string, T>> out;
    for (const auto& m : v.GetObject()) {
      std::string name{m.name.GetString(), m.name.GetStringLength()};
      if (!value<T>::fits(m.value))
        fail(quoted(key) + " holds a non-" + value<T>::noun);
      out.emplace_back(std::move(name), value<T>::read(m.value, key));
    }
    return out;
  }
  static bool empty(const std::vector<std::pair<std::string, T>>& xs) {
    return xs.empty();
  }
};

template <class T>
struct value<std::optional<T>> {
  static constexpr const char* noun = value<T>::noun;
  /// Only called when engaged: an optional member is absent_when_empty.
  static void write(writer& w, const std::optional<T>& x) {
    value<T>::write(w, *x);
  }
  static std::optional<T> read(const json& v, const char* key) {
    return value<T>::read(v, key);
  }
  static bool empty(const std::optional<T>& x) {
    return !x;
  }
};

template <class T>
struct is_optional : std::false_type {};

template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

} // namespace ttm::journal::fields
