// `time-tracker-mcp import [FILE]`: export's JSON lines (stdin or FILE)
// into an empty data directory. Every line is checked first (the first bad
// one is named, nothing is written), then all of it is written in one
// transaction through the server's own per-event writes.

#include "admin/cli.hpp"

#include "journal/dump.hpp"
#include "storage/pg_admin.hpp"
#include "storage/sqlite_admin.hpp"
#include "storage/sqlite_store.hpp"

#include <unistd.h>

#include <fstream>
#include <iostream>

namespace ttm::admin {

namespace {

int run_import(context& ctx, const args& a) {
  const char* name = "import";
  if (a.positional.size() > 1)
    return usage_error(ctx, name, "one FILE at most (or none: stdin)");
  // A PostgreSQL journal (bootstrapping a cluster): its emptiness is
  // checked in the import's transaction.
  auto uri = journal_uri(ctx, a);
  auto dir = uri.empty() ? data_dir(ctx, a)
                         : std::variant<std::string, std::string>{
                             std::in_place_index<0>, std::string{}};
  if (dir.index() == 1)
    return usage_error(ctx, name, std::get<1>(dir));
  const auto& d = std::get<0>(dir);
  // Before reading anything: a journal holding sessions is refused, and
  // never touched (not even migrated).
  if (auto r = uri.empty() ? storage::journal_reader::open(d)
                           : storage::result<std::unique_ptr<
                             storage::journal_reader>>{storage::error{}};
      r.index() == 0) {
    auto h = std::get<0>(r)->health();
    if (auto* v = std::get_if<storage::journal_health>(&h);
        v == nullptr || v->sessions > 0 || v->events > 0)
      return fault(ctx, name, "the data directory " + d
                                + " holds a journal with sessions: import"
                                  " into a new, empty data directory");
  }
  std::ifstream file;
  std::istream* in = &std::cin;
  if (!a.positional.empty() && a.positional.front() != "-") {
    file.open(a.positional.front());
    if (!file)
      return fault(ctx, name, "cannot read " + a.positional.front());
    in = &file;
  }
  journal::dump_reader reader;
  progress shown{ctx, "import", "lines read"};
  std::string text;
  std::int64_t n = 0;
  while (std::getline(*in, text)) {
    if (!reader.add(text))
      return fault(ctx, name, reader.error() + "; nothing was imported");
    if (++n % 10000 == 0)
      shown(n, -1);
  }
  if (in->bad())
    return fault(ctx, name, "cannot read the input; nothing was imported");
  if (!reader.finish())
    return fault(ctx, name, reader.error() + "; nothing was imported");
  storage::sqlite_options opts;
  opts.dir = d;
  opts.instance = std::string{"time-tracker-mcp import, pid "}
                  + std::to_string(::getpid());
  storage::pg_options pg;
  pg.conninfo = uri == "postgresql" ? "" : uri;
  pg.instance = opts.instance;
  auto start = std::chrono::steady_clock::now();
  auto r = uri.empty() ? storage::import_journal(opts, reader.dump())
                       : storage::import_journal_pg(pg, reader.dump());
  if (auto* e = std::get_if<storage::error>(&r))
    return fault(ctx, name, e->message + "; nothing was imported");
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
              std::chrono::steady_clock::now() - start)
              .count();
  const auto& dump = reader.dump();
  ctx.err << "import: " << dump.events.size() << " events, "
          << dump.preferences.size() << " preferences, " << dump.focus.size()
          << " focus sessions, " << dump.audit.size()
          << " audit records written in " << ms << " ms\n";
  if (uri.empty())
    ctx.out << d << "/journal.sqlite3\n";
  else
    ctx.out << storage::describe_postgresql(pg) << "\n";
  return 0;
}

} // namespace

const command& import_command() {
  static const command c{
    "import",
    "import [FILE] [options]",
    "Reads an export (FILE, or stdin) into an empty data directory (a "
    "journal with\nsessions is refused). Every line is checked first, the "
    "first bad one named by\nits number, and nothing is written unless all "
    "of it is: one transaction.",
    {},
    run_import};
  return c;
}

} // namespace ttm::admin
