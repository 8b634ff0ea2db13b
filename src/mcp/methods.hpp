#pragma once

// The method table: every MCP method this server serves is registered once,
// with the eras it exists in, what it needs of the session's lifecycle, how
// its params are decoded, the capability it implies and its handler. The
// session dispatches through it (unknown method, or one of another era:
// -32601) and `initialize` / `server/discover` announce the capabilities
// derived from it, so a new resource or prompt method is one registration.

#include "mcp/results.hpp"
#include "protocol/era.hpp"
#include "protocol/json_rpc.hpp"

#include <rapidjson/document.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::mcp {

class method_context;

/// The eras a method exists in, as flags.
enum class eras : std::uint8_t { legacy = 1, modern = 2, both = 3 };

constexpr bool in_era(eras set, protocol::era e) noexcept {
  auto bit = e == protocol::era::modern ? eras::modern : eras::legacy;
  return (static_cast<std::uint8_t>(set) & static_cast<std::uint8_t>(bit))
         != 0;
}

/// A server capability, in the order `capabilities` lists them.
enum class capability : std::uint8_t {
  none,
  completions,
  logging,
  prompts,
  resources,
  tools,
};

/// Where a 2025-era method stands in the initialize handshake.
enum class lifecycle : std::uint8_t {
  after_initialize, ///< "Server not initialized" before it
  any_time,         ///< also before initialize (ping)
  opens_session,    ///< initialize itself: once per session
};

/// A request's params once its method's decoder accepted them: always an
/// object (`{}` when absent).
struct method_call {
  const protocol::message& msg;
  /// An object: the request's params (empty when it had none).
  const rapidjson::Value& params;
  std::vector<std::string>& notes;
  /// How its result is stamped (see results.hpp).
  result_stamp stamp;
};

/// Decodes `msg.params` into `doc`; returns the reason for -32602 (without
/// the "Invalid params: " prefix) when they do not fit, else empty.
using params_decoder = std::string (*)(const protocol::message& msg,
                                       rapidjson::Document& doc);

/// Returns the encoded reply; empty while the request waits (a slot, the
/// journal). The handlers are free functions by area (handlers.hpp).
using method_handler = std::string (*)(method_context& ctx,
                                       const method_call& call);

struct method {
  std::string_view name;
  eras in = eras::both;
  lifecycle life = lifecycle::after_initialize;
  capability implies = capability::none;
  /// A modern result others may cache (cache hints in the stamp).
  bool cacheable = false;
  /// Params are an object (or absent), else -32602 says this; empty: they
  /// are not read, unless `decode` reads them.
  std::string_view params_error;
  /// A decoder of its own, instead of the object check above.
  params_decoder decode = nullptr;
  method_handler handle = nullptr;
};

class method_table {
public:
  method_table() = default;
  /// A table of `methods`, in order (each registered as by `add`).
  method_table(std::initializer_list<method> methods);

  /// Registers `m`; a second method of the same name throws.
  void add(method m);

  /// The method named `name` in era `e`; nullptr when there is none (a
  /// method of the other era counts as unknown).
  const method* find(std::string_view name, protocol::era e) const noexcept;

  /// Writes the `capabilities` object the registrations imply.
  void write_capabilities(json_writer& w) const;

  const std::vector<method>& methods() const noexcept {
    return methods_;
  }

private:
  std::vector<method> methods_;
};

/// Params must be an object or absent; `error` otherwise.
std::string object_params(const protocol::message& msg,
                          rapidjson::Document& doc, std::string_view error);

/// The methods this server serves: one flat table (methods.cpp).
const method_table& server_methods();

} // namespace ttm::mcp
