// The libraries loaded on first use (src/lazy_libs.hpp): each loads, and a
// call through a trampoline reaches the real function with its arguments
// and result intact, a variadic one included.

#include "lazy_libs.hpp"

#include <catch2/catch.hpp>
#include <curl/curl.h>
#include <openssl/evp.h>

#include <cstring>
#include <string>

using ttm::lazy::library;

TEST_CASE("lazy_libs: every library loads by its soname", "[lazy_libs]") {
  for (auto lib : {library::curl, library::crypto, library::pq,
                   library::systemd}) {
    INFO(ttm::lazy::soname(lib));
    CHECK(ttm::lazy::load(lib).empty());
    CHECK(ttm::lazy::load(lib).empty()); // again: already loaded
  }
  CHECK(std::string{ttm::lazy::soname(library::pq)} == "libpq.so.5");
}

TEST_CASE("lazy_libs: calls reach the library, variadic ones too",
          "[lazy_libs]") {
  // A plain call with an argument and a result.
  CHECK(std::string{curl_easy_strerror(CURLE_OK)} == "No error");
  CHECK(std::string{curl_easy_strerror(CURLE_COULDNT_CONNECT)}
        == "Couldn't connect to server");
  // curl_easy_setopt is variadic: the pointer must arrive as given.
  CURL* h = curl_easy_init();
  REQUIRE(h != nullptr);
  int marker = 0;
  REQUIRE(curl_easy_setopt(h, CURLOPT_PRIVATE, &marker) == CURLE_OK);
  void* back = nullptr;
  REQUIRE(curl_easy_getinfo(h, CURLINFO_PRIVATE, &back) == CURLE_OK);
  CHECK(back == &marker);
  curl_easy_cleanup(h);
  // libcrypto: a digest of known input.
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  REQUIRE(EVP_Digest("abc", 3, md, &len, EVP_sha256(), nullptr) == 1);
  REQUIRE(len == 32);
  CHECK(md[0] == 0xba);
  CHECK(md[31] == 0xad);
}
