#pragma once

// Builders for what a session sends: results (with the 2026-07-28 stamp),
// tools/call bodies and log notifications. Each reply is built as a value
// with one RapidJSON Writer and encoded once; parts that are JSON already
// (a tool's structuredContent, the cached tool list) go in as whole values.

#include "protocol/json_rpc.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/mcp.hpp"

#include <string>
#include <string_view>

namespace ttm::mcp {

using json_writer = protocol::json_writer;

struct request_trace; // request_trace.hpp

/// What `initialize` and every 2026-07-28 result tell a client about us.
struct server_info {
  std::string name;
  std::string title;
  std::string version;
  std::string instructions;
};

/// How a result is stamped. A 2026-07-28 result starts with
/// `"resultType":"complete"` and ends with `_meta` naming the server; a
/// cacheable one (the tool list, discovery) adds its cache hints.
struct result_stamp {
  /// nullptr: a 2025-era result, written as the handler built it.
  const server_info* modern = nullptr;
  bool cacheable = false;
  /// A result that is the caller's own (2026-07-28: `cacheScope:
  /// "private"` with `ttlMs` private_ttl_ms, 0 meaning "do not reuse").
  bool private_scope = false;
  int private_ttl_ms = 0;
  /// The request's observation, when the result may be a tool failure:
  /// its structuredContent then carries the request id.
  request_trace* trace = nullptr;
};

/// {"jsonrpc":"2.0","id":ID,"result":{...}}: the envelope is written here,
/// the result's members by the caller between the constructor and `finish`.
class result_builder {
public:
  result_builder(const protocol::request_id& id, result_stamp stamp);

  json_writer& writer() noexcept {
    return w_;
  }

  /// Makes room for `bytes` more, so a large result is not copied as the
  /// buffer grows.
  void reserve(std::size_t bytes) {
    buf_.Reserve(bytes);
  }

  /// Ends the result and returns the encoded reply. `meta_key` names an
  /// extra `_meta` member (before serverInfo) whose value is the JSON
  /// `meta_json`; modern results only.
  std::string finish(std::string_view meta_key = {},
                     std::string_view meta_json = {});

private:
  rapidjson::StringBuffer buf_{nullptr, 4096};
  json_writer w_;
  result_stamp stamp_;
};

/// Writes `{"name":..,"title":..,"version":..}`.
void write_server_info(json_writer& w, const server_info& info);

/// Writes a string member.
void write_member(json_writer& w, std::string_view key, std::string_view value);

/// The members of a tools/call result: the structured content as a text
/// block and as `structuredContent`, and `isError`. A failure names the
/// request (`request_id`, from `trace` when given) and is noted in it.
void write_tool_call(json_writer& w, std::string_view structured,
                     bool is_error, request_trace* trace = nullptr);

/// A -32602 error: "Invalid params: " and `text`.
std::string invalid_params(const protocol::request_id& id,
                           std::string_view text);

/// A `notifications/message` to the client.
std::string log_notification(protocol::log_level level, std::string_view logger,
                             std::string_view text);

} // namespace ttm::mcp
