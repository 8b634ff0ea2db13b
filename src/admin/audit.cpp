// `time-tracker-mcp audit`: who did what when. The journal's per-event
// `by` records (the principal, the MCP client, the tool; the event's kind
// and session) and the refusals the HTTP edge recorded (401, 403, 429),
// merged oldest first. From the data directory's SQLite journal, or a
// PostgreSQL journal (--journal).

#include "admin/cli.hpp"

#include "domain/time_format.hpp"
#include "journal/audit.hpp"
#include "journal/bad_event.hpp"
#include "protocol/json_writer.hpp"
#include "storage/pg_admin.hpp"
#include "storage/sqlite_admin.hpp"

#include <rapidjson/stringbuffer.h>

#include <algorithm>

namespace ttm::admin {

namespace {

/// One line of the audit, of either source.
struct entry {
  std::int64_t wall_ns = 0;
  std::string what; ///< an event kind, or "refused"
  std::string principal;
  std::string session_id;
  std::string client;
  std::string tool;
  std::optional<domain::refusal> refusal;
};

int run_audit(context& ctx, const args& a) {
  const char* name = "audit";
  if (!a.positional.empty())
    return usage_error(ctx, name,
                       "unexpected argument '" + a.positional.front() + "'");
  auto since_text = a.get("--since");
  if (!since_text)
    return usage_error(ctx, name, "--since is required (e.g. --since "
                                  "yesterday, --since 2026-11-01)");
  auto zone = zone_of(a);
  if (auto* e = std::get_if<std::string>(&zone))
    return usage_error(ctx, name, *e);
  auto& z = std::get<domain::zone>(zone);
  storage::audit_query q;
  q.principal = a.get("--principal");
  for (auto [flag, out] : {std::make_pair("--since", &q.since_wall_ns),
                           std::make_pair("--until", &q.until_wall_ns)})
    if (auto text = a.get(flag)) {
      auto t = read_time(ctx, flag, *text, z);
      if (auto* e = std::get_if<std::string>(&t))
        return usage_error(ctx, name, *e);
      *out = domain::to_ns(std::get<domain::wall_time>(t));
    }
  auto format = a.get("--format").value_or("text");
  if (format != "text" && format != "json")
    return usage_error(ctx, name, "--format: '" + format
                                    + "' is not text or json");
  // The journal's records: PostgreSQL (--journal, read-only, one
  // snapshot each) or the data directory's SQLite file.
  storage::result<std::vector<storage::event>> events = storage::error{};
  storage::result<std::vector<storage::audit_entry>> refusals
    = storage::error{};
  if (auto uri = journal_uri(ctx, a); !uri.empty()) {
    storage::pg_options pg;
    pg.conninfo = uri == "postgresql" ? "" : uri;
    events = storage::pg_events_by(pg, q);
    if (!std::holds_alternative<storage::error>(events))
      refusals = storage::pg_audit(pg, q);
  } else {
    auto dir = data_dir(ctx, a);
    if (dir.index() == 1)
      return usage_error(ctx, name, std::get<1>(dir));
    auto opened = storage::journal_reader::open(std::get<0>(dir));
    if (auto* e = std::get_if<storage::error>(&opened))
      return fault(ctx, name, e->message);
    auto& reader = *std::get<0>(opened);
    events = reader.events_by(q);
    if (!std::holds_alternative<storage::error>(events))
      refusals = reader.audit(q);
  }
  if (auto* e = std::get_if<storage::error>(&events))
    return fault(ctx, name, e->message);
  if (auto* e = std::get_if<storage::error>(&refusals))
    return fault(ctx, name, e->message);
  std::vector<entry> all;
  for (const auto& ev : std::get<std::vector<storage::event>>(events)) {
    entry e;
    e.wall_ns = ev.at.wall_ns;
    e.what = storage::to_string(ev.kind);
    e.session_id = ev.session_id;
    try {
      auto by = journal::by_of(ev);
      e.principal = by.principal.empty() ? ev.principal : by.principal;
      e.client = by.client;
      e.tool = by.tool;
    } catch (const journal::bad_event& ex) {
      ctx.err << "session " << ev.session_id << ": " << ex.what() << "\n";
      continue;
    }
    all.push_back(std::move(e));
  }
  for (const auto& rec : std::get<std::vector<storage::audit_entry>>(refusals)) {
    entry e;
    e.wall_ns = rec.wall_ns;
    e.what = "refused";
    e.principal = rec.principal;
    try {
      e.refusal = journal::refusal_of(rec);
    } catch (const journal::bad_event& ex) {
      ctx.err << "audit record: " << ex.what() << "\n";
      continue;
    }
    all.push_back(std::move(e));
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const entry& x, const entry& y) {
                     return x.wall_ns < y.wall_ns;
                   });
  auto when = [&](std::int64_t ns) {
    return domain::format_iso8601(
      domain::wall_time{std::chrono::duration_cast<domain::wall_time::duration>(
        std::chrono::nanoseconds{ns})},
      z);
  };
  if (format == "json") {
    // One object per line: an audit is read by tools (jq, a SIEM).
    for (const auto& e : all) {
      rapidjson::StringBuffer buf;
      protocol::json_writer w{buf};
      w.StartObject();
      w.Key("time");
      w.string(when(e.wall_ns));
      w.Key("event");
      w.string(e.what);
      w.Key("principal");
      w.string(e.principal);
      if (e.refusal) {
        w.Key("status");
        w.Uint64(e.refusal->status);
        w.Key("reason");
        w.string(e.refusal->reason);
        w.Key("client_address");
        w.string(e.refusal->client_address);
        w.Key("suppressed");
        w.Uint64(e.refusal->suppressed);
      } else {
        w.Key("session_id");
        w.string(e.session_id);
        w.Key("client");
        w.string(e.client);
        w.Key("tool");
        w.string(e.tool);
      }
      w.EndObject();
      ctx.out << buf.GetString() << "\n";
    }
    return 0;
  }
  for (const auto& e : all) {
    ctx.out << when(e.wall_ns) << "  " << e.what << "  "
            << (e.principal.empty() ? "-" : e.principal) << "  ";
    if (e.refusal) {
      ctx.out << e.refusal->status << " from " << e.refusal->client_address
              << ": " << e.refusal->reason;
      if (e.refusal->suppressed > 0)
        ctx.out << " (+" << e.refusal->suppressed
                << " more from there not recorded)";
    } else {
      ctx.out << e.session_id << "  " << (e.tool.empty() ? "-" : e.tool)
              << "  " << (e.client.empty() ? "-" : e.client);
    }
    ctx.out << "\n";
  }
  return 0;
}

} // namespace

const command& audit_command() {
  static const command c{
    "audit",
    "audit --since TIME [options]",
    "Who did what when: every journal event's `by` record (principal, MCP "
    "client,\ntool, event kind, session id) and the refusals at the HTTP "
    "edge (401, 403,\n429), oldest first.",
    {{"--since", "TIME", "from this time on (required; the tools' time "
                         "grammar)"},
     {"--until", "TIME", "before this time"},
     {"--principal", "NAME", "only what this principal did"},
     {"--timezone", "ZONE", "zone of times in and out (default UTC)"},
     {"--format", "FORMAT", "text (default) or json (one object a line)"}},
    run_audit};
  return c;
}

} // namespace ttm::admin
