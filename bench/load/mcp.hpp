#pragma once

// MCP messages: every request the bench sends is built here, and every reply
// is checked here.
//
// The request builder is the one place that knows a revision's message
// shapes, HTTP headers included. Two eras:
//  - legacy (revisions up to 2025-11-25): a client opens an MCP session with
//    initialize + notifications/initialized, names it by Mcp-Session-Id over
//    HTTP and ends it with DELETE; later requests carry MCP-Protocol-Version;
//  - modern (2026-07-28 and later, stateless): no initialize, no session, no
//    DELETE; every request carries the revision, the client's capabilities
//    and its info in `params._meta`, and over HTTP the headers
//    MCP-Protocol-Version, Mcp-Method and (tools/call) Mcp-Name. `ping` does
//    not exist there: its stand-in is server/discover.

#include "channel.hpp"

#include <rapidjson/document.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ttb::mcp {

/// Quotes `s` as a JSON string.
std::string json_quote(std::string_view s);

enum class era {
  legacy, ///< initialize and MCP sessions (2025-11-25 and before)
  modern, ///< stateless, `_meta` on every request (2026-07-28 and later)
};

/// The era of a revision: modern for an ISO date (YYYY-MM-DD) on or after
/// 2026-07-28, as the server decides it.
era era_of(std::string_view protocol_version) noexcept;

/// The name and version the bench gives itself (clientInfo).
inline constexpr const char* client_name = "time-tracker-bench";
inline constexpr const char* client_version = "1";

/// A header value as the 2026-07-28 revision sends it: verbatim when it is
/// printable ASCII without leading or trailing white space, else
/// `=?base64?...?=` of its UTF-8 bytes.
std::string header_value(std::string_view value);

class request_builder {
public:
  explicit request_builder(std::string protocol_version);

  const std::string& protocol_version() const noexcept {
    return version_;
  }
  mcp::era era() const noexcept {
    return era_;
  }
  bool modern() const noexcept {
    return era_ == era::modern;
  }

  /// Whether a client starts with initialize + notifications/initialized
  /// (and, over HTTP, gets an Mcp-Session-Id and ends it with DELETE): the
  /// legacy era.
  bool needs_initialize() const noexcept {
    return era_ == era::legacy;
  }

  // Every message comes with its HTTP headers (ignored over stdio) and its
  // JSON-RPC id; the caller adds the Mcp-Session-Id (legacy).

  /// Legacy: initialize (no MCP-Protocol-Version header: the body
  /// negotiates).
  outgoing initialize(std::int64_t id) const;
  /// Legacy: notifications/initialized.
  outgoing initialized() const;
  /// Legacy: HTTP DELETE of an MCP session.
  outgoing end_session(const std::string& session) const;
  /// Modern: server/discover.
  outgoing discover(std::int64_t id) const;
  /// The transport floor: `ping` (legacy) or `server/discover` (modern,
  /// which has no ping).
  outgoing ping(std::int64_t id) const;
  /// The method ping() sends.
  const char* ping_method() const noexcept {
    return modern() ? "server/discover" : "ping";
  }
  /// tools/call with `args_json`, a JSON object's text, inserted verbatim.
  outgoing tools_call(std::int64_t id, std::string_view tool,
                      std::string_view args_json) const;

  // -- arguments of the session tools (the spec's Pattern 1)
  static std::string session_start_args(std::string_view milestone_id,
                                        const std::vector<std::string>& tasks);
  static std::string task_args(std::string_view session_id,
                               std::string_view task_id);
  static std::string session_args(std::string_view session_id);
  /// time_session_report's arguments: the session and a format.
  static std::string report_args(std::string_view session_id,
                                 std::string_view format);

private:
  outgoing request(std::int64_t id, std::string body,
                   std::string_view method) const;

  std::string version_;
  mcp::era era_;
  std::string initialize_tail_;
  /// Modern: `"_meta":{...}`, the envelope of every request.
  std::string meta_;
};

/// The task ids of a tracking session with `k` tasks: M2-001, M2-002, ...
std::vector<std::string> task_ids(std::size_t k);

using document_ptr = std::shared_ptr<rapidjson::Document>;

/// What a reply must be.
enum class want {
  result,        ///< any JSON-RPC result (initialize, ping, server/discover)
  tool_ok,       ///< a tools/call result with isError absent or false
  tool_error,    ///< a tools/call result with isError true
  rpc_error,     ///< a JSON-RPC error
  notification,  ///< HTTP 202 (2xx) with no response; stdio: nothing
  session_end,   ///< HTTP DELETE: 2xx, or 405 (the server keeps sessions)
};

/// Checks the reply to the message with JSON-RPC `id` (0 for a
/// notification or DELETE) against `w`. Returns the response document for
/// result/tool kinds, and sets `error` when the reply is wrong: a transport
/// failure, an HTTP status other than 200 (202, 2xx/405 for the last two
/// kinds), a body that is neither JSON nor an SSE stream holding the
/// response, a wrong id, or a result/error that `w` does not allow; in the
/// modern era also a result without `"resultType": "complete"`.
document_ptr check_reply(const incoming& in, std::int64_t id, want w,
                         std::string& error, era e = era::legacy);

/// The structured result of a tools/call response: structuredContent, or
/// else the first text content parsed as JSON (into `scratch`); nullptr when
/// neither is an object.
const rapidjson::Value* tool_payload(const rapidjson::Document& response,
                                     rapidjson::Document& scratch);

/// The string member `name` of `obj`, or nullptr.
const char* string_member(const rapidjson::Value& obj, const char* name);

} // namespace ttb::mcp
