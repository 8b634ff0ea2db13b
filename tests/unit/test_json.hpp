#pragma once

// JSON helpers shared by the unit tests.

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

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

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

} // namespace ttm::test
