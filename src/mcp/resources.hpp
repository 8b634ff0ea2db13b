#pragma once

// The server's resources (issue 16 item 2): each tracking session's report
// in four formats, addressed by
// time-tracker://sessions/{session_id}/report.{md,csv,json,html} and read
// through time_session_report, so a resource and the tool cannot disagree
// and the caller's ownership holds for both.

#include "mcp/results.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace ttm::mcp {

/// One report format as a resource: the URI's extension, the tool's
/// `format` and the MIME type.
struct report_resource_kind {
  std::string_view extension;
  std::string_view format;
  std::string_view mime_type;
  std::string_view title;
};

/// md, csv, json, html, in that order.
const std::vector<report_resource_kind>& report_resource_kinds();

struct report_uri {
  std::string session_id;
  const report_resource_kind* kind = nullptr;
};

/// Reads time-tracker://sessions/{id}/report.{ext}; nullopt for any other
/// URI (its resource does not exist).
std::optional<report_uri> parse_report_uri(std::string_view uri);

/// time-tracker://sessions/{id}/report.{ext}
std::string report_uri_of(std::string_view session_id,
                          const report_resource_kind& kind);

/// Whether `uri` is one of the templates ("time-tracker://sessions/
/// {session_id}/report.md", ...), as completion/complete names them.
bool is_report_template(std::string_view uri);

/// Writes the `resourceTemplates` array of resources/templates/list.
void write_resource_templates(json_writer& w);

} // namespace ttm::mcp
