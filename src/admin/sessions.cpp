// `time-tracker-mcp sessions list|show|report`: the history tool's query
// (domain::history_filter, through journal::to_list_query to store::list)
// over every principal's sessions, and one session's summary or report as
// the tools build them, from a read-only connection.

#include "admin/cli.hpp"

#include "domain/ascii.hpp"
#include "domain/history.hpp"
#include "domain/time_format.hpp"
#include "domain/tracking.hpp"
#include "journal/history.hpp"
#include "journal/replay.hpp"
#include "protocol/json_writer.hpp"
#include "reports/report.hpp"
#include "storage/sqlite_admin.hpp"
#include "tools/session_common.hpp"

#include <rapidjson/stringbuffer.h>

namespace ttm::admin {

namespace {

const char* status_name(storage::session_state s) {
  switch (s) {
    case storage::session_state::open: return "active";
    case storage::session_state::ended: return "ended";
    case storage::session_state::expired: return "expired";
  }
  return "?";
}

domain::wall_time at_ns(std::int64_t ns) {
  return domain::wall_time{std::chrono::duration_cast<
    domain::wall_time::duration>(std::chrono::nanoseconds{ns})};
}

/// The journal of the data directory, read-only; or the exit code.
std::variant<std::unique_ptr<storage::journal_reader>, int>
open_journal(context& ctx, const args& a, const char* name) {
  auto dir = data_dir(ctx, a);
  if (dir.index() == 1)
    return usage_error(ctx, name, std::get<1>(dir));
  auto r = storage::journal_reader::open(std::get<0>(dir));
  if (auto* e = std::get_if<storage::error>(&r))
    return fault(ctx, name, e->message);
  return std::move(std::get<0>(r));
}

const command& list_command() {
  static const command c{
    "sessions list",
    "sessions list [options]",
    "Lists tracking sessions of every principal, newest first, with the "
    "filters of\ntime_session_list.",
    {{"--status", "STATUS", "active, ended or expired"},
     {"--principal", "NAME", "only this principal's sessions"},
     {"--since", "TIME", "started at or after (the tools' time grammar)"},
     {"--until", "TIME", "started before"},
     {"--text", "TEXT", "in the milestone's or a task's id or name"},
     {"--milestone", "ID", "only this milestone"},
     {"--tag", "TAG", "sessions with this tag", true},
     {"--limit", "N", "at most N rows (default 20, at most 10000)"},
     {"--timezone", "ZONE", "zone of times in and out (default UTC)"},
     {"--format", "FORMAT", "text (default) or json"}},
    nullptr};
  return c;
}

const command& show_command() {
  static const command c{
    "sessions show", "sessions show ID [options]",
    "Prints a session's summary (time_session_summary's JSON) as of now.",
    {}, nullptr};
  return c;
}

const command& report_command() {
  static const command c{
    "sessions report", "sessions report ID [options]",
    "Prints a session's execution report (time_session_report) to stdout.",
    {{"--format", "FORMAT", "markdown (default), csv, json or html"},
     {"--timezone", "ZONE", "zone of the report's times (default: the "
                            "session's)"}},
    nullptr};
  return c;
}

int list(context& ctx, const args& a) {
  const char* name = "sessions list";
  domain::history_filter f;
  if (auto s = a.get("--status")) {
    f.status = domain::history_status_from(*s);
    if (!f.status)
      return usage_error(ctx, name, "--status: '" + *s
                                      + "' is not a session status; use"
                                        " active, ended or expired");
  }
  auto zone = zone_of(a);
  if (auto* e = std::get_if<std::string>(&zone))
    return usage_error(ctx, name, *e);
  auto& z = std::get<domain::zone>(zone);
  for (auto [flag, out] : {std::make_pair("--since", &f.started_after),
                           std::make_pair("--until", &f.started_before)})
    if (auto text = a.get(flag)) {
      auto t = read_time(ctx, flag, *text, z);
      if (auto* e = std::get_if<std::string>(&t))
        return usage_error(ctx, name, *e);
      *out = std::get<domain::wall_time>(t);
    }
  if (f.started_after && f.started_before
      && !(*f.started_after < *f.started_before))
    return usage_error(ctx, name, "--until must be later than --since");
  auto limit = count_of(a, "--limit", 20, 10000);
  if (auto* e = std::get_if<std::string>(&limit))
    return usage_error(ctx, name, *e);
  f.limit = static_cast<std::size_t>(std::get<std::int64_t>(limit));
  if (auto t = a.get("--text"))
    f.text = domain::ascii_lower(*t);
  f.milestone_id = a.get("--milestone");
  f.tags = a.all("--tag");
  auto format = a.get("--format").value_or("text");
  if (format != "text" && format != "json")
    return usage_error(ctx, name, "--format: '" + format
                                    + "' is not text or json");
  auto journal = open_journal(ctx, a, name);
  if (auto* code = std::get_if<int>(&journal))
    return *code;
  auto& reader = *std::get<0>(journal);
  auto st = reader.sessions();
  if (auto* e = std::get_if<storage::error>(&st))
    return fault(ctx, name, e->message);
  // Every principal's sessions of every era unless --principal names one.
  auto q = journal::to_list_query(f, a.get("--principal").value_or(""), "");
  auto page = std::get<storage::store*>(st)->list(q);
  if (auto* e = std::get_if<storage::error>(&page))
    return fault(ctx, name, e->message);
  const auto& rows = std::get<storage::list_page>(page).rows;
  if (format == "json") {
    rapidjson::StringBuffer buf;
    protocol::json_writer w{buf};
    w.StartArray();
    for (const auto& r : rows) {
      w.StartObject();
      w.Key("session_id");
      w.string(r.session_id);
      w.Key("principal");
      w.string(r.principal);
      w.Key("status");
      w.string(status_name(r.state));
      w.Key("milestone_id");
      w.string(r.milestone_id);
      if (r.milestone_name) {
        w.Key("milestone_name");
        w.string(*r.milestone_name);
      }
      w.Key("start_time");
      w.string(domain::format_iso8601(at_ns(r.started_wall_ns), z));
      if (r.closed_wall_ns) {
        w.Key("end_time");
        w.string(domain::format_iso8601(at_ns(*r.closed_wall_ns), z));
      }
      w.Key("tasks_completed");
      w.Int64(r.tasks_done);
      w.Key("task_count");
      w.Int64(r.tasks_total);
      w.Key("tags");
      w.StartArray();
      for (const auto& t : r.tags)
        w.string(t);
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    ctx.out << buf.GetString() << "\n";
    return 0;
  }
  for (const auto& r : rows) {
    ctx.out << r.session_id << "  " << status_name(r.state) << "  "
            << r.principal << "  "
            << domain::format_iso8601(at_ns(r.started_wall_ns), z) << "  "
            << (r.closed_wall_ns
                  ? domain::format_iso8601(at_ns(*r.closed_wall_ns), z)
                  : std::string{"-"})
            << "  " << r.tasks_done << "/" << r.tasks_total << "  "
            << r.milestone_id;
    if (r.milestone_name)
      ctx.out << " (" << *r.milestone_name << ")";
    for (const auto& t : r.tags)
      ctx.out << " #" << t;
    ctx.out << "\n";
  }
  if (std::get<storage::list_page>(page).more)
    ctx.err << "(more sessions match: raise --limit or narrow the filters)\n";
  return 0;
}

/// The session `id` replayed into `tr` as a server would load it, or the
/// exit code.
std::variant<const domain::tracking_session*, int>
load(context& ctx, const args& a, const char* name, domain::tracker& tr) {
  if (a.positional.size() != 1)
    return usage_error(ctx, name, a.positional.empty()
                                    ? "missing the session id"
                                    : "one session id, please");
  const auto& id = a.positional.front();
  auto journal = open_journal(ctx, a, name);
  if (auto* code = std::get_if<int>(&journal))
    return *code;
  auto found = std::get<0>(journal)->session(id);
  if (auto* e = std::get_if<storage::error>(&found))
    return fault(ctx, name, e->message);
  auto& s = std::get<std::optional<storage::stored_session>>(found);
  if (!s)
    return fault(ctx, name, "no session " + id + " in the journal");
  std::vector<std::string> problems;
  journal::replay(tr, {*s}, *ctx.clock, "UTC", problems);
  for (const auto& p : problems)
    ctx.err << "cannot read " << p << "\n";
  const auto* live = tr.find(id);
  if (live == nullptr)
    return fault(ctx, name, "session " + id + " cannot be read back");
  return live;
}

int show(context& ctx, const args& a) {
  domain::tracker tr{domain::tracking_limits{}};
  auto s = load(ctx, a, "sessions show", tr);
  if (auto* code = std::get_if<int>(&s))
    return *code;
  auto res = tools::summarize(*std::get<0>(s), domain::now_of(*ctx.clock),
                              true);
  ctx.out << tools::make_summary_schema(false)->encode_success(res) << "\n";
  return 0;
}

int report(context& ctx, const args& a) {
  const char* name = "sessions report";
  auto format = reports::parse_report_format(
    a.get("--format").value_or("markdown"));
  if (!format)
    return usage_error(ctx, name, "--format: '" + *a.get("--format")
                                    + "' is not markdown, csv, json or html");
  std::optional<domain::zone> zone;
  if (a.get("--timezone")) {
    auto z = zone_of(a);
    if (auto* e = std::get_if<std::string>(&z))
      return usage_error(ctx, name, *e);
    zone = std::get<domain::zone>(z);
  }
  domain::tracker tr{domain::tracking_limits{}};
  auto s = load(ctx, a, name, tr);
  if (auto* code = std::get_if<int>(&s))
    return *code;
  const auto& session = *std::get<0>(s);
  auto model = reports::build_report(session, domain::now_of(*ctx.clock),
                                     zone ? *zone : session.tz);
  ctx.out << reports::render_report(model, *format);
  return 0;
}

} // namespace

int run_sessions(context& ctx, const std::vector<std::string>& in) {
  static const char* overview
    = "Usage: time-tracker-mcp sessions list|show|report ...\n\n"
      "  sessions list [options]        sessions of every principal\n"
      "  sessions show ID               a session's summary (JSON)\n"
      "  sessions report ID --format F  its report: markdown, csv, json, "
      "html\n\nRun 'time-tracker-mcp sessions SUBCOMMAND --help' for its "
      "options.\n";
  if (in.empty() || in.front() == "--help" || in.front() == "-h") {
    (in.empty() ? ctx.err : ctx.out) << overview;
    return in.empty() ? 2 : 0;
  }
  const command* c = nullptr;
  int (*run)(context&, const args&) = nullptr;
  if (in.front() == "list")
    c = &list_command(), run = list;
  else if (in.front() == "show")
    c = &show_command(), run = show;
  else if (in.front() == "report")
    c = &report_command(), run = report;
  else
    return usage_error(ctx, "sessions",
                       "unknown subcommand '" + in.front()
                         + "' (available: list, show, report)");
  auto parsed = parse(*c, {in.begin() + 1, in.end()});
  if (auto* e = std::get_if<std::string>(&parsed))
    return usage_error(ctx, c->name, *e);
  auto& a = std::get<args>(parsed);
  if (a.help) {
    ctx.out << help_of(*c);
    return 0;
  }
  if (run == list && !a.positional.empty())
    return usage_error(ctx, c->name,
                       "unexpected argument '" + a.positional.front() + "'");
  return run(ctx, a);
}

} // namespace ttm::admin
