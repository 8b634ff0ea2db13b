#pragma once

#include "domain/clock.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/mcp.hpp"
#include "tools/registry.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ttm::actors {

/// What `initialize` tells a client about us.
struct server_info {
  std::string name;
  std::string title;
  std::string version;
  std::string instructions;
};

/// Everything a client actor needs, passed by value at spawn time.
struct client_config {
  tools::registry_ptr registry;
  domain::clock_ptr clock;
  /// IANA name of the host zone, resolved once at start-up.
  std::string local_zone;
  server_info info;
};

/// The reply to one frame: log notifications first, then the response.
struct rpc_output {
  std::vector<std::string> notifications;
  /// Empty when the frame needs no response (notifications, responses).
  std::string response;
};

/// One MCP client session: lifecycle, negotiated revision, logging level and
/// the dispatch of requests to tools. Plain C++ (the client actor owns one),
/// so it is tested without an actor system.
class client_state {
public:
  explicit client_state(client_config cfg);

  rpc_output handle(const protocol::frame& in);

  bool initialized() const noexcept {
    return !revision_.empty();
  }

  /// The negotiated revision; empty before `initialize`.
  const std::string& revision() const noexcept {
    return revision_;
  }

private:
  /// Returns the encoded response, or an empty string for none.
  std::string handle_message(const protocol::message& msg,
                             std::vector<std::string>& notes);
  std::string handle_request(const protocol::message& msg,
                             std::vector<std::string>& notes);
  void handle_notification(const protocol::message& msg);

  std::string on_initialize(const protocol::message& msg);
  std::string on_tools_list(const protocol::message& msg);
  std::string on_tools_call(const protocol::message& msg,
                            std::vector<std::string>& notes);
  std::string on_set_level(const protocol::message& msg);

  /// Adds a notifications/message when the client asked for that level.
  void notify(std::vector<std::string>& notes, protocol::log_level lvl,
              std::string text) const;

  client_config cfg_;
  std::string revision_;
  std::string client_name_;
  /// No client logging until the client picks a level (logging/setLevel).
  std::optional<protocol::log_level> client_log_level_;
};

} // namespace ttm::actors
