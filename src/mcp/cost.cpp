#include "mcp/cost.hpp"

#include "mcp/resources.hpp"

namespace ttm::mcp {

bool heavy_frame(const protocol::frame& f, const tools::registry& tools) {
  for (const auto& m : f.messages) {
    if (m.kind != protocol::message::request)
      continue;
    if (m.method == "tools/call" && tools.heavy(m.name))
      return true;
    if (m.method == "resources/read" && parse_report_uri(m.name))
      return true;
  }
  return false;
}

} // namespace ttm::mcp
