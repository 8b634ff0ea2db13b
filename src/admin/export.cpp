// `time-tracker-mcp export`: the whole journal as JSON lines on stdout
// (journal/dump.hpp), from one read snapshot; progress on stderr.

#include "admin/cli.hpp"

#include "journal/dump.hpp"
#include "storage/pg_admin.hpp"
#include "storage/sqlite_admin.hpp"
#include "storage/sqlite_store.hpp"

namespace ttm::admin {

namespace {

int run_export(context& ctx, const args& a) {
  const char* name = "export";
  if (!a.positional.empty())
    return usage_error(ctx, name,
                       "unexpected argument '" + a.positional.front() + "'");
  if (auto uri = journal_uri(ctx, a); !uri.empty()) {
    // A PostgreSQL journal: one snapshot, at the current schema version.
    storage::pg_options pg;
    pg.conninfo = uri == "postgresql" ? "" : uri;
    pg.instance = "time-tracker-mcp export";
    std::int64_t events = 0;
    ctx.out << journal::dump_header(storage::journal_schema_version) << "\n";
    auto write = [&](const auto& item) {
      ctx.out << journal::dump_line(item) << "\n";
      return bool{ctx.out};
    };
    storage::dump_visitor v;
    v.on_event = [&](const storage::event& ev) {
      ++events;
      return write(ev);
    };
    v.on_preference = write;
    v.on_focus = write;
    v.on_audit = write;
    if (auto err = storage::dump_journal_pg(pg, v))
      return fault(ctx, name, err->message);
    ctx.out.flush();
    if (!ctx.out)
      return fault(ctx, name, "cannot write to stdout");
    ctx.err << "export: " << events << " events\n";
    return 0;
  }
  auto dir = data_dir(ctx, a);
  if (dir.index() == 1)
    return usage_error(ctx, name, std::get<1>(dir));
  auto opened = storage::journal_reader::open(std::get<0>(dir));
  if (auto* e = std::get_if<storage::error>(&opened))
    return fault(ctx, name, e->message);
  auto& reader = *std::get<0>(opened);
  progress shown{ctx, "export", "events"};
  std::int64_t events = 0;
  ctx.out << journal::dump_header(reader.schema_version()) << "\n";
  auto write = [&](const auto& item) {
    ctx.out << journal::dump_line(item) << "\n";
    return bool{ctx.out};
  };
  storage::dump_visitor v;
  v.on_event = [&](const storage::event& ev) {
    ++events;
    return write(ev);
  };
  v.on_preference = write;
  v.on_focus = write;
  v.on_audit = write;
  if (auto err = reader.dump(v, [&](std::int64_t done, std::int64_t total) {
        shown(done, total);
      }))
    return fault(ctx, name, err->message);
  ctx.out.flush();
  if (!ctx.out)
    return fault(ctx, name, "cannot write to stdout");
  shown.finish(events);
  return 0;
}

} // namespace

const command& export_command() {
  static const command c{
    "export",
    "export [options] > FILE",
    "Writes the whole journal as JSON lines to stdout, from one snapshot "
    "while\nservers go on writing: a header line "
    "{\"format\":\"time-tracker-mcp-journal\",\n\"schema_version\":N}, then "
    "one line per event in journal order (its payload as\nthe journal codec "
    "writes it), then preferences, focus sessions and audit\nrecords. "
    "'import' reads it back.",
    {},
    run_export};
  return c;
}

} // namespace ttm::admin
