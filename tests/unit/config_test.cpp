// Unit tests for src/config: command line, environment and config file.

#include "config.hpp"
#include "domain/zones.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

using namespace ttm;

namespace {

using args = std::vector<std::string>;
using env_map = std::map<std::string, std::string>;

/// load_config with a fake environment, which has HOME unless `env` sets
/// it (as a login session has; the journal's directory derives from it).
config_result load(const args& a, const env_map& env = {}) {
  auto with_home = env;
  with_home.emplace("HOME", "/home/agent");
  return load_config(a, [&with_home](const char* name) -> const char* {
    auto i = with_home.find(name);
    return i == with_home.end() || i->second.empty() ? nullptr
                                                     : i->second.c_str();
  });
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

/// A successful load; returns the configuration.
config must_load(const args& a, const env_map& env = {}) {
  auto res = load(a, env);
  INFO("text: " << res.text);
  REQUIRE(res.cfg.has_value());
  CHECK(res.exit_code == 0);
  CHECK_FALSE(res.text_is_error);
  return *res.cfg;
}

/// A refused load; returns the error text.
std::string must_fail(const args& a, const env_map& env = {}) {
  auto res = load(a, env);
  CHECK_FALSE(res.cfg.has_value());
  CHECK(res.exit_code == 2);
  CHECK(res.text_is_error);
  CHECK_FALSE(res.text.empty());
  return res.text;
}

/// A config file under /tmp, removed at the end of the test.
struct temp_file {
  std::string path;
  explicit temp_file(const std::string& content) {
    char name[] = "/tmp/ttm_config_test_XXXXXX";
    int fd = mkstemp(name);
    REQUIRE(fd >= 0);
    close(fd);
    path = name;
    std::ofstream{path} << content;
  }
  ~temp_file() {
    std::remove(path.c_str());
  }
  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;
};

} // namespace

TEST_CASE("config: a mode is required") {
  auto text = must_fail({});
  CHECK(contains(text, "mode"));
  CHECK(contains(text, "--help"));
}

TEST_CASE("config: stdio with defaults") {
  auto c = must_load({"stdio"});
  CHECK(c.mode == "stdio");
  CHECK(c.log_level == log::level::info);
  CHECK(c.max_line_bytes == 4194304);
  CHECK(c.max_clients == 10000);
  CHECK(c.worker_threads == 0);
  CHECK(c.local_timezone.empty());
  CHECK(c.config_file.empty());
  auto res = load({"stdio"});
  CHECK(res.text.empty());
}

TEST_CASE("config: unknown modes, options and extra arguments are refused") {
  CHECK(contains(must_fail({"https"}), "'https'"));
  CHECK(contains(must_fail({"STDIO"}), "'STDIO'"));
  CHECK(contains(must_fail({"stdio", "--bogus", "1"}), "'--bogus'"));
  CHECK(contains(must_fail({"stdio", "--bogus=1"}), "'--bogus'"));
  CHECK(contains(must_fail({"stdio", "extra"}), "'extra'"));
  CHECK(contains(must_fail({"stdio", "stdio"}), "'stdio'"));
  CHECK(contains(must_fail({"stdio", "--log-level"}), "--log-level"));
  CHECK(contains(must_fail({"--log-level", "debug"}), "mode"));
}

TEST_CASE("config: --help and --version print text and exit 0") {
  for (const char* flag : {"--help", "-h"}) {
    auto res = load({flag});
    CHECK_FALSE(res.cfg.has_value());
    CHECK(res.exit_code == 0);
    CHECK_FALSE(res.text_is_error);
    CHECK(res.text == usage());
    CHECK(contains(res.text, "Usage"));
  }
  auto res = load({"--version"});
  CHECK_FALSE(res.cfg.has_value());
  CHECK(res.exit_code == 0);
  CHECK_FALSE(res.text_is_error);
  CHECK(res.text == std::string{"time-tracker-mcp "} + TTM_VERSION + "\n");
  SECTION("also after a mode and options") {
    auto h = load({"stdio", "--log-level", "debug", "--help"});
    CHECK(h.exit_code == 0);
    CHECK_FALSE(h.cfg.has_value());
    CHECK(h.text == usage());
  }
}

TEST_CASE("config: usage documents every option") {
  auto u = usage();
  for (const char* s :
       {"stdio", "--config", "TIME_TRACKER_MCP_CONFIG", "--log-level",
        "TIME_TRACKER_MCP_LOG_LEVEL", "log_level", "--max-line-bytes",
        "TIME_TRACKER_MCP_MAX_LINE_BYTES", "max_line_bytes",
        "--local-timezone", "--max-mcp-sessions", "--threads",
        "--max-tracking-sessions", "--max-tasks-per-session",
        "--session-max-age", "--session-max-idle"})
    CHECK(contains(u, s));
}

TEST_CASE("config: command line options") {
  SECTION("--log-level VALUE and --log-level=VALUE") {
    CHECK(must_load({"stdio", "--log-level", "debug"}).log_level
          == log::level::debug);
    CHECK(must_load({"stdio", "--log-level=debug"}).log_level
          == log::level::debug);
    CHECK(must_load({"--log-level=off", "stdio"}).log_level
          == log::level::off);
    CHECK(must_load({"stdio", "--log-level", "trace"}).log_level
          == log::level::trace);
  }
  SECTION("the last occurrence wins") {
    CHECK(must_load({"stdio", "--log-level", "debug", "--log-level=error"})
            .log_level
          == log::level::error);
  }
  SECTION("sizes and zone") {
    auto c = must_load({"stdio", "--max-line-bytes", "1024", "--max-mcp-sessions=5",
                        "--threads", "4", "--local-timezone",
                        "Europe/Paris"});
    CHECK(c.max_line_bytes == 1024);
    CHECK(c.max_clients == 5);
    CHECK(c.worker_threads == 4);
    CHECK(c.local_timezone == "Europe/Paris");
  }
  SECTION("a Windows zone name is kept as given; 'local' means its IANA zone") {
    auto c = must_load({"stdio", "--local-timezone", "Eastern Standard Time"});
    CHECK(c.local_timezone == "Eastern Standard Time");
    // What main makes of it (resolve_local_zone): the IANA name.
    auto z = domain::resolve_zone(c.local_timezone, "UTC");
    REQUIRE(z.found);
    CHECK(z.found->name() == "America/New_York");
  }
  SECTION("range limits are inclusive") {
    CHECK(must_load({"stdio", "--max-line-bytes", "256"}).max_line_bytes
          == 256);
    CHECK(must_load({"stdio", "--max-line-bytes", "1073741824"}).max_line_bytes
          == 1073741824);
  }
}

TEST_CASE("config: bad option values are refused naming the option") {
  auto bad_level = must_fail({"stdio", "--log-level", "loud"});
  CHECK(contains(bad_level, "--log-level"));
  CHECK(contains(bad_level, "'loud'"));
  CHECK(contains(must_fail({"stdio", "--log-level=DEBUG"}), "--log-level"));
  CHECK(contains(must_fail({"stdio", "--log-level="}), "--log-level"));
  for (std::string value : {"12x", "0", "255", "1073741825", "-1", "",
                            " 1024", "99999999999999999999999999", "1e6"}) {
    INFO("value: " << value);
    auto text = must_fail({"stdio", "--max-line-bytes", value});
    CHECK(contains(text, "--max-line-bytes"));
    CHECK(contains(text, "'" + value + "'"));
  }
  CHECK(contains(must_fail({"stdio", "--max-mcp-sessions", "0"}), "--max-mcp-sessions"));
  CHECK(contains(must_fail({"stdio", "--threads", "257"}), "--threads"));
}

TEST_CASE("config: environment variables apply, the command line wins") {
  env_map env{{"TIME_TRACKER_MCP_LOG_LEVEL", "debug"},
              {"TIME_TRACKER_MCP_MAX_LINE_BYTES", "2048"},
              {"TIME_TRACKER_MCP_LOCAL_TIMEZONE", "Asia/Tokyo"},
              {"TIME_TRACKER_MCP_MAX_MCP_SESSIONS", "7"},
              {"TIME_TRACKER_MCP_THREADS", "3"}};
  auto c = must_load({"stdio"}, env);
  CHECK(c.log_level == log::level::debug);
  CHECK(c.max_line_bytes == 2048);
  CHECK(c.local_timezone == "Asia/Tokyo");
  CHECK(c.max_clients == 7);
  CHECK(c.worker_threads == 3);
  auto cli = must_load({"stdio", "--log-level", "error", "--max-line-bytes=4096"},
                       env);
  CHECK(cli.log_level == log::level::error);
  CHECK(cli.max_line_bytes == 4096);
  CHECK(cli.max_clients == 7);
  SECTION("an empty variable is ignored") {
    CHECK(must_load({"stdio"}, {{"TIME_TRACKER_MCP_LOG_LEVEL", ""}}).log_level
          == log::level::info);
  }
  SECTION("a bad value names the variable") {
    auto text = must_fail({"stdio"}, {{"TIME_TRACKER_MCP_LOG_LEVEL", "loud"}});
    CHECK(contains(text, "TIME_TRACKER_MCP_LOG_LEVEL"));
    CHECK(contains(text, "'loud'"));
  }
  SECTION("variables of other programs are not read") {
    CHECK(must_load({"stdio"}, {{"LOG_LEVEL", "debug"}}).log_level
          == log::level::info);
  }
}

TEST_CASE("config: a JSON config file applies, environment and CLI win") {
  temp_file file{R"({"log_level":"warning","max_line_bytes":1000,)"
                 R"("local_timezone":"Europe/Berlin","max_mcp_sessions":"12",)"
                 R"("threads":2})"};
  SECTION("--config FILE") {
    auto c = must_load({"stdio", "--config", file.path});
    CHECK(c.config_file == file.path);
    CHECK(c.log_level == log::level::warning);
    CHECK(c.max_line_bytes == 1000);
    CHECK(c.local_timezone == "Europe/Berlin");
    CHECK(c.max_clients == 12);
    CHECK(c.worker_threads == 2);
  }
  SECTION("--config=FILE") {
    CHECK(must_load({"stdio", "--config=" + file.path}).log_level
          == log::level::warning);
  }
  SECTION("TIME_TRACKER_MCP_CONFIG") {
    auto c = must_load({"stdio"}, {{"TIME_TRACKER_MCP_CONFIG", file.path}});
    CHECK(c.config_file == file.path);
    CHECK(c.log_level == log::level::warning);
    CHECK(c.max_line_bytes == 1000);
  }
  SECTION("--config wins over TIME_TRACKER_MCP_CONFIG") {
    auto c = must_load({"stdio", "--config", file.path},
                       {{"TIME_TRACKER_MCP_CONFIG", "/nonexistent/x.json"}});
    CHECK(c.config_file == file.path);
    CHECK(c.log_level == log::level::warning);
  }
  SECTION("environment wins over the file") {
    auto c = must_load({"stdio", "--config", file.path},
                       {{"TIME_TRACKER_MCP_LOG_LEVEL", "error"}});
    CHECK(c.log_level == log::level::error);
    CHECK(c.max_line_bytes == 1000);
  }
  SECTION("the command line wins over both") {
    auto c = must_load({"stdio", "--log-level", "trace", "--config", file.path},
                       {{"TIME_TRACKER_MCP_LOG_LEVEL", "error"}});
    CHECK(c.log_level == log::level::trace);
  }
}

TEST_CASE("config: config file errors are reported clearly") {
  SECTION("unknown key") {
    temp_file file{R"({"log_level":"info","loglevel":"debug"})"};
    auto text = must_fail({"stdio", "--config", file.path});
    CHECK(contains(text, "'loglevel'"));
    CHECK(contains(text, "unknown key"));
    CHECK(contains(text, file.path));
  }
  SECTION("invalid JSON") {
    temp_file file{R"({"log_level":"info",)"};
    auto text = must_fail({"stdio", "--config", file.path});
    CHECK(contains(text, file.path));
  }
  SECTION("empty file") {
    temp_file file{""};
    CHECK(contains(must_fail({"stdio", "--config", file.path}), file.path));
  }
  SECTION("not an object") {
    temp_file file{R"(["log_level"])"};
    auto text = must_fail({"stdio", "--config", file.path});
    CHECK(contains(text, "object"));
  }
  SECTION("a bad value names the key") {
    temp_file file{R"({"log_level":"loud"})"};
    auto text = must_fail({"stdio", "--config", file.path});
    CHECK(contains(text, "'log_level'"));
    CHECK(contains(text, "'loud'"));
  }
  SECTION("a value of the wrong type") {
    for (std::string json : {R"({"max_line_bytes":-5})",
                             R"({"max_line_bytes":1.5})",
                             R"({"log_level":true})",
                             R"({"log_level":null})"}) {
      INFO("file: " << json);
      temp_file file{json};
      auto text = must_fail({"stdio", "--config", file.path});
      CHECK(contains(text, file.path));
    }
  }
  SECTION("missing file, from --config or the environment") {
    const std::string missing = "/tmp/ttm_config_test_does_not_exist.json";
    auto text = must_fail({"stdio", "--config", missing});
    CHECK(contains(text, missing));
    CHECK(contains(text, "cannot read"));
    auto env_text = must_fail({"stdio"}, {{"TIME_TRACKER_MCP_CONFIG", missing}});
    CHECK(contains(env_text, missing));
  }
}

TEST_CASE("config: tracking limits have the spec's defaults") {
  auto c = must_load({"stdio"});
  CHECK(c.tracking.max_sessions == 100);
  CHECK(c.tracking.max_tasks_per_session == 500);
  CHECK(c.tracking.max_age == std::chrono::hours{24});
  CHECK(c.tracking.max_idle == std::chrono::hours{4});
}

TEST_CASE("config: tracking limits from the command line, environment and "
          "file") {
  using std::chrono::seconds;
  auto c = must_load({"stdio", "--max-tracking-sessions", "3",
                      "--max-tasks-per-session=20", "--session-max-age", "2d",
                      "--session-max-idle", "90s"});
  CHECK(c.tracking.max_sessions == 3);
  CHECK(c.tracking.max_tasks_per_session == 20);
  CHECK(c.tracking.max_age == seconds{2 * 86'400});
  CHECK(c.tracking.max_idle == seconds{90});
  SECTION("units and plain seconds") {
    CHECK(must_load({"stdio", "--session-max-idle", "30m"}).tracking.max_idle
          == seconds{1800});
    CHECK(must_load({"stdio", "--session-max-idle", "5h"}).tracking.max_idle
          == seconds{5 * 3600});
    CHECK(must_load({"stdio", "--session-max-idle", "120"}).tracking.max_idle
          == seconds{120});
    CHECK(must_load({"stdio", "--session-max-age", "366d"}).tracking.max_age
          == seconds{366LL * 86'400});
    // A count past LLONG_MAX turned negative and then overflowed (UB);
    // found by tests/fuzz/config.
    CHECK(contains(must_fail({"stdio", "--session-max-age",
                              "9341816962330773277d"}),
                   "9341816962330773277d"));
  }
  SECTION("environment") {
    auto e = must_load({"stdio"},
                       {{"TIME_TRACKER_MCP_MAX_TRACKING_SESSIONS", "9"},
                        {"TIME_TRACKER_MCP_SESSION_MAX_AGE", "12h"}});
    CHECK(e.tracking.max_sessions == 9);
    CHECK(e.tracking.max_age == seconds{12 * 3600});
  }
  SECTION("config file: strings or integers") {
    temp_file file{R"({"max_tracking_sessions":7,"session_max_idle":"1h",)"
                   R"("session_max_age":600,"max_tasks_per_session":"50"})"};
    auto f = must_load({"stdio", "--config", file.path});
    CHECK(f.tracking.max_sessions == 7);
    CHECK(f.tracking.max_idle == seconds{3600});
    CHECK(f.tracking.max_age == seconds{600});
    CHECK(f.tracking.max_tasks_per_session == 50);
  }
}

TEST_CASE("config: bad tracking limits are refused naming the option") {
  for (std::string value : {"0", "0s", "4x", "h", "-1h", "1.5h", "367d", "",
                            "4h ", "99999999999999999999h"}) {
    INFO("value: " << value);
    auto text = must_fail({"stdio", "--session-max-idle", value});
    CHECK(contains(text, "--session-max-idle"));
    CHECK(contains(text, "'" + value + "'"));
  }
  CHECK(contains(must_fail({"stdio", "--max-tracking-sessions", "0"}),
                 "--max-tracking-sessions"));
  CHECK(contains(must_fail({"stdio", "--max-tasks-per-session", "100001"}),
                 "--max-tasks-per-session"));
}

TEST_CASE("config: tracking-session shares: defaults, sources, the global "
          "cap bounds them") {
  auto d = must_load({"stdio"});
  CHECK(d.max_sessions_per_principal == 50);
  CHECK(d.max_sessions_per_mcp_session == 20);
  // A default above a smaller global cap is lowered to it.
  auto small = must_load({"stdio", "--max-tracking-sessions", "10"});
  CHECK(small.max_sessions_per_principal == 10);
  CHECK(small.max_sessions_per_mcp_session == 10);
  auto c = must_load({"stdio", "--max-tracking-sessions-per-principal", "7",
                      "--max-tracking-sessions-per-mcp-session=3"});
  CHECK(c.max_sessions_per_principal == 7);
  CHECK(c.max_sessions_per_mcp_session == 3);
  auto e = must_load(
    {"stdio"},
    {{"TIME_TRACKER_MCP_MAX_TRACKING_SESSIONS_PER_PRINCIPAL", "100"},
     {"TIME_TRACKER_MCP_MAX_TRACKING_SESSIONS_PER_MCP_SESSION", "1"}});
  CHECK(e.max_sessions_per_principal == 100);
  CHECK(e.max_sessions_per_mcp_session == 1);
  temp_file file{R"({"max_tracking_sessions":30,)"
                 R"("max_tracking_sessions_per_principal":30,)"
                 R"("max_tracking_sessions_per_mcp_session":"5"})"};
  auto f = must_load({"stdio", "--config", file.path});
  CHECK(f.max_sessions_per_principal == 30);
  CHECK(f.max_sessions_per_mcp_session == 5);
  for (const char* flag : {"--max-tracking-sessions-per-principal",
                           "--max-tracking-sessions-per-mcp-session"}) {
    INFO(flag);
    CHECK(contains(must_fail({"stdio", flag, "0"}), flag));
    CHECK(contains(must_fail({"stdio", flag, "x"}), flag));
    auto above = must_fail({"stdio", "--max-tracking-sessions", "10", flag,
                            "11"});
    CHECK(contains(above, flag));
    CHECK(contains(above, "above --max-tracking-sessions (10)"));
  }
}

// -- http mode ------------------------------------------------------------------

TEST_CASE("config: http with defaults") {
  auto c = must_load({"http"});
  CHECK(c.mode == "http");
  CHECK(c.listen_host == "127.0.0.1");
  CHECK(c.listen_port == 8787);
  CHECK(c.http_path == "/mcp");
  CHECK(c.max_body_bytes == 1024 * 1024);
  CHECK(c.auth_tokens.empty());
  CHECK(c.session_idle_timeout_s == 1800);
  CHECK(c.max_clients == 10'000);
}

TEST_CASE("config: --listen takes an IP address and a port") {
  auto c = must_load({"http", "--listen", "0.0.0.0:0"});
  CHECK(c.listen_host == "0.0.0.0");
  CHECK(c.listen_port == 0);
  c = must_load({"http", "--listen=[::1]:9000"});
  CHECK(c.listen_host == "::1");
  CHECK(c.listen_port == 9000);
  c = must_load({"http", "--listen", "localhost:1234"});
  CHECK(c.listen_host == "127.0.0.1");
  c = must_load({"http"}, {{"TIME_TRACKER_MCP_LISTEN", "127.0.0.2:80"}});
  CHECK(c.listen_host == "127.0.0.2");
  CHECK(c.listen_port == 80);
  CHECK(contains(must_fail({"http", "--listen", "8787"}), "HOST:PORT"));
  CHECK(contains(must_fail({"http", "--listen", "example.com:80"}),
                 "not an IP address"));
  CHECK(contains(must_fail({"http", "--listen", "127.0.0.1:65536"}),
                 "port"));
  CHECK(contains(must_fail({"http", "--listen", "[::1:80"}), "bracket"));
}

TEST_CASE("config: http path, body limit, lists and timeouts") {
  auto c = must_load({"http", "--path", "/v1/mcp", "--max-body-bytes",
                      "4096", "--allowed-hosts", "a.example:80, b.example",
                      "--allowed-origins", "https://app.example",
                      "--session-idle-timeout", "0", "--read-timeout", "5"});
  CHECK(c.http_path == "/v1/mcp");
  CHECK(c.max_body_bytes == 4096);
  CHECK(c.allowed_hosts == std::vector<std::string>{"a.example:80",
                                                    "b.example"});
  CHECK(c.allowed_origins
        == std::vector<std::string>{"https://app.example"});
  CHECK(c.session_idle_timeout_s == 0);
  CHECK(c.read_timeout_s == 5);
  CHECK(contains(must_fail({"http", "--path", "mcp"}), "/mcp"));
  CHECK(contains(must_fail({"http", "--path", "/healthz"}), "reserved"));
  CHECK(contains(must_fail({"http", "--allowed-origins", "app.example"}),
                 "https://"));
  CHECK(contains(must_fail({"http", "--read-timeout", "0"}), "from 1"));
}

TEST_CASE("config: --auth-token-file reads one token per line") {
  temp_file tokens{"# tokens\n\n  first-token  \nsecond\r\n"};
  auto c = must_load({"http", "--auth-token-file", tokens.path});
  CHECK(c.auth_tokens == std::vector<std::string>{"first-token", "second"});
  temp_file empty{"# nothing\n\n"};
  CHECK(contains(must_fail({"http", "--auth-token-file", empty.path}),
                 "no token"));
  CHECK(contains(must_fail({"http", "--auth-token-file", "/nonexistent/t"}),
                 "cannot read"));
  // The error names the file, never a token.
  CHECK_FALSE(contains(must_fail({"http", "--auth-token-file", empty.path}),
                       "first-token"));
}

TEST_CASE("config: http timeouts take the same durations as the tracking "
          "limits") {
  auto c = must_load({"http", "--session-idle-timeout", "45m",
                      "--read-timeout=2m", "--keep-alive-timeout", "90",
                      "--drain-timeout", "0s"});
  CHECK(c.session_idle_timeout_s == 45 * 60);
  CHECK(c.read_timeout_s == 120);
  CHECK(c.keep_alive_timeout_s == 90);
  CHECK(c.drain_timeout_s == 0);
  CHECK(contains(must_fail({"http", "--write-timeout", "0s"}),
                 "--write-timeout"));
  CHECK(contains(must_fail({"http", "--read-timeout", "8d"}), "'8d'"));
}

TEST_CASE("config: --rate-limit, --max-in-flight, --request-timeout",
          "[rate_limit]") {
  auto d = must_load({"stdio"});
  CHECK(domain::to_string(d.rate_limit) == "1000/s,burst=2000");
  CHECK(d.max_in_flight == 256);
  CHECK(d.request_timeout_s == 30);
  auto c = must_load({"http", "--rate-limit", "50/s,burst=100",
                      "--max-in-flight", "8", "--request-timeout", "2m"});
  CHECK(domain::to_string(c.rate_limit) == "50/s,burst=100");
  CHECK(c.max_in_flight == 8);
  CHECK(c.request_timeout_s == 120);
  CHECK(must_load({"stdio", "--rate-limit", "off"}).rate_limit.off);
  CHECK(must_load({"stdio", "--request-timeout", "0"}).request_timeout_s == 0);
  CHECK(must_load({"stdio"}, {{"TIME_TRACKER_MCP_RATE_LIMIT", "30/m"}})
          .rate_limit.period
        == std::chrono::seconds{60});
  auto bad = must_fail({"http", "--rate-limit", "50/x"});
  CHECK(contains(bad, "--rate-limit"));
  CHECK(contains(bad, "'50/x' is not a rate limit"));
  CHECK(contains(must_fail({"stdio", "--max-in-flight", "0"}),
                 "--max-in-flight"));
  CHECK(contains(must_fail({"stdio", "--request-timeout", "soon"}),
                 "--request-timeout"));
}

TEST_CASE("config: --header-timeout, 10 s by default") {
  CHECK(must_load({"http"}).header_timeout_s == 10);
  CHECK(must_load({"http", "--header-timeout", "3s"}).header_timeout_s == 3);
  CHECK(contains(must_fail({"http", "--header-timeout", "0"}), "from 1"));
}

TEST_CASE("config: token file lines are TOKEN or NAME TOKEN") {
  temp_file tokens{"# principals\n"
                   "alice   tok-alice\n"
                   "\n"
                   "  bob\ttok-bob  \r\n"
                   "lonely-token\n"
                   "   # indented comment with three words\n"
                   "other-token\n"};
  auto c = must_load({"http", "--auth-token-file", tokens.path});
  REQUIRE(c.auth_tokens
          == std::vector<std::string>{"tok-alice", "tok-bob", "lonely-token",
                                      "other-token"});
  REQUIRE(c.auth_principals.size() == c.auth_tokens.size());
  CHECK(c.auth_principals[0] == "alice");
  CHECK(c.auth_principals[1] == "bob");
  // Unnamed: `token-` and 8 hex digits, never the token itself.
  for (std::size_t i : {std::size_t{2}, std::size_t{3}}) {
    const auto& name = c.auth_principals[i];
    INFO("principal: " << name);
    REQUIRE(name.size() == 14);
    CHECK(name.rfind("token-", 0) == 0);
    CHECK(name.find_first_not_of("0123456789abcdef", 6) == std::string::npos);
    CHECK_FALSE(contains(name, c.auth_tokens[i]));
  }
  CHECK(c.auth_principals[2] != c.auth_principals[3]);

  SECTION("the same token gets the same name, wherever it is") {
    temp_file again{"x y\nother-token\nlonely-token\n"};
    auto d = must_load({"http", "--auth-token-file", again.path});
    REQUIRE(d.auth_principals.size() == 3);
    CHECK(d.auth_principals[1] == c.auth_principals[3]);
    CHECK(d.auth_principals[2] == c.auth_principals[2]);
  }
  SECTION("one name may have several tokens") {
    temp_file two{"alice t1\nalice t2\n"};
    auto d = must_load({"http", "--auth-token-file", two.path});
    CHECK(d.auth_tokens == std::vector<std::string>{"t1", "t2"});
    CHECK(d.auth_principals == std::vector<std::string>{"alice", "alice"});
  }
  SECTION("without a token file there are no principals") {
    auto d = must_load({"http"});
    CHECK(d.auth_tokens.empty());
    CHECK(d.auth_principals.empty());
  }
}

TEST_CASE("config: a token file line of three words is refused by number") {
  temp_file tokens{"# c\n\nalice tok-a\ncarol secret-1 secret-2\nbob tok-b\n"};
  auto text = must_fail({"http", "--auth-token-file", tokens.path});
  CHECK(contains(text, "--auth-token-file"));
  CHECK(contains(text, tokens.path));
  CHECK(contains(text, "line 4"));
  CHECK(contains(text, "'TOKEN' or 'NAME TOKEN'"));
  // Never a token (nor the name beside it).
  CHECK_FALSE(contains(text, "secret"));
  CHECK_FALSE(contains(text, "tok-a"));
  temp_file first{"a b c d\n"};
  CHECK(contains(must_fail({"http", "--auth-token-file", first.path}),
                 "line 1"));
  temp_file trailing{"name token # comment\n"};
  CHECK(contains(must_fail({"http", "--auth-token-file", trailing.path}),
                 "line 1"));
}

TEST_CASE("config: the journal's data directory and --ephemeral") {
  SECTION("XDG_STATE_HOME, else ~/.local/state") {
    CHECK(must_load({"stdio"}).data_dir
          == "/home/agent/.local/state/time-tracker-mcp");
    CHECK(must_load({"stdio"}, {{"XDG_STATE_HOME", "/xdg/state"}}).data_dir
          == "/xdg/state/time-tracker-mcp");
    // XDG: a relative path is invalid and ignored.
    CHECK(must_load({"stdio"}, {{"XDG_STATE_HOME", "rel/state"}}).data_dir
          == "/home/agent/.local/state/time-tracker-mcp");
    CHECK_FALSE(must_load({"stdio"}).ephemeral);
  }
  SECTION("--data-dir and its environment variable win") {
    CHECK(must_load({"stdio", "--data-dir", "/srv/ttm"}).data_dir
          == "/srv/ttm");
    CHECK(must_load({"http"}, {{"TIME_TRACKER_MCP_DATA_DIR", "/d"}}).data_dir
          == "/d");
  }
  SECTION("--ephemeral is a switch; =false turns it off again") {
    auto c = must_load({"stdio", "--ephemeral"});
    CHECK(c.ephemeral);
    CHECK(c.data_dir.empty());
    CHECK(c.mode == "stdio");
    CHECK_FALSE(must_load({"stdio", "--ephemeral=false"}).ephemeral);
    CHECK(must_load({"stdio"}, {{"TIME_TRACKER_MCP_EPHEMERAL", "1"}})
            .ephemeral);
    auto bad = load({"stdio", "--ephemeral=maybe"});
    CHECK(bad.exit_code == 2);
    CHECK(contains(bad.text, "--ephemeral: expected true or false"));
  }
  SECTION("no HOME and no XDG_STATE_HOME: a clear error, unless ephemeral") {
    auto res = load({"stdio"}, {{"HOME", ""}});
    CHECK(res.exit_code == 2);
    CHECK(contains(res.text, "use --data-dir DIR, or --ephemeral"));
    CHECK(must_load({"stdio", "--ephemeral"}, {{"HOME", ""}}).ephemeral);
  }
  SECTION("retention and sync") {
    CHECK(must_load({"stdio"}).history_retention_s == 90LL * 86'400);
    CHECK(must_load({"stdio", "--history-retention", "0"})
            .history_retention_s
          == 0);
    CHECK(must_load({"stdio", "--history-retention", "30d"})
            .history_retention_s
          == 30LL * 86'400);
    CHECK(must_load({"stdio"}).journal_sync == "full");
    CHECK(must_load({"stdio", "--journal-sync", "normal"}).journal_sync
          == "normal");
    CHECK(load({"stdio", "--journal-sync", "off"}).exit_code == 2);
  }
}

TEST_CASE("config: a config file's toolsets may be an array of names "
          "(issue 29)") {
  temp_file file{R"({"toolsets":["time", "history"]})"};
  CHECK(must_load({"stdio", "--config", file.path}).toolsets
        == std::vector<std::string>{"time", "history"});
  temp_file text{R"({"toolsets":"time,edit"})"};
  CHECK(must_load({"stdio", "--config", text.path}).toolsets
        == std::vector<std::string>{"time", "edit"});
  temp_file bad{R"({"toolsets":["time", 3]})"};
  CHECK(contains(must_fail({"stdio", "--config", bad.path}),
                 "'toolsets' must be a comma-separated string or an array "
                 "of strings"));
  temp_file unknown{R"({"toolsets":["time", "bogus"]})"};
  CHECK(contains(must_fail({"stdio", "--config", unknown.path}), "bogus"));
  // Other options stay scalars.
  temp_file scalar{R"({"log_level":["info"]})"};
  CHECK(contains(must_fail({"stdio", "--config", scalar.path}),
                 "must be a string"));
}
