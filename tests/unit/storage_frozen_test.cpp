// Unit tests for src/storage, issue 34 item 7: a process stopped inside a
// write transaction (SIGSTOP, a debugger) holds the journal's write lock.
// Here a forked child takes it (BEGIN IMMEDIATE and a write) and waits,
// as a stopped server would: reads and a new store's opening go on, writes
// fail as busy naming the child's pid, quickly after the first; once it is
// gone, everything writes again.

#include "storage_fixture.hpp"

#include <csignal>

namespace {

/// A child process holding the write lock of `journal` until killed.
class lock_holder {
public:
  explicit lock_holder(const std::string& journal) {
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      ::close(ready[0]);
      sqlite3* db = nullptr;
      if (sqlite3_open_v2(journal.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr)
            != SQLITE_OK
          || sqlite3_exec(db,
                          "BEGIN IMMEDIATE; UPDATE meta SET value = value"
                          " WHERE key = 'instances'",
                          nullptr, nullptr, nullptr)
               != SQLITE_OK)
        ::_exit(1);
      char c = 1;
      if (::write(ready[1], &c, 1) != 1)
        ::_exit(1);
      for (;;)
        ::pause();
    }
    ::close(ready[1]);
    char c = 0;
    auto n = ::read(ready[0], &c, 1);
    ::close(ready[0]);
    REQUIRE(n == 1);
  }
  ~lock_holder() {
    release();
  }
  lock_holder(const lock_holder&) = delete;
  lock_holder& operator=(const lock_holder&) = delete;

  pid_t pid() const {
    return pid_;
  }

  /// Ends the child: its transaction is rolled back, the lock is free.
  void release() {
    if (pid_ <= 0)
      return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

private:
  pid_t pid_ = -1;
};

using std::chrono::steady_clock;

double ms_since(steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(steady_clock::now() - t)
    .count();
}

} // namespace

TEST_CASE("storage: a process stuck inside a write blocks only writes, which "
          "name its pid, reads and a new store's opening go on",
          "[storage][frozen]") {
  temp_dir tmp;
  auto a = must_open(tmp.data());
  must_append(*a, {started("A1", t0),
                   at_epoch(task(event_kind::task_started, "A1", "T1",
                                 t0 + 1),
                            1)});
  lock_holder stuck{tmp.journal()};
  const auto pid = std::to_string(stuck.pid());

  // Reads: at once, from the snapshot.
  auto t = steady_clock::now();
  auto loaded = must(a->claim(local_claim("A1")));
  CHECK(loaded.outcome == claim_result::loaded);
  CHECK(loaded.session.events.size() == 2);
  CHECK(must(a->history({})).size() == 1);
  list_query q;
  q.principal = "local";
  q.scope = "2025";
  CHECK(must(a->list(q)).rows.size() == 1);
  principal_op read;
  read.principal = "local";
  must(a->principal(read));
  CHECK(must(a->stale({{"A1", 2}})).empty());
  CHECK(ms_since(t) < 500);

  // The first write waits the busy timeout and names the holder.
  auto w = a->append(
    {at_epoch(task(event_kind::task_ended, "A1", "T1", t0 + 2), 2)});
  auto e = must_fail(w, error_kind::busy, tmp.journal());
  CHECK(e.holder_pid == stuck.pid());
  CHECK(contains(e.message, "process " + pid
                              + " holds the journal's write lock"));
  // The next ones fail fast, and so does the activity a claim records.
  t = steady_clock::now();
  e = must_fail(
    a->append({at_epoch(task(event_kind::task_ended, "A1", "T1", t0 + 3), 2)}),
    error_kind::busy, tmp.journal());
  CHECK(e.holder_pid == stuck.pid());
  auto touch = local_claim("A1", 2);
  touch.now_wall_ns = t0 + 3'600'000'000'000; // due to record activity
  CHECK(must(a->claim(touch)).outcome == claim_result::current);
  CHECK(ms_since(t) < 1000);

  // A new store opens (its registration is deferred), reads, cannot write.
  auto b = must_open(tmp.data());
  CHECK(b->instance() == 0);
  CHECK(must(b->claim(local_claim("A1"))).session.events.size() == 2);
  e = must_fail(b->append({started("B1", t0 + 4)}), error_kind::busy,
                tmp.journal());
  CHECK(e.holder_pid == stuck.pid());

  // The holder is gone: both write again, the new store registers.
  stuck.release();
  must_append(*a,
              {at_epoch(task(event_kind::task_ended, "A1", "T1", t0 + 5), 2)});
  must_append(*b, {started("B1", t0 + 6)});
  CHECK(b->instance() > a->instance());
  CHECK(count(tmp.journal(), "SELECT count(*) FROM events") == 4);
  CHECK(column_of(tmp.journal(), "holder", "B1") == b->instance());
}

TEST_CASE("storage: a store that registers at its first write opens and "
          "reads without writing anything, and its first write registers it",
          "[storage][frozen]") {
  if (pg_uri())
    return; // an option of the SQLite store
  temp_dir tmp;
  auto a = must_open(tmp.data());
  must_append(*a, {started("A1", t0)});
  a.reset(); // the last connection: checkpointed, the WAL emptied
  auto opts = options_for(tmp.data());
  opts.register_at_first_write = true;
  auto b = must_open(opts);
  CHECK(b->instance() == 0);
  principal_op read;
  read.principal = "local";
  must(b->principal(read));
  CHECK(must(b->history({})).size() == 1);
  // Nothing was written: no WAL frame, the registration count unchanged.
  struct stat wal {};
  auto wal_path = tmp.journal() + "-wal";
  CHECK((::stat(wal_path.c_str(), &wal) != 0 || wal.st_size == 0));
  must_append(*b, {started("B1", t0 + 1)});
  CHECK(b->instance() == 2);
  CHECK(column_of(tmp.journal(), "holder", "B1") == 2);
}
