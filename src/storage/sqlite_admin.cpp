#include "storage/sqlite_admin.hpp"

#include "storage/sqlite_schema.hpp"
#include "storage/sqlite_store.hpp"
#include "storage/sqlite_store_impl.hpp"
#include "storage/sqlite_util.hpp"
#include "storage/sys_util.hpp"

#include <sqlite3.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>
#include <utility>

namespace ttm::storage {

namespace {

namespace fs = std::filesystem;
using namespace detail;

/// Waits for a server's short write transactions (WAL recovery, a
/// checkpoint's moment) rather than failing at once.
constexpr int busy_ms = 5000;

constexpr std::int64_t progress_every = 10'000;

/// Runs `sql` (bound by `bind`) and hands each row to `row`; false from
/// `row` stops.
template <class Bind, class Row>
std::optional<error> each_row(sqlite3* db, const std::string& path,
                              const char* sql, Bind bind, Row row) {
  sqlite3_stmt* raw = nullptr;
  auto rc = sqlite3_prepare_v2(db, sql, -1, &raw, nullptr);
  stmt_ptr s{raw};
  if (rc != SQLITE_OK)
    return sqlite_error(db, rc, "cannot read", path);
  stmt_use use{s};
  bind(use);
  while ((rc = use.step()) == SQLITE_ROW)
    if (!row(use))
      return std::nullopt;
  if (rc != SQLITE_DONE)
    return sqlite_error(db, rc, "cannot read", path);
  return std::nullopt;
}

/// Columns of an event joined with its session, as event_of reads them.
#define TTM_EVENT_COLUMNS                                                      \
  "e.kind, COALESCE(e.task_id, ''), e.wall_ns, e.mono_ns, e.boot_id,"          \
  " e.payload, s.session_id, s.principal"

event event_of(const stmt_use& use) {
  event ev;
  ev.kind = event_kind_from(use.text(0)).value_or(event_kind::session_started);
  ev.task_id = use.text(1);
  ev.at.wall_ns = use.int64(2);
  ev.at.mono_ns = use.int64(3);
  ev.at.boot_id = use.text(4);
  ev.payload = use.text(5);
  ev.session_id = use.text(6);
  ev.principal = use.text(7);
  return ev;
}

void bind_window(stmt_use& use, const audit_query& q) {
  use.bind(1, q.since_wall_ns).bind(2, q.until_wall_ns).bind(3, q.principal);
}

result<db_ptr> open_read_only(const std::string& path) {
  sqlite3* raw = nullptr;
  auto rc = sqlite3_open_v2(path.c_str(), &raw,
                            SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                            nullptr);
  db_ptr db{raw};
  if (rc != SQLITE_OK)
    return sqlite_error(raw, rc, "cannot open the journal", path);
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, busy_ms);
  return db;
}

} // namespace

struct journal_reader::impl {
  std::string dir;
  std::string path;
  db_ptr db;
  std::int64_t version = 0;
  std::unique_ptr<sqlite_store> store; ///< on its own connection, on demand

  error fail(int rc, const std::string& what) const {
    return sqlite_error(db.get(), rc, what, path);
  }

  /// A statement of this connection, or the error preparing it.
  result<stmt_ptr> prepare(const char* sql) const {
    sqlite3_stmt* s = nullptr;
    auto rc = sqlite3_prepare_v2(db.get(), sql, -1, &s, nullptr);
    stmt_ptr out{s};
    if (rc != SQLITE_OK)
      return fail(rc, std::string{"cannot read ("} + sql + ")");
    return out;
  }
};

journal_reader::journal_reader(std::unique_ptr<impl> p) : impl_(std::move(p)) {
}

journal_reader::~journal_reader() = default;

const std::string& journal_reader::path() const noexcept {
  return impl_->path;
}

std::int64_t journal_reader::schema_version() const noexcept {
  return impl_->version;
}

result<std::unique_ptr<journal_reader>>
journal_reader::open(const std::string& dir) {
  detail::route_sqlite_log();
  auto p = std::make_unique<impl>();
  std::error_code ec;
  p->dir = fs::absolute(dir, ec).lexically_normal().string();
  p->path = (fs::path{p->dir} / "journal.sqlite3").string();
  struct stat st{};
  if (::stat(p->path.c_str(), &st) != 0)
    return errno_error(errno, "cannot read the journal", p->path);
  auto db = open_read_only(p->path);
  if (auto* err = std::get_if<error>(&db))
    return std::move(*err);
  p->db = std::move(std::get<db_ptr>(db));
  // The checks a server makes before it writes, which only read.
  std::int64_t version = 0;
  if (auto err = check_before_writing(p->db.get(), p->path, version))
    return std::move(*err);
  p->version = version;
  return std::unique_ptr<journal_reader>{new journal_reader{std::move(p)}};
}

result<journal_health> journal_reader::health() {
  auto& p = *impl_;
  journal_health h;
  h.schema_version = p.version;
  auto mode = p.prepare("PRAGMA journal_mode");
  if (auto* err = std::get_if<error>(&mode))
    return std::move(*err);
  {
    auto& s = std::get<stmt_ptr>(mode);
    stmt_use use{s};
    if (use.step() == SQLITE_ROW)
      h.journal_mode = use.text(0);
  }
  rollback_guard guard{p.db.get()};
  if (auto rc = exec(p.db.get(), "BEGIN"); rc != SQLITE_OK)
    return p.fail(rc, "cannot read the journal");
  auto check = p.prepare("PRAGMA integrity_check(20)");
  if (auto* err = std::get_if<error>(&check))
    return std::move(*err);
  {
    stmt_use use{std::get<stmt_ptr>(check)};
    int rc;
    while ((rc = use.step()) == SQLITE_ROW)
      h.integrity += (h.integrity.empty() ? "" : "; ") + use.text(0);
    if (rc != SQLITE_DONE)
      return p.fail(rc, "cannot check the journal");
  }
  if (h.schema_version > 0) {
    if (auto rc = query_int(p.db.get(), "SELECT count(*) FROM sessions",
                            h.sessions))
      return p.fail(rc, "cannot count the sessions in");
    if (auto rc = query_int(p.db.get(), "SELECT count(*) FROM events",
                            h.events))
      return p.fail(rc, "cannot count the events in");
  }
  exec(p.db.get(), "COMMIT");
  struct stat st{};
  if (::stat((p.path + "-wal").c_str(), &st) == 0)
    h.wal_bytes = static_cast<std::int64_t>(st.st_size);
  return h;
}

result<store*> journal_reader::sessions() {
  auto& p = *impl_;
  if (p.store)
    return static_cast<store*>(p.store.get());
  if (p.version != journal_schema_version)
    return error{error_kind::io,
                 "the journal " + p.path + " has schema version "
                   + std::to_string(p.version) + ", not "
                   + std::to_string(journal_schema_version)
                   + ": a server of this version migrates it when it opens"
                     " it; until then its sessions cannot be read here"};
  auto db = open_read_only(p.path);
  if (auto* err = std::get_if<error>(&db))
    return std::move(*err);
  auto st = std::make_unique<sqlite_store>(
    std::make_unique<sqlite_store::busy_stats>(), dir_lock{}, p.path,
    std::move(std::get<db_ptr>(db)), 0, sqlite_store::limits{});
  if (auto rc = st->prepare_kept(); rc != SQLITE_OK)
    return p.fail(rc, "cannot prepare statements for the journal");
  p.store = std::move(st);
  return static_cast<store*>(p.store.get());
}

result<std::optional<stored_session>>
journal_reader::session(const std::string& id) {
  auto s = sessions();
  if (auto* err = std::get_if<error>(&s))
    return std::move(*err);
  return impl_->store->session(id);
}

std::optional<error> journal_reader::dump(const dump_visitor& v,
                                          const progress_fn& progress) {
  auto& p = *impl_;
  auto* db = p.db.get();
  if (p.version != journal_schema_version)
    return error{error_kind::io,
                 "the journal " + p.path + " has schema version "
                   + std::to_string(p.version) + ", not "
                   + std::to_string(journal_schema_version)
                   + ": open it with a server of this version first (it"
                     " migrates it)"};
  rollback_guard guard{db};
  if (auto rc = exec(db, "BEGIN"); rc != SQLITE_OK)
    return p.fail(rc, "cannot read the journal");
  std::int64_t total = 0;
  if (auto rc = query_int(db, "SELECT count(*) FROM events", total))
    return p.fail(rc, "cannot count the events in");
  std::int64_t done = 0;
  bool go = true;
  std::string bad_kind;
  auto none = [](stmt_use&) {};
  // Journal order: the order they were written in, over all sessions.
  if (auto err = each_row(
        db, p.path,
        "SELECT " TTM_EVENT_COLUMNS " FROM events e JOIN sessions s"
        " ON s.sid = e.sid ORDER BY e.seq",
        none, [&](const stmt_use& use) {
          if (!event_kind_from(use.text(0))) {
            bad_kind = use.text(0);
            return go = false;
          }
          go = v.on_event(event_of(use));
          if (++done % progress_every == 0 && progress)
            progress(done, total);
          return go;
        }))
    return err;
  if (!bad_kind.empty())
    return error{error_kind::corrupt, "the journal " + p.path
                                        + " has an event of unknown kind '"
                                        + bad_kind + "'"};
  if (!go)
    return std::nullopt;
  if (auto err = each_row(
        db, p.path,
        "SELECT principal, key, value FROM preferences"
        " ORDER BY principal, key",
        none, [&](const stmt_use& use) {
          return go = v.on_preference({use.text(0), use.text(1), use.text(2)});
        }))
    return err;
  if (!go)
    return std::nullopt;
  if (auto err = each_row(
        db, p.path,
        "SELECT principal, session_id, intent, started_wall_ns,"
        " ended_wall_ns, summary FROM focus_sessions ORDER BY fid",
        none, [&](const stmt_use& use) {
          focus_row f;
          f.principal = use.text(0);
          f.focus.session_id = use.text(1);
          f.focus.intent = use.text(2);
          f.focus.started_wall_ns = use.int64(3);
          if (!use.is_null(4))
            f.focus.ended_wall_ns = use.int64(4);
          f.focus.summary = use.text(5);
          return go = v.on_focus(f);
        }))
    return err;
  if (!go)
    return std::nullopt;
  if (auto err = each_row(
        db, p.path,
        "SELECT kind, wall_ns, principal, payload FROM audit ORDER BY seq",
        none, [&](const stmt_use& use) {
          return go = v.on_audit(
                   {use.text(0), use.int64(1), use.text(2), use.text(3)});
        }))
    return err;
  if (progress)
    progress(done, total);
  return std::nullopt;
}

result<std::vector<event>> journal_reader::events_by(const audit_query& q) {
  auto& p = *impl_;
  std::vector<event> out;
  rollback_guard guard{p.db.get()};
  if (auto err = each_row(
        p.db.get(), p.path,
        "SELECT " TTM_EVENT_COLUMNS " FROM events e JOIN sessions s"
        " ON s.sid = e.sid"
        " WHERE json_type(e.payload, '$.by') = 'object'"
        " AND (?1 IS NULL OR e.wall_ns >= ?1)"
        " AND (?2 IS NULL OR e.wall_ns < ?2)"
        " AND (?3 IS NULL OR json_extract(e.payload, '$.by.principal') = ?3)"
        " ORDER BY e.wall_ns, e.seq",
        [&](stmt_use& use) { bind_window(use, q); },
        [&](const stmt_use& use) {
          if (event_kind_from(use.text(0)))
            out.push_back(event_of(use));
          return true;
        }))
    return std::move(*err);
  return out;
}

result<std::vector<audit_entry>>
journal_reader::audit(const audit_query& q) {
  auto& p = *impl_;
  std::vector<audit_entry> out;
  if (p.version < 8)
    return out; // no audit records before schema 8
  if (auto err = each_row(
        p.db.get(), p.path,
        "SELECT kind, wall_ns, principal, payload FROM audit"
        " WHERE (?1 IS NULL OR wall_ns >= ?1)"
        " AND (?2 IS NULL OR wall_ns < ?2)"
        " AND (?3 IS NULL OR principal = ?3) ORDER BY wall_ns, seq",
        [&](stmt_use& use) { bind_window(use, q); },
        [&](const stmt_use& use) {
          out.push_back({use.text(0), use.int64(1), use.text(2), use.text(3)});
          return true;
        }))
    return std::move(*err);
  return out;
}

result<std::int64_t> journal_reader::backup(const std::string& dest_dir,
                                            int pages_per_step,
                                            const progress_fn& progress) {
  auto& p = *impl_;
  std::error_code ec;
  fs::create_directories(dest_dir, ec);
  if (ec)
    return error{error_kind::io, "cannot create the directory " + dest_dir
                                   + ": " + ec.message()};
  ::chmod(dest_dir.c_str(), 0700);
  auto dest = (fs::path{dest_dir} / "journal.sqlite3").string();
  if (fs::exists(dest, ec))
    return error{error_kind::rejected,
                 dest + " exists: back up into a new or empty directory"};
  // Written beside its place, then renamed: a copy cut short is never
  // taken for a journal.
  auto part = dest + ".part";
  fs::remove(part, ec);
  {
    unique_fd created{::open(part.c_str(),
                             O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)};
    if (created.get() < 0)
      return errno_error(errno, "cannot create", part);
  }
  sqlite3* raw = nullptr;
  auto rc = sqlite3_open_v2(part.c_str(), &raw,
                            SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                            nullptr);
  db_ptr out{raw};
  auto fail_out = [&](int code, const std::string& what) {
    auto err = sqlite_error(out.get(), code, what, part);
    out.reset();
    fs::remove(part, ec);
    return err;
  };
  if (rc != SQLITE_OK)
    return fail_out(rc, "cannot open the copy");
  auto* src = p.db.get();
  // One snapshot for the whole copy: a read transaction held across the
  // steps, so that servers' commits meanwhile neither wait for it nor
  // restart it (they are not in the copy: it is the journal as of now).
  rollback_guard guard{src};
  if ((rc = exec(src, "BEGIN")) != SQLITE_OK
      || (rc = exec(src, "SELECT count(*) FROM sqlite_schema")) != SQLITE_OK)
    return fail_out(rc, "cannot read the journal " + p.path + " for");
  auto* b = sqlite3_backup_init(out.get(), "main", src, "main");
  if (b == nullptr)
    return fail_out(sqlite3_errcode(out.get()), "cannot start a backup into");
  std::int64_t copied = 0;
  int busy_tries = 0;
  for (;;) {
    rc = sqlite3_backup_step(b, pages_per_step);
    auto total = sqlite3_backup_pagecount(b);
    copied = total - sqlite3_backup_remaining(b);
    if (progress)
      progress(copied, total);
    if (rc == SQLITE_DONE)
      break;
    if (rc == SQLITE_OK)
      continue;
    // The copy's own file is ours alone; the source is read from the
    // snapshot held: a busy step is rare and short. Bounded all the same.
    if ((rc == SQLITE_BUSY || rc == SQLITE_LOCKED) && ++busy_tries < busy_ms / 5) {
      sqlite3_sleep(5);
      continue;
    }
    sqlite3_backup_finish(b);
    return fail_out(rc, "cannot copy the journal into");
  }
  if ((rc = sqlite3_backup_finish(b)) != SQLITE_OK)
    return fail_out(rc, "cannot finish the copy");
  exec(src, "COMMIT");
  // The copy is in WAL mode as the journal is: fold its WAL into it, so
  // that the one file is the whole copy.
  if ((rc = exec(out.get(), "PRAGMA wal_checkpoint(TRUNCATE)")) != SQLITE_OK)
    return fail_out(rc, "cannot checkpoint the copy");
  out.reset();
  fs::remove(part + "-wal", ec);
  fs::remove(part + "-shm", ec);
  fs::rename(part, dest, ec);
  if (ec)
    return error{error_kind::io,
                 "cannot rename " + part + " to " + dest + ": " + ec.message()};
  return copied;
}

} // namespace ttm::storage
