#pragma once

#include "protocol/error_codes.hpp"
#include "protocol/trace_context.hpp"

#include <rapidjson/fwd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::protocol {

/// A JSON-RPC id as it appeared on the wire. Kept as its JSON text so that
/// every id is echoed exactly, 64-bit integers and unusual strings included.
struct request_id {
  enum kind_t : std::uint8_t { none, null, integer, string };

  kind_t kind = none;
  /// The id's JSON text: `42`, `"abc"`; empty for none, `null` for null.
  std::string json;

  static request_id make_null() {
    return {null, "null"};
  }

  /// Writes `null` for both none and null ids (error replies to messages
  /// whose id could not be read).
  std::string_view json_or_null() const noexcept {
    return kind == none || kind == null ? std::string_view{"null"}
                                        : std::string_view{json};
  }

  friend bool operator==(const request_id& x, const request_id& y) {
    return x.kind == y.kind && x.json == y.json;
  }
};

/// The per-request `_meta` envelope of the 2026-07-28 revision, read at
/// decode (see modern.hpp). Left empty for 2025-era messages.
struct envelope {
  /// `params._meta` has the key `io.modelcontextprotocol/protocolVersion`:
  /// the message claims the modern era (even when the envelope is invalid).
  bool claimed = false;
  /// The claimed version, when it is a string.
  std::string version;
  /// Why a claimed envelope is unusable (a key missing or mistyped); empty
  /// when it is valid.
  std::string problem;
  /// `io.modelcontextprotocol/logLevel`; empty: no log notifications.
  std::string log_level;
  /// W3C trace context in `_meta` (`traceparent`, `tracestate`), read in
  /// either era, as it came (protocol::resolve checks it).
  std::string traceparent;
  std::string tracestate;
};

/// One decoded JSON-RPC message. Plain value: no RapidJSON types, so it can
/// cross actor boundaries; `params` keeps the raw JSON text.
struct message {
  enum kind_t : std::uint8_t {
    request,      ///< has method and id
    notification, ///< has method, no id: never answered
    response,     ///< a result or error from the peer: never answered
    invalid,      ///< not a valid message: answer `error` to `id` (or null)
    /// Has a method but no id, yet is not a valid notification: never
    /// answered either; `error_message` says what is wrong, for the log.
    malformed_notification,
  };

  kind_t kind = invalid;
  request_id id;
  std::string method;
  /// JSON text of `params` (an object or array) or empty when absent.
  std::string params;
  /// The same `params` as parsed, sharing the frame's document, so the
  /// receiver need not parse them again; null when absent. In-process
  /// only: not inspected, so a copy that was serialized has only `params`.
  std::shared_ptr<const rapidjson::Value> params_value;
  /// For `invalid`: the error to answer with.
  int error_code = 0;
  std::string error_message;
  envelope meta;
  /// `params.name` (tools/call, prompts/get) or `params.uri`
  /// (resources/read) when a string: what the `Mcp-Name` header must match.
  std::string name;
  /// `params.arguments.<decode_options::handle_argument>` when a string:
  /// what the application routes by (the MCP layer names the tracking
  /// session's argument, see mcp/wire.hpp); empty when none was asked for.
  std::string handle;
  /// `params.arguments.<decode_options::lookup_argument>` when a string: a
  /// second way to name state (an idempotency key), looked up like a handle.
  std::string lookup;
};

/// The decoded content of one frame (a stdio line or an HTTP body).
struct frame {
  /// The frame was a JSON array: a batch. Whether batches are allowed depends
  /// on the negotiated revision, which the MCP session decides.
  bool batch = false;
  /// Set when the frame as a whole was unusable (parse error, empty batch):
  /// then `messages` is empty and the reply is a single error with id null.
  int error_code = 0;
  std::string error_message;
  std::vector<message> messages;
  /// The request id and trace context (trace_context.hpp): set by the edge
  /// that read the frame, logged and echoed by everything that handles it.
  trace_context trace;
};

/// What `decode` lifts out of each message's params besides the envelope,
/// in the same pass (the codec knows no application argument by itself).
struct decode_options {
  /// A string argument `params.arguments.<name>` copied into
  /// `message::handle`; empty: none.
  std::string_view handle_argument;
  /// A string argument copied into `message::lookup`; empty: none.
  std::string_view lookup_argument;
  /// For `params.uri` (resources/read): the handle a URI names, or empty;
  /// nullptr: URIs name none.
  std::string_view (*uri_handle)(std::string_view uri) = nullptr;
};

/// Decodes a frame. Never throws; malformed input becomes error values.
frame decode(std::string_view text, const decode_options& opts = {});

/// {"jsonrpc":"2.0","id":ID,"result":RESULT} with RESULT already JSON text.
std::string encode_result(const request_id& id, std::string_view result_json);

/// {"jsonrpc":"2.0","id":ID,"error":{"code":C,"message":M}}; `data_json`
/// (JSON text) is added as "data" when not empty.
std::string encode_error(const request_id& id, int code,
                         std::string_view message,
                         std::string_view data_json = {});

/// {"jsonrpc":"2.0","method":M,"params":PARAMS} with PARAMS as JSON text.
std::string encode_notification(std::string_view method,
                                std::string_view params_json);

/// Joins already encoded messages into a JSON array (a batch reply).
std::string encode_batch(const std::vector<std::string>& replies);

/// For a `notifications/cancelled` notification: params.requestId as JSON
/// text, spelled exactly as `request_id::json` spells that id; else empty.
std::string cancelled_request_id(const message& msg);

/// Quotes `s` as a JSON string.
std::string json_quote(std::string_view s);

} // namespace ttm::protocol
