#include "storage/sqlite_store.hpp"

#include "log.hpp"
#include "metrics.hpp"
#include "storage/sqlite_schema.hpp"
#include "storage/sqlite_store_impl.hpp"
#include "storage/sqlite_util.hpp"
#include "storage/sys_util.hpp"
#include "storage/wal_check.hpp"
#include "storage/write_lock.hpp"

#include <sqlite3.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>
#include <utility>

namespace ttm::storage {

namespace {

namespace fs = std::filesystem;
using namespace detail;

/// SQLite's default busy handler sleeps 1, 2, 5, 10 ... 100 ms between tries:
/// with several servers committing every few milliseconds that tail is what
/// a reply would wait. Short sleeps first (they are short transactions),
/// then longer ones, for at most `limit_us` in all (busy_timeout_us, or
/// less: see sqlite_writer.cpp).
int on_busy(void* stats, int tries) {
  using namespace std::chrono;
  auto& busy = *static_cast<sqlite_store::busy_stats*>(stats);
  if (tries == 0) {
    ++busy.waits;
    metrics::journal_busy_wait();
  }
  auto pause = tries < 10   ? microseconds{50}
               : tries < 50 ? microseconds{200}
                            : microseconds{2000};
  // Total time is at most 10 * 50 us + 40 * 200 us + the 2 ms sleeps.
  auto waited = tries < 10   ? microseconds{50} * tries
                : tries < 50 ? microseconds{500} + microseconds{200} * (tries - 10)
                             : microseconds{8500}
                                 + microseconds{2000} * (tries - 50);
  if (static_cast<std::uint64_t>(waited.count()) >= busy.limit_us
      || (busy.give_up && steady_clock::now() >= *busy.give_up))
    return 0;
  std::this_thread::sleep_for(pause);
  busy.slept_us += static_cast<std::uint64_t>(pause.count());
  return 1;
}


/// SQLite's WAL recovery drops frames after a damaged one without an error:
/// say so. Runs before SQLite reads the WAL, and only while no other server
/// uses the directory (then nobody writes the WAL meanwhile, and SQLite's
/// first read is what recovers it).
void report_wal_damage(const std::string& wal) {
  auto scan = scan_wal_file(wal);
  if (!scan)
    return;
  // Neither a WAL nor a damaged one (overwritten by something else):
  // SQLite ignores it whole. Big enough to have held a committed frame (a
  // header and one frame of the smallest page), it may have held
  // acknowledged changes: say so, as the damage below is reported.
  if (struct stat st{}; !scan->has_header && !scan->damaged_header
                        && ::stat(wal.c_str(), &st) == 0
                        && st.st_size >= 32 + 24 + 512) {
    TTM_LOG(warning, "storage",
            "the journal's WAL " + wal + " (" + std::to_string(st.st_size)
              + " bytes) is not a write-ahead log (no WAL header): SQLite "
                "ignores it; changes acknowledged in it since the last "
                "checkpoint are lost");
    return;
  }
  if (scan->zeroed > 0)
    TTM_LOG(warning, "storage",
            "the journal's WAL " + wal + " has "
              + std::to_string(scan->zeroed) + " zeroed frames after frame "
              + std::to_string(scan->recovered + scan->uncommitted)
              + " (written over, or lost in a power failure before they "
                "reached the disk): SQLite keeps the "
              + std::to_string(scan->recovered)
              + " frames before; changes acknowledged in them are lost");
  if (scan->discarded == 0)
    return;
  if (scan->damaged_header) {
    TTM_LOG(warning, "storage",
            "the journal's WAL " + wal
              + " has a damaged header (its magic, salts or checksum): "
                "SQLite ignored all "
              + std::to_string(scan->discarded) + " frames ("
              + std::to_string(scan->discarded_commits)
              + " transactions) in it; changes acknowledged in them are "
                "lost unless a checkpoint had copied them into the journal");
    return;
  }
  auto counts = std::to_string(scan->discarded) + " frames ("
                + std::to_string(scan->discarded_commits)
                + " transactions) after a damaged frame";
  if (scan->discarded_commits > 0)
    TTM_LOG(warning, "storage",
            "the journal's WAL " + wal + " had " + counts
              + ": SQLite discarded them; changes acknowledged in them are "
                "lost (it keeps the "
              + std::to_string(scan->recovered) + " frames before)");
  else // a transaction cut short by the crash: it was never acknowledged
    TTM_LOG(info, "storage",
            "the journal's WAL " + wal + " had " + counts
              + " of a transaction that never committed: SQLite discarded "
                "them");
}

result<store_ptr> open_impl(const sqlite_options& opts, dir_lock held) {
  fs::path dir{held.dir()};
  auto path = (dir / "journal.sqlite3").string();
  // Created by us, 0600: SQLite gives its -wal and -shm files the same mode.
  if (unique_fd created{::open(path.c_str(),
                               O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)};
      created.get() < 0) {
    if (errno != EEXIST)
      return errno_error(errno, "cannot create the journal", path);
    // Truncated by a crash before its first write, or by someone: SQLite
    // would start a new journal on it without a word (and delete a WAL
    // beside it as stale).
    // (Unless another server is creating it right now.)
    if (struct stat st{}; held.alone() && ::stat(path.c_str(), &st) == 0
                          && st.st_size == 0) {
      std::string wal_note;
      if (struct stat w{}; ::stat((path + "-wal").c_str(), &w) == 0
                           && w.st_size > 0)
        wal_note = " (SQLite deletes its WAL of "
                   + std::to_string(w.st_size) + " bytes as stale)";
      TTM_LOG(warning, "storage",
              "the journal " + path
                + " is an empty file (0 bytes): it is opened as a new, empty "
                  "journal"
                + wal_note + "; any sessions it held are gone");
    } else if (held.alone()) {
      report_wal_damage(path + "-wal");
    }
  }
  // The WAL was read as a file while nobody else wrote it: from here on
  // other servers may come (SQLite coordinates us all). Not later: the
  // integrity check below reads the whole journal.
  if (!held.share())
    return errno_error(errno, "cannot share the lock on",
                       (dir / "lock").string());
  // Before the connection: it must outlive it (a close may wait too).
  auto busy = std::make_unique<sqlite_store::busy_stats>();
  sqlite3* raw = nullptr;
  auto rc = sqlite3_open_v2(path.c_str(), &raw,
                            SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                            opts.vfs.empty() ? nullptr : opts.vfs.c_str());
  db_ptr db{raw};
  if (rc != SQLITE_OK)
    return sqlite_error(raw, rc, "cannot open the journal", path);
  auto* d = db.get();
  sqlite3_extended_result_codes(d, 1);
  // A file we may not write opens read-only without an error.
  if (sqlite3_db_readonly(d, "main") == 1)
    return error{error_kind::read_only,
                 "cannot write the journal " + path + ": it is read-only"};
  sqlite3_busy_handler(d, on_busy, busy.get());
  // A file we refuse keeps even the WAL a crashed server left beside it:
  // no checkpoint when we close it.
  sqlite3_db_config(d, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  std::int64_t version = 0;
  if (auto err = check_before_writing(d, path, version))
    return std::move(*err);
  sqlite3_db_config(d, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, nullptr);
  // From here on we write.
  {
    sqlite3_stmt* s = nullptr;
    rc = sqlite3_prepare_v2(d, "PRAGMA journal_mode = WAL", -1, &s, nullptr);
    stmt_ptr wal{s};
    if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
      auto* mode = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
      if (mode == nullptr || std::strcmp(mode, "wal") != 0)
        return error{error_kind::io, "cannot use write-ahead logging for the"
                                     " journal "
                                       + path + " (journal mode stays "
                                       + (mode ? mode : "unknown") + ")"};
      rc = SQLITE_OK;
    }
    if (rc != SQLITE_OK)
      return sqlite_error(d, rc, "cannot switch to WAL mode the journal",
                          path);
  }
  // In WAL mode FULL syncs the WAL at every COMMIT, inside the write
  // lock; NORMAL syncs it only before a checkpoint (and a restarted WAL's
  // header), so a commit may be lost to a power cut. `full` with
  // defer_sync runs NORMAL and syncs the WAL itself after each COMMIT,
  // before the change is acknowledged (sqlite_wal_sync.hpp).
  bool own_sync = opts.sync == sync_mode::full && opts.defer_sync;
  const char* sync = opts.sync == sync_mode::full && !own_sync
                       ? "PRAGMA synchronous = FULL"
                       : "PRAGMA synchronous = NORMAL";
  if ((rc = exec(d, sync)) != SQLITE_OK
      || (rc = exec(d, "PRAGMA foreign_keys = ON")) != SQLITE_OK
      // History and statistics read a range of session rows again and
      // again: 32 MiB of pages (SQLite's default is 2 MiB) keeps a month
      // of a busy principal's sessions in memory. Pages are allocated
      // only as read.
      || (rc = exec(d, "PRAGMA cache_size = -32768")) != SQLITE_OK)
    return sqlite_error(d, rc, "cannot configure the journal", path);
  if (auto err = migrate(d, path, version))
    return std::move(*err);
  // Briefly: the registration can wait for the first write, and a server
  // stopped inside a write must not hold up reads. Asked to wait anyway
  // (register_at_first_write): unless a process holds the write lock now,
  // which is then found out as below (stopped, or only committing).
  bool deferred = opts.register_at_first_write && write_lock_holder(path) == 0;
  const bool planned = deferred;
  result<std::int64_t> number = std::int64_t{0};
  if (!deferred) {
    busy->limit_us = stuck_wait_us;
    number = next_instance(d, path, opts.instance);
    busy->limit_us = busy_timeout_us;
  }
  // Another server holds the write lock past the timeout (stopped or
  // frozen inside a write): serve reads now, register at the first write.
  std::int64_t pid = 0;
  if (auto err = std::get_if<error>(&number)) {
    if (err->kind != error_kind::busy)
      return std::move(*err);
    deferred = true;
    pid = write_lock_holder(path);
    TTM_LOG(warning, "storage",
            "the journal " + path + " is opened for reading only for now: "
              + (pid > 0 ? "process " + std::to_string(pid)
                         : std::string{"another process"})
              + " holds its write lock (stopped or frozen?); reads are "
                "served, writes are tried again at each call until it lets "
                "go");
  }
  auto instance = deferred ? std::int64_t{0} : std::get<std::int64_t>(number);
  // Nothing names this instance before it holds a session, which it only
  // does from here on.
  if (!deferred)
    if (auto err = held.hold_instance(instance))
      return std::move(*err);
  auto st = std::make_unique<sqlite_store>(
    std::move(busy), std::move(held), path, std::move(db), instance,
    sqlite_store::limits{
      opts.max_open_sessions,
      std::chrono::nanoseconds{opts.max_age}.count(),
      std::chrono::nanoseconds{opts.max_idle}.count(),
      opts.max_open_per_principal, opts.sync == sync_mode::full});
  if (deferred)
    st->defer_instance(opts.instance, pid > 0, planned);
  if (own_sync) {
    // The migration and the registration above committed unsynced (with
    // neither, nothing was written).
    auto wal = std::make_shared<sqlite_wal_sync>(path, opts.sync_file);
    if (!planned || version < journal_schema_version)
      if (auto s = wal->sync(); std::holds_alternative<error>(s))
        return std::move(std::get<error>(s));
    // Checkpoints run off the journal's thread (the journal's
    // checkpointer): this connection only reports the WAL's size.
    sqlite3_wal_autocheckpoint(d, 0);
    sqlite3_wal_hook(d, &sqlite_wal_sync::on_commit, wal.get());
    st->keep_for_callbacks(wal);
    st->defer_sync(std::move(wal));
  }
  if ((rc = st->prepare_kept()) != SQLITE_OK)
    return sqlite_error(d, rc, "cannot prepare statements for the journal",
                        path);
  return store_ptr{std::move(st)};
}

} // namespace

result<store_ptr> open_sqlite(const sqlite_options& opts, dir_lock lock) {
  detail::route_sqlite_log();
  return guarded("cannot open the journal in", opts.dir,
                 [&] { return open_impl(opts, std::move(lock)); });
}

result<store_ptr> open_sqlite(const sqlite_options& opts) {
  auto lock = lock_data_dir(opts);
  if (auto* err = std::get_if<error>(&lock))
    return std::move(*err);
  return open_sqlite(opts, std::move(std::get<dir_lock>(lock)));
}

} // namespace ttm::storage
