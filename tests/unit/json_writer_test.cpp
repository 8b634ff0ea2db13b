// protocol::json_writer's string path must write exactly what RapidJSON's
// own Writer writes, at every length and alignment the SIMD blocks meet.

#include "protocol/json_writer.hpp"

#include <catch2/catch.hpp>

#include <random>

namespace {

std::string rapidjson_string(std::string_view s) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w{buf};
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  return {buf.GetString(), buf.GetSize()};
}

std::string ours(std::string_view s) {
  rapidjson::StringBuffer buf;
  ttm::protocol::json_writer w{buf};
  w.string(s);
  return {buf.GetString(), buf.GetSize()};
}

std::string appended(std::string_view s) {
  std::string out = "x";
  ttm::protocol::append_json_string(out, s);
  return out.substr(1);
}

} // namespace

TEST_CASE("json_writer escapes strings as RapidJSON's Writer does",
          "[protocol][json]") {
  for (std::string_view s :
       {std::string_view{""}, std::string_view{"plain"},
        std::string_view{"\"quoted\" and \\ back"},
        std::string_view{"tab\there\nnew\rret\bbs\fff"},
        std::string_view{"\x01\x1f\x7f/slash", 9},
        std::string_view{"caf\xc3\xa9 \xe2\x80\xaf 2026"},
        std::string_view{"nul\0inside", 10},
        std::string_view{R"({"a":"b","c":[1,2,{"d":"e\"f"}]})"}}) {
    CAPTURE(s);
    CHECK(ours(s) == rapidjson_string(s));
    CHECK(appended(s) == rapidjson_string(s));
    CHECK(ttm::protocol::json_string_length(s) == rapidjson_string(s).size());
  }
}

TEST_CASE("json_writer matches RapidJSON on random strings of every length",
          "[protocol][json]") {
  std::mt19937 rng{20261125};
  // Biased towards bytes that need escapes, so blocks hold several.
  const std::string alphabet = "\"\\\n\t\x01\x1f abcXYZ019{}:,/\xc3\xa9";
  for (std::size_t len = 0; len < 200; ++len) {
    for (int round = 0; round < 20; ++round) {
      std::string s(len, ' ');
      for (auto& c : s)
        c = alphabet[rng() % alphabet.size()];
      CAPTURE(len, s);
      REQUIRE(ours(s) == rapidjson_string(s));
      REQUIRE(appended(s) == rapidjson_string(s));
    }
  }
}

TEST_CASE("json_writer writes keys, values and raw JSON in place",
          "[protocol][json]") {
  rapidjson::StringBuffer buf;
  ttm::protocol::json_writer w{buf};
  w.StartObject();
  w.string("a\"b");
  w.string("v");
  w.string("raw");
  w.raw(R"({"x":[1,2]})", rapidjson::kObjectType);
  w.Key("n");
  w.Int(3);
  w.EndObject();
  CHECK(std::string{buf.GetString(), buf.GetSize()}
        == R"({"a\"b":"v","raw":{"x":[1,2]},"n":3})");
  CHECK(w.IsComplete());
}
