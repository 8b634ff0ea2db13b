#pragma once

// JSON helpers shared by the unit tests.

#include <catch2/catch.hpp>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

namespace ttm::test {

/// Parses `text`, failing the test (and showing the text) if it is not JSON.
inline rapidjson::Document parse(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  INFO("JSON text: " << text);
  REQUIRE_FALSE(doc.HasParseError());
  return doc;
}

/// The string value of `v`, failing the test if it is not a string.
inline std::string str(const rapidjson::Value& v) {
  REQUIRE(v.IsString());
  return {v.GetString(), v.GetStringLength()};
}

/// `v` as compact JSON text (for messages and comparisons).
inline std::string to_json(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w{buf};
  v.Accept(w);
  return buf.GetString();
}

/// The `result` object of JSON-RPC response `res` (fails the test on an
/// error response).
inline const rapidjson::Value& result_object(const rapidjson::Value& res) {
  INFO("response: " << to_json(res));
  REQUIRE(res.IsObject());
  REQUIRE(res.HasMember("result"));
  const auto& r = res["result"];
  REQUIRE(r.IsObject());
  return r;
}

/// `s` with every `from` replaced by `to` (left to right, no rescans).
inline std::string replace_all(std::string s, const std::string& from,
                               const std::string& to) {
  for (auto i = s.find(from); i != std::string::npos;
       i = s.find(from, i + to.size()))
    s.replace(i, from.size(), to);
  return s;
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

} // namespace ttm::test
