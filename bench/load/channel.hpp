#pragma once

// What a virtual client sends and receives, whatever the transport. Neither
// Beast nor Asio appears here: the HTTP channel (http_channel.cpp) is the
// only file with Beast, the stdio channel (stdio_channel.cpp) the only one
// that spawns processes.

#include <rapidjson/document.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace boost::asio {
class io_context;
}

namespace ttb {

struct outgoing {
  enum verb_t { post, del };
  verb_t verb = post;          ///< del: HTTP DELETE of `session`
  std::string body;            ///< one JSON-RPC message
  std::string session;         ///< Mcp-Session-Id to send; empty: none
  bool notification = false;   ///< no JSON-RPC response expected
  std::int64_t id = 0;         ///< the JSON-RPC id (stdio routes replies by it)
  /// HTTP headers of the protocol (MCP-Protocol-Version; modern: Mcp-Method,
  /// Mcp-Name), set by mcp::request_builder; ignored over stdio.
  std::vector<std::pair<std::string, std::string>> headers;
};

struct incoming {
  std::string transport_error; ///< set: the exchange failed below JSON-RPC
  int status = 0;              ///< HTTP status; 0 over stdio
  std::string session;         ///< the Mcp-Session-Id response header
  std::string content_type;
  std::string body; ///< HTTP body (JSON or SSE); empty over stdio
  /// Over stdio: the reply line, already parsed to route it by id.
  std::shared_ptr<rapidjson::Document> doc;
};

using reply_handler = std::function<void(incoming)>;

/// One request at a time per channel user; the stdio channel takes many
/// users at once (replies are routed by JSON-RPC id).
class channel {
public:
  virtual ~channel() = default;
  /// `done` runs on the channel's thread: with the reply, or for a
  /// notification once it was sent (HTTP: with its 202).
  virtual void send(outgoing msg, reply_handler done) = 0;
  /// True over HTTP: MCP sessions are named by Mcp-Session-Id and ended by
  /// DELETE, and there may be many per connection.
  virtual bool http() const noexcept = 0;
};

/// A spawned stdio server.
class process_channel : public channel {
public:
  virtual int pid() const noexcept = 0;
  /// Closes the server's stdin and waits for it to exit (SIGTERM after 5 s,
  /// SIGKILL 2 s later); `done` gets "" for exit status 0 (or our own
  /// signal), else what happened.
  virtual void finish(std::function<void(std::string)> done) = 0;
};

struct http_target {
  std::string host; ///< as in the URL, without brackets
  std::string port;
  std::string path;
  std::string host_header; ///< host[:port] as in the URL
  std::vector<std::pair<std::string, std::string>> headers; ///< --header
  std::int64_t timeout_ns = 0;
};

/// Splits http://host[:port]/path; false when it is not such a URL.
bool parse_url(const std::string& url, http_target& out, std::string& error);

/// The target's addresses, resolved once.
struct http_endpoints;

/// Resolves the target's host (blocking); nullptr and `error` on failure.
std::shared_ptr<const http_endpoints> resolve(const http_target& t,
                                              std::string& error);

/// A keep-alive connection, opened on the first send (and again after the
/// server closed it).
std::shared_ptr<channel>
make_http_channel(boost::asio::io_context& ioc,
                  std::shared_ptr<const http_target> target,
                  std::shared_ptr<const http_endpoints> endpoints);

struct spawn_options {
  std::vector<std::string> command;
  std::string server_log; ///< "" discard, "-" inherit, else a file to append
  std::int64_t timeout_ns = 0;
};

/// Spawns the server; nullptr and `error` on failure.
std::shared_ptr<process_channel>
spawn_stdio_server(boost::asio::io_context& ioc, const spawn_options& opts,
                   std::string& error);

} // namespace ttb
