// protocol/base64.hpp: the one Base64 decoder, in both alphabets, with and
// without the canonical check (the edge's header values and OAuth's
// base64url are tested through their own functions too).

#include "protocol/base64.hpp"

#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <string_view>

using ttm::protocol::base64_alphabet;
using ttm::protocol::base64_decode;

namespace {

std::optional<std::string> standard(std::string_view text,
                                    bool canonical = false) {
  return base64_decode(text, base64_alphabet::standard, canonical);
}

std::optional<std::string> url(std::string_view text, bool canonical = true) {
  return base64_decode(text, base64_alphabet::url, canonical);
}

} // namespace

TEST_CASE("base64: decodes RFC 4648's test vectors, unpadded", "[base64]") {
  // RFC 4648 §10, padding stripped (the callers strip or refuse it).
  CHECK(standard("") == std::optional<std::string>{""});
  CHECK(standard("Zg") == std::optional<std::string>{"f"});
  CHECK(standard("Zm8") == std::optional<std::string>{"fo"});
  CHECK(standard("Zm9v") == std::optional<std::string>{"foo"});
  CHECK(standard("Zm9vYg") == std::optional<std::string>{"foob"});
  CHECK(standard("Zm9vYmE") == std::optional<std::string>{"fooba"});
  CHECK(standard("Zm9vYmFy") == std::optional<std::string>{"foobar"});
  CHECK(url("Zm9vYmFy") == std::optional<std::string>{"foobar"});
  CHECK(standard("AA") == std::optional<std::string>{std::string{"\0", 1}});
}

TEST_CASE("base64: each alphabet takes its own two characters only",
          "[base64]") {
  CHECK(standard("+/+/") == std::optional<std::string>{"\xfb\xff\xbf"});
  CHECK(url("-_-_") == std::optional<std::string>{"\xfb\xff\xbf"});
  CHECK_FALSE(standard("-_-_"));
  CHECK_FALSE(url("+/+/"));
  for (std::string bad : {"Zm9v=", "Zm 9v", "Zm9v\n", "Zm*v", "Zm9\x80"}) {
    INFO("text: '" << bad << "'");
    CHECK_FALSE(standard(bad));
    CHECK_FALSE(url(bad));
  }
}

TEST_CASE("base64: a length no encoding has is refused", "[base64]") {
  for (std::string bad : {"Z", "Zm9vY", "Zm9vYmFyZ"}) {
    INFO("text: '" << bad << "'");
    CHECK_FALSE(standard(bad));
    CHECK_FALSE(url(bad));
  }
}

TEST_CASE("base64: canonical refuses non-zero leftover bits", "[base64]") {
  // "Zh" and "Zg" both decode to "f" when the leftover bits are ignored.
  CHECK(standard("Zh") == std::optional<std::string>{"f"});
  CHECK_FALSE(standard("Zh", true));
  CHECK(url("Zg") == std::optional<std::string>{"f"});
  CHECK_FALSE(url("Zh"));
  CHECK(url("Zh", false) == std::optional<std::string>{"f"});
  CHECK_FALSE(url("Zm9"));
  CHECK(url("Zm8") == std::optional<std::string>{"fo"});
}
