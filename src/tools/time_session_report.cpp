// time_session_report: a session's execution report as Markdown, CSV, JSON
// or HTML. Session-bound and read-only like time_session_summary: the MCP
// layer claims the session by its id (ended and historical sessions of the
// caller load from the journal; others' are SESSION_NOT_FOUND) and the call
// records no change. An id that is no tracking session of the caller may
// be one of its focus sessions: a history query for it (kind focus) then
// renders that one, else the call fails as before. The rendering lives in
// src/reports.

#include "domain/zones.hpp"
#include "reports/report.hpp"
#include "tools/registry.hpp"
#include "tools/session_common.hpp"

namespace ttm::tools {

namespace {

struct session_report_args {
  std::string session_id;
  std::string format;
  bool include_gantt = true;
  std::optional<std::string> timezone;
};

struct session_report_result {
  std::string session_id;
  std::string format;
  std::string mime_type;
  std::string timezone;
  std::string status;
  std::string report;
};

slot_outcome<session_report_result> run(const session_report_args& args,
                                        tool_context& ctx) {
  // Arguments first: a bad one changes nothing, not even the session's
  // last activity.
  std::optional<domain::zone> zone;
  if (args.timezone) {
    auto lookup = domain::resolve_zone(*args.timezone, ctx.local_zone);
    if (!lookup.found)
      return tool_error{"INVALID_TIMEZONE", "timezone: " + lookup.message,
                        std::move(lookup.suggestions)};
    zone = *lookup.found;
  }
  // The schema admits only the four names.
  auto format = reports::parse_report_format(args.format)
                  .value_or(reports::report_format::markdown);
  reports::report_options opts;
  opts.include_gantt = args.include_gantt;
  auto render = [format, opts](const reports::report_model& model,
                               const std::string& id,
                               const char* status) {
    session_report_result res;
    res.session_id = id;
    res.format = reports::to_string(format);
    res.mime_type = reports::mime_type(format);
    res.timezone = model.tz.name();
    res.status = status;
    res.report = reports::render_report(model, format, opts);
    return res;
  };
  auto now = domain::now_of(ctx.clock);
  auto found = use_session(ctx, args.session_id, now);
  if (auto* s = std::get_if<domain::tracking_session*>(&found)) {
    auto model = reports::build_report(**s, now, zone ? *zone : (*s)->tz);
    if (ctx.ui_view) // the MCP App's picture (docs/app.md)
      ctx.view_svg = reports::render_svg_timeline(model, {true});
    return render(model, (*s)->id,
                  (*s)->expired ? "expired"
                  : (*s)->ended() ? "ended"
                                  : "active");
  }
  auto err = std::get<tool_error>(std::move(found));
  if (err.code != "SESSION_NOT_FOUND")
    return err;
  // Not a tracking session of the caller: perhaps one of its focus
  // sessions (their ids are UUIDs too). Else the same error as before.
  if (!zone)
    zone = domain::resolve_zone("local", ctx.local_zone).found;
  if (!zone)
    return err;
  domain::history_filter f;
  f.kind = domain::history_kind::focus;
  f.focus_id = args.session_id;
  f.limit = 1;
  return history_wait<session_report_result>{
    std::move(f),
    [err, render, tz = *zone](const domain::history_page& page,
                              tool_context& c)
      -> outcome<session_report_result> {
      if (page.focus.empty())
        return err;
      const auto& fr = page.focus.front();
      auto model = reports::build_focus_report(fr, c.clock.wall_now(), tz);
      if (c.ui_view)
        c.view_svg = reports::render_svg_timeline(model, {true});
      return render(model, fr.session_id, fr.end ? "ended" : "active");
    }};
}

} // namespace

tool make_time_session_report() {
  using a = session_report_args;
  using r = session_report_result;
  auto in = std::make_shared<input_schema<a>>();
  add_session_id_arg(*in, &a::session_id);
  in->add("format", &a::format,
          "tasks, summary, gantt (markdown); a row per run (csv); summary "
          "and runs (json); SVG timeline (html).")
    .one_of({"markdown", "csv", "json", "html"})
    .default_to("markdown");
  in->add("include_gantt", &a::include_gantt,
          "Include the gantt (markdown) or SVG timeline (html).")
    .default_to(true);
  in->add("timezone", &a::timezone,
          "Zone of the times shown; default: the session's.")
    .max_length(max_id_length);
  auto out = std::make_shared<output_schema<r>>();
  out->add("session_id", &r::session_id, "The session.");
  out->add("format", &r::format, "The format of 'report'.")
    .one_of({"markdown", "csv", "json", "html"});
  out->add("mime_type", &r::mime_type,
           "MIME type of 'report', e.g. 'text/markdown; charset=utf-8'.");
  out->add("timezone", &r::timezone, "Zone the report's times are in.");
  out->add("status", &r::status,
           "'active' (the report is as of now; running tasks show their "
           "time so far), 'ended', or 'expired' (past its age or idle "
           "limit: read only). A focus session's report shows it as "
           "milestone 'focus' with one run.")
    .one_of({"active", "ended", "expired"});
  out->add("report", &r::report,
           "The report text (for 'json', a JSON document as a string).");
  tool_spec<a, r> spec;
  spec.name = "time_session_report";
  spec.cost = cost::heavy; // grows with the session's tasks
  spec.toolset = "history";
  // zone argument, omitted = local, locale, week_start
  spec.preferences = preference_defaults{"timezone", false, false, false};
  spec.role = role::session_report;
  spec.title = "Execution report of a session";
  spec.description
    = "A tracking or focus session's execution report: Markdown, CSV, JSON "
      "or HTML. Read-only.";
  spec.input = std::move(in);
  spec.output = std::move(out);
  spec.annotations = hint::read_only | hint::idempotent;
  spec.ui_resource = std::string{timeline_view_uri};
  spec.handler = run;
  return make_tool(std::move(spec));
}

} // namespace ttm::tools
