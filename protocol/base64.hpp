#pragma once

// Base64 decoding (RFC 4648), the one decoder of the server: the HTTP
// edge's `=?base64?…?=` header values (standard alphabet) and the OAuth
// tokens' and keys' base64url (RFC 7515) both use it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ttm::protocol {

enum class base64_alphabet : std::uint8_t {
  standard, ///< RFC 4648 §4: '+' and '/'
  url,      ///< RFC 4648 §5: '-' and '_'
};

/// The bytes of unpadded Base64 `text` (padding is the caller's to strip,
/// where its format allows it); nullopt for a character outside `alphabet`
/// or a length no encoding has (4k+1). `canonical`: the unused low bits of
/// the last character must be zero too, so that one byte string has one
/// encoding (RFC 7515 §2).
std::optional<std::string> base64_decode(std::string_view text,
                                         base64_alphabet alphabet,
                                         bool canonical);

} // namespace ttm::protocol
