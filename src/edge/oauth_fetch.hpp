#pragma once

// The resource server's outgoing HTTP (libcurl, the system CA store):
// the issuer's metadata and JWK Set, token introspection. Blocking calls,
// made only on the resource server's own threads, never on an I/O thread.
// Redirects are not followed; bodies are capped.

#include <chrono>
#include <cstddef>
#include <string>

namespace ttm::edge::oauth {

/// The parts of an absolute URL we check (libcurl's URL parser).
struct url_parts {
  std::string scheme; ///< lower case
  std::string host;   ///< as written; an IPv6 literal in brackets
  std::string port;   ///< empty: the scheme's default
  std::string path;   ///< at least "/"
  bool query_or_fragment = false;
  /// scheme://host[:port], as written
  std::string origin() const;
};

/// Splits `url`; empty `scheme` when it is not an absolute URL.
url_parts parse_url(const std::string& url);

/// localhost, 127.0.0.0/8 or [::1].
bool loopback_host(const std::string& host);

/// Why `url` may not be used for `what` ("--oauth-issuer"), or empty:
/// https, or http on a loopback host only (tests, local set-ups).
std::string check_url(const std::string& url, const std::string& what);

struct fetch_result {
  long status = 0;   ///< HTTP status; 0: no response
  std::string body;
  std::string error; ///< transport error; empty with a response
  bool ok() const noexcept {
    return error.empty() && status == 200;
  }
  /// "HTTP 503" or the transport error, for the log.
  std::string what() const;
};

struct fetch_limits {
  std::chrono::milliseconds timeout{5000};
  std::size_t max_bytes = 1024 * 1024;
};

/// GET `url` (Accept: application/json).
fetch_result http_get(const std::string& url, const fetch_limits& limits = {});

/// POST `form` (application/x-www-form-urlencoded) with HTTP Basic
/// credentials `user`:`password` (each form-urlencoded first, RFC 6749
/// §2.3.1).
fetch_result http_post_form(const std::string& url, const std::string& form,
                            const std::string& user,
                            const std::string& password,
                            const fetch_limits& limits = {});

/// application/x-www-form-urlencoded escaping of one value.
std::string form_escape(const std::string& value);

} // namespace ttm::edge::oauth
