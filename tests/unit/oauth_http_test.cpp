// The OAuth resource server over real HTTP: the server binary
// (TTM_TEST_BINARY) started with --oauth-issuer naming an authorization
// server the test serves on loopback (loopback_http.hpp), then asked with
// Beast: the Protected Resource Metadata documents, the 401 and 403
// challenges, tokens accepted and refused, a static token beside them.

#ifndef BOOST_BEAST_USE_STD_STRING_VIEW
#define BOOST_BEAST_USE_STD_STRING_VIEW
#endif

#include "loopback_http.hpp"
#include "oauth_test_keys.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

#include <boost/asio/connect.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <thread>

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace {

namespace http = boost::beast::http;

const std::string resource = "https://mcp.example.com/mcp";
const std::string prm_url
  = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

/// The server binary, running until the test ends.
class server_process {
public:
  explicit server_process(std::vector<std::string> args) {
    const char* bin = std::getenv("TTM_TEST_BINARY");
    REQUIRE(bin != nullptr);
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    std::vector<char*> argv{const_cast<char*>(bin)};
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    REQUIRE(posix_spawn(&pid_, bin, &fa, nullptr, argv.data(), environ) == 0);
    posix_spawn_file_actions_destroy(&fa);
    ::close(fds[1]);
    err_ = fds[0];
    // The start-up line names the URL.
    auto line = wait_for("serving MCP over HTTP at http://");
    auto at = line.find("http://127.0.0.1:") + 17;
    port_ = static_cast<std::uint16_t>(std::stoi(line.substr(at)));
  }

  ~server_process() {
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    ::close(err_);
  }

  std::uint16_t port() const {
    return port_;
  }

  /// Reads stderr until a line holds `text` (10 s at most, 60 s in a
  /// ThreadSanitizer build: its server starts 5-15 times slower, and took
  /// 10 s on a loaded machine); that line. Every line logged so far counts,
  /// not only those after the last wait's: the keys may be logged before
  /// the "serving" line that the start waits for.
  std::string wait_for(const std::string& text) {
#if defined(__SANITIZE_THREAD__)
    constexpr auto most = std::chrono::seconds{60};
#else
    constexpr auto most = std::chrono::seconds{10};
#endif
    auto deadline = std::chrono::steady_clock::now() + most;
    scanned_ = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      auto nl = log_.find('\n', scanned_);
      if (nl != std::string::npos) {
        auto line = log_.substr(scanned_, nl - scanned_);
        scanned_ = nl + 1;
        if (line.find(text) != std::string::npos)
          return line;
        continue;
      }
      pollfd p{err_, POLLIN, 0};
      if (::poll(&p, 1, 200) > 0) {
        char buf[4096];
        auto n = ::read(err_, buf, sizeof buf);
        if (n <= 0)
          break;
        log_.append(buf, static_cast<std::size_t>(n));
      }
    }
    FAIL("the server did not log '" << text << "'; its log:\n" << log_);
    return {};
  }

private:
  pid_t pid_ = 0;
  int err_ = -1;
  std::uint16_t port_ = 0;
  std::string log_;
  std::size_t scanned_ = 0;
};

struct reply {
  int status = 0;
  std::map<std::string, std::string> headers;
  std::string body;
};

reply call(std::uint16_t port, http::verb method, const std::string& target,
           const std::map<std::string, std::string>& headers = {},
           const std::string& body = {}) {
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::socket socket{ioc};
  socket.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  http::request<http::string_body> req{method, target, 11};
  req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
  for (const auto& [k, v] : headers)
    req.set(k, v);
  if (method == http::verb::post) {
    req.set(http::field::content_type, "application/json");
    req.set(http::field::accept, "application/json, text/event-stream");
    req.body() = body;
    req.prepare_payload();
  }
  http::write(socket, req);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(socket, buffer, res);
  reply r;
  r.status = res.result_int();
  for (const auto& h : res)
    r.headers[std::string{h.name_string()}] = std::string{h.value()};
  r.body = res.body();
  return r;
}

const std::string initialize
  = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{)"
    R"("protocolVersion":"2025-06-18","capabilities":{},)"
    R"("clientInfo":{"name":"oauth-test","version":"1"}}})";

std::string tool_call(const std::string& name, const std::string& args) {
  return R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":")"
         + name + R"(","arguments":)" + args + "}}";
}

std::map<std::string, std::string> bearer(const std::string& token) {
  return {{"Authorization", "Bearer " + token}};
}

} // namespace

TEST_CASE("oauth over HTTP: metadata, 401 and 403 challenges, tokens "
          "accepted and refused, static tokens beside them",
          "[oauth][http]") {
  ttm::test::loopback_http as;
  ttm::test::test_key key{"ES256", "k1"};
  as.set("/.well-known/oauth-authorization-server", 200,
         "{\"issuer\":\"" + as.url() + "\",\"jwks_uri\":\"" + as.url("/jwks")
           + "\"}");
  as.set("/jwks", 200, ttm::test::jwks({&key}));
  ttm::test::temp_dir dir;
  auto token_file = (dir.path() / "tokens").string();
  std::ofstream{token_file} << "ops static-token-1\n";
  server_process server{{"http", "--listen", "127.0.0.1:0", "--ephemeral",
                         "--oauth-issuer", as.url(), "--oauth-resource",
                         resource, "--auth-token-file", token_file}};
  server.wait_for("signing keys of " + as.url() + ": 1 (kid k1)");
  auto port = server.port();
  auto now = std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
               .count();
  auto claims = [&](const std::string& scope, long long exp,
                    const std::string& aud = resource) {
    return "{\"iss\":\"" + as.url() + "\",\"sub\":\"alice\",\"aud\":\"" + aud
           + "\",\"exp\":" + std::to_string(exp) + ",\"scope\":\"" + scope
           + "\"}";
  };

  SECTION("Protected Resource Metadata at both paths") {
    for (std::string path : {"/.well-known/oauth-protected-resource",
                             "/.well-known/oauth-protected-resource/mcp"}) {
      INFO(path);
      auto r = call(port, http::verb::get, path);
      REQUIRE(r.status == 200);
      CHECK(r.headers["Content-Type"] == "application/json");
      rapidjson::Document d;
      d.Parse(r.body.c_str());
      REQUIRE(d.IsObject());
      CHECK(std::string{d["resource"].GetString()} == resource);
      CHECK(std::string{d["authorization_servers"][0].GetString()}
            == as.url());
      CHECK(std::string{d["bearer_methods_supported"][0].GetString()}
            == "header");
      CHECK(d["scopes_supported"].Size() == 2);
    }
    CHECK(call(port, http::verb::post,
               "/.well-known/oauth-protected-resource", {}, "{}")
            .status
          == 405);
  }

  SECTION("401 without a token, and for refused tokens") {
    auto none = call(port, http::verb::post, "/mcp", {}, initialize);
    CHECK(none.status == 401);
    CHECK(none.headers["WWW-Authenticate"]
          == "Bearer resource_metadata=\"" + prm_url
               + "\", scope=\"tracker.read tracker.write\"");
    struct refused {
      std::string token;
      std::string description;
    };
    for (const auto& t : std::vector<refused>{
           {key.token(claims("tracker.read", now - 120)), "has expired"},
           {key.token(claims("tracker.read", now + 300,
                             "https://other.example.com/mcp")),
            "issued for another resource"},
           {ttm::test::test_key{"ES256", "k1"}.token(
              claims("tracker.read", now + 300)),
            "signature does not verify"},
           {"not-a-jwt", "cannot be verified"}}) {
      INFO(t.description);
      auto r = call(port, http::verb::post, "/mcp", bearer(t.token),
                    initialize);
      CHECK(r.status == 401);
      auto www = r.headers["WWW-Authenticate"];
      CHECK(www.rfind("Bearer resource_metadata=\"" + prm_url + "\"", 0) == 0);
      CHECK(www.find("error=\"invalid_token\"") != std::string::npos);
      CHECK(www.find(t.description) != std::string::npos);
      CHECK(r.body.find(t.description) != std::string::npos);
    }
  }

  SECTION("a read token reads; a write needs the write scope (403)") {
    auto token = key.token(claims("tracker.read", now + 300));
    auto init = call(port, http::verb::post, "/mcp", bearer(token), initialize);
    REQUIRE(init.status == 200);
    auto session = init.headers["Mcp-Session-Id"];
    REQUIRE_FALSE(session.empty());
    auto h = bearer(token);
    h["Mcp-Session-Id"] = session;
    h["MCP-Protocol-Version"] = "2025-06-18";
    CHECK(call(port, http::verb::post, "/mcp", h,
               R"({"jsonrpc":"2.0","method":"notifications/initialized"})")
            .status
          == 202);
    auto read = call(port, http::verb::post, "/mcp", h,
                     tool_call("time_get_current", R"({"timezone":"UTC"})"));
    CHECK(read.status == 200);
    CHECK(read.body.find("\"isError\":true") == std::string::npos);
    auto write = call(port, http::verb::post, "/mcp", h,
                      tool_call("time_session_start", R"({"tasks":[]})"));
    CHECK(write.status == 403);
    CHECK(write.headers["WWW-Authenticate"].rfind(
            "Bearer error=\"insufficient_scope\", scope=\"tracker.write\"", 0)
          == 0);
    CHECK(write.body.find("tracker.write") != std::string::npos);
    // Other methods need any valid token.
    CHECK(call(port, http::verb::post, "/mcp", h,
               R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})")
            .status
          == 200);
  }

  SECTION("a static token is still accepted beside OAuth") {
    auto r = call(port, http::verb::post, "/mcp", bearer("static-token-1"),
                  initialize);
    CHECK(r.status == 200);
    auto wrong = call(port, http::verb::post, "/mcp", bearer("static-token-2"),
                      initialize);
    CHECK(wrong.status == 401);
  }

  SECTION("ready with keys; the outcomes are counted") {
    CHECK(call(port, http::verb::get, "/readyz").status == 200);
    call(port, http::verb::post, "/mcp",
         bearer(key.token(claims("tracker.read", now + 300))), initialize);
    auto metrics = call(port, http::verb::get, "/metrics");
    CHECK(metrics.body.find("time_tracker_oauth_tokens_total{outcome=\"accepted\"}")
          != std::string::npos);
    CHECK(metrics.body.find("time_tracker_oauth_signing_keys 1")
          != std::string::npos);
  }
}

TEST_CASE("oauth over HTTP: started without the issuer's keys, /readyz says "
          "so",
          "[oauth][http]") {
  ttm::test::loopback_http as;
  as.set("/.well-known/oauth-authorization-server", 200,
         "{\"issuer\":\"" + as.url() + "\",\"jwks_uri\":\"" + as.url("/jwks")
           + "\"}");
  as.set("/jwks", 503, "down");
  server_process server{{"http", "--listen", "127.0.0.1:0", "--ephemeral",
                         "--oauth-issuer", as.url()}};
  server.wait_for("started without the signing keys");
  auto r = call(server.port(), http::verb::get, "/readyz");
  CHECK(r.status == 503);
  CHECK(r.body.find("no signing keys") != std::string::npos);
  // Without --oauth-resource on loopback: the edge's own URL.
  auto prm = call(server.port(), http::verb::get,
                  "/.well-known/oauth-protected-resource/mcp");
  CHECK(prm.body.find("\"resource\":\"http://127.0.0.1:"
                      + std::to_string(server.port()) + "/mcp\"")
        != std::string::npos);
}
