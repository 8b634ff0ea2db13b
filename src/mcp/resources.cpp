#include "mcp/resources.hpp"

#include "mcp/wire.hpp"

namespace ttm::mcp {

const std::vector<report_resource_kind>& report_resource_kinds() {
  static const std::vector<report_resource_kind> kinds{
    {"md", "markdown", "text/markdown", "Markdown"},
    {"csv", "csv", "text/csv", "CSV"},
    {"json", "json", "application/json", "JSON"},
    {"html", "html", "text/html", "HTML"},
  };
  return kinds;
}

std::optional<report_uri> parse_report_uri(std::string_view uri) {
  auto id = session_of_uri(uri);
  if (id.empty() || id.size() > 256)
    return std::nullopt;
  auto rest = uri.substr(session_uri_prefix.size() + id.size());
  constexpr std::string_view report = "/report.";
  if (rest.substr(0, report.size()) != report)
    return std::nullopt;
  auto ext = rest.substr(report.size());
  for (const auto& k : report_resource_kinds())
    if (k.extension == ext)
      return report_uri{std::string(id), &k};
  return std::nullopt;
}

std::string report_uri_of(std::string_view session_id,
                          const report_resource_kind& kind) {
  std::string out{session_uri_prefix};
  out += session_id;
  out += "/report.";
  out += kind.extension;
  return out;
}

bool is_report_template(std::string_view uri) {
  for (const auto& k : report_resource_kinds())
    if (uri == report_uri_of("{session_id}", k))
      return true;
  return false;
}

void write_resource_templates(json_writer& w) {
  w.StartArray();
  for (const auto& k : report_resource_kinds()) {
    w.StartObject();
    write_member(w, "uriTemplate",
                 report_uri_of("{session_id}", k));
    write_member(w, "name", "session-report-" + std::string(k.extension));
    write_member(w, "title",
                 "Execution report (" + std::string(k.title) + ")");
    write_member(w, "description",
                 "A tracking session's execution report as "
                   + std::string(k.title)
                   + ", as time_session_report gives it (the session's "
                     "zone; an active session as of now).");
    write_member(w, "mimeType", k.mime_type);
    w.EndObject();
  }
  w.EndArray();
}

} // namespace ttm::mcp
