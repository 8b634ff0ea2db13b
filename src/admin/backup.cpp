// `time-tracker-mcp backup DEST`: a consistent copy of the journal while
// servers write to it (SQLite's online backup, in steps, from one
// snapshot), as DEST/journal.sqlite3: a server started with --data-dir
// DEST serves it.

#include "admin/cli.hpp"

#include "storage/sqlite_admin.hpp"

namespace ttm::admin {

namespace {

int run_backup(context& ctx, const args& a) {
  const char* name = "backup";
  if (a.positional.size() != 1)
    return usage_error(ctx, name, a.positional.empty()
                                    ? "missing DEST, the directory to copy"
                                      " the journal into"
                                    : "one DEST, please");
  auto pages = count_of(a, "--pages-per-step", 256, 1 << 20);
  if (auto* e = std::get_if<std::string>(&pages))
    return usage_error(ctx, name, *e);
  auto dir = data_dir(ctx, a);
  if (dir.index() == 1)
    return usage_error(ctx, name, std::get<1>(dir));
  auto opened = storage::journal_reader::open(std::get<0>(dir));
  if (auto* e = std::get_if<storage::error>(&opened))
    return fault(ctx, name, e->message);
  progress shown{ctx, "backup", "pages"};
  auto start = std::chrono::steady_clock::now();
  auto r = std::get<0>(opened)->backup(
    a.positional.front(), static_cast<int>(std::get<std::int64_t>(pages)),
    [&](std::int64_t done, std::int64_t total) { shown(done, total); });
  if (auto* e = std::get_if<storage::error>(&r))
    return fault(ctx, name, e->message);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
              std::chrono::steady_clock::now() - start)
              .count();
  ctx.err << "backup: " << std::get<std::int64_t>(r) << " pages in " << ms
          << " ms\n";
  ctx.out << a.positional.front() << "/journal.sqlite3\n";
  return 0;
}

} // namespace

const command& backup_command() {
  static const command c{
    "backup",
    "backup DEST [options]",
    "Copies the journal, consistent as of one moment, into "
    "DEST/journal.sqlite3\n(DEST is created if missing; refused if it holds "
    "a journal) while servers go\non writing: SQLite's online backup from one "
    "read snapshot, in steps. Restore:\nstart a server with --data-dir DEST, "
    "or stop the servers and copy the file in.",
    {{"--pages-per-step", "N", "pages copied per step (default 256)"}},
    run_backup};
  return c;
}

} // namespace ttm::admin
