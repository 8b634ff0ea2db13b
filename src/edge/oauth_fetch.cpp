#include "edge/oauth_fetch.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <memory>
#include <mutex>

namespace ttm::edge::oauth {

namespace {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string part(CURLU* u, CURLUPart which) {
  char* p = nullptr;
  if (curl_url_get(u, which, &p, 0) != CURLUE_OK || p == nullptr)
    return {};
  std::string s{p};
  curl_free(p);
  return s;
}

struct capped_body {
  std::string* out;
  std::size_t max;
  bool over = false;
};

std::size_t on_data(char* data, std::size_t size, std::size_t n, void* user) {
  auto* b = static_cast<capped_body*>(user);
  auto len = size * n;
  if (b->out->size() + len > b->max) {
    b->over = true;
    return 0; // aborts the transfer
  }
  b->out->append(data, len);
  return len;
}

using easy_ptr = std::unique_ptr<CURL, void (*)(CURL*)>;
using slist_ptr = std::unique_ptr<curl_slist, void (*)(curl_slist*)>;

fetch_result perform(CURL* h, const std::string& url,
                     const fetch_limits& limits) {
  fetch_result r;
  capped_body body{&r.body, limits.max_bytes};
  char err[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(limits.timeout.count()));
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(limits.timeout.count()));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err);
  curl_easy_setopt(h, CURLOPT_USERAGENT, "time-tracker-mcp");
  auto rc = curl_easy_perform(h);
  if (body.over) {
    r.error = "the response is larger than "
              + std::to_string(limits.max_bytes) + " bytes";
    return r;
  }
  if (rc != CURLE_OK) {
    r.error = err[0] ? err : curl_easy_strerror(rc);
    return r;
  }
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r.status);
  return r;
}

} // namespace

std::string url_parts::origin() const {
  return scheme + "://" + host + (port.empty() ? "" : ":" + port);
}

url_parts parse_url(const std::string& url) {
  global_init();
  url_parts p;
  std::unique_ptr<CURLU, void (*)(CURLU*)> u{curl_url(), curl_url_cleanup};
  if (!u
      || curl_url_set(u.get(), CURLUPART_URL, url.c_str(),
                      CURLU_NON_SUPPORT_SCHEME)
           != CURLUE_OK)
    return p;
  auto scheme = part(u.get(), CURLUPART_SCHEME);
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  p.host = part(u.get(), CURLUPART_HOST);
  if (p.host.empty())
    return p;
  p.scheme = std::move(scheme);
  p.port = part(u.get(), CURLUPART_PORT);
  p.path = part(u.get(), CURLUPART_PATH);
  if (p.path.empty())
    p.path = "/";
  p.query_or_fragment = !part(u.get(), CURLUPART_QUERY).empty()
                        || !part(u.get(), CURLUPART_FRAGMENT).empty()
                        || url.find('#') != std::string::npos
                        || url.find('?') != std::string::npos;
  return p;
}

bool loopback_host(const std::string& host) {
  std::string h = host;
  std::transform(h.begin(), h.end(), h.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return h == "localhost" || h == "[::1]" || h.rfind("127.", 0) == 0;
}

std::string check_url(const std::string& url, const std::string& what) {
  auto p = parse_url(url);
  if (p.scheme.empty())
    return what + ": expected an absolute URL such as https://auth.example.com"
                  ", got '"
           + url + "'";
  if (p.scheme != "https" && p.scheme != "http")
    return what + ": expected an https URL, got '" + url + "'";
  if (p.scheme == "http" && !loopback_host(p.host))
    return what + ": http is accepted on a loopback host only (localhost, "
                  "127.0.0.1, [::1]); use https for '"
           + url + "'";
  if (p.query_or_fragment)
    return what + ": a URL without query or fragment is expected, got '"
           + url + "'";
  return {};
}

std::string fetch_result::what() const {
  if (!error.empty())
    return error;
  return "HTTP " + std::to_string(status);
}

fetch_result http_get(const std::string& url, const fetch_limits& limits) {
  global_init();
  easy_ptr h{curl_easy_init(), curl_easy_cleanup};
  if (!h)
    return {0, {}, "libcurl could not start a transfer"};
  slist_ptr headers{curl_slist_append(nullptr, "Accept: application/json"),
                    curl_slist_free_all};
  curl_easy_setopt(h.get(), CURLOPT_HTTPHEADER, headers.get());
  return perform(h.get(), url, limits);
}

std::string form_escape(const std::string& value) {
  global_init();
  char* e = curl_easy_escape(nullptr, value.c_str(),
                             static_cast<int>(value.size()));
  if (e == nullptr)
    return {};
  std::string s{e};
  curl_free(e);
  return s;
}

fetch_result http_post_form(const std::string& url, const std::string& form,
                            const std::string& user,
                            const std::string& password,
                            const fetch_limits& limits) {
  global_init();
  easy_ptr h{curl_easy_init(), curl_easy_cleanup};
  if (!h)
    return {0, {}, "libcurl could not start a transfer"};
  slist_ptr headers{curl_slist_append(nullptr, "Accept: application/json"),
                    curl_slist_free_all};
  curl_easy_setopt(h.get(), CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(h.get(), CURLOPT_POSTFIELDS, form.c_str());
  curl_easy_setopt(h.get(), CURLOPT_POSTFIELDSIZE,
                   static_cast<long>(form.size()));
  auto u = form_escape(user);
  auto p = form_escape(password);
  curl_easy_setopt(h.get(), CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
  curl_easy_setopt(h.get(), CURLOPT_USERNAME, u.c_str());
  curl_easy_setopt(h.get(), CURLOPT_PASSWORD, p.c_str());
  return perform(h.get(), url, limits);
}

} // namespace ttm::edge::oauth
