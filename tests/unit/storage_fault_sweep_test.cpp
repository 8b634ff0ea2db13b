// Issue 34 item 3: injected storage faults, swept. A mixed workload runs
// through the MCP session and the real SQLite store, as a client of the
// server sees it; the store's files go through fault_vfs. A clean run counts
// the calls of each kind (the injection points); then, for every kind and
// every N, the workload runs again with the Nth call of that kind failing
// (once, and again sticky: every later call of the kind fails too until
// that step is over), and after the call it hit the rule is checked:
//  - the call answers STORAGE_UNAVAILABLE (a tool error), or it succeeds
//    with the very reply of the clean run (SQLite absorbed the fault);
//    never a crash, a protocol error or another answer;
//  - the journal holds exactly what was acknowledged: read through another
//    connection, and from a crash image (the database and its WAL copied
//    without the WAL index, as a power cut or kill -9 leaves them);
//  - the fault cleared, the refused call is retried and succeeds, and the
//    rest of the workload runs as in the clean run;
//  - at the end, the store reopened fresh (no fault VFS) holds exactly the
//    clean run's journal, and a new client reads the clean run's summary.
// An open (the first, and a restart mid-way) is a step too: a fault there
// fails the open with a storage error, and the next open works.
//
// Run alone: unit_tests "[fault_sweep]" (TTM_FAULT_SWEEP_LOG=1 prints each
// kind's injection points and runs).

#include "domain/clock.hpp"
#include "domain/tracking.hpp"
#include "fault_vfs.hpp"
#include "journaled_client.hpp"
#include "session_client.hpp"
#include "test_json.hpp"

#include "log.hpp"
#include "storage/sqlite_store.hpp"

#include <catch2/catch.hpp>
#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace ttm;
using namespace std::chrono_literals;
using namespace ttm::test::session_client;
using ttm::test::str;
using ttm::test::to_json;
namespace fs = std::filesystem;
namespace fv = ttm::test::fault_vfs;

namespace {

/// The server's log of the current run: shown with a failure, not on
/// stderr (a thousand runs of expected errors).
std::string run_log;

void keep_log(log::level, std::string_view where, std::string_view msg,
              const log::fields&) {
  if (run_log.size() < 16384)
    run_log.append(where).append(": ").append(msg).append("\n");
}

/// Sends the log to run_log while it lives.
struct log_capture {
  log::sink_fn before = log::set_sink(keep_log);
  ~log_capture() {
    log::set_sink(before);
  }
};

/// A directory on tmpfs when there is one: the sweep syncs thousands of
/// times, and a disk's fsync costs wall time, not what is tested here.
class sweep_dir {
public:
  sweep_dir() {
    std::error_code ec;
    fs::path base = fs::is_directory("/dev/shm", ec) ? fs::path{"/dev/shm"}
                                                     : fs::temp_directory_path();
    std::string tmpl = (base / "ttm-faults-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path_ = tmpl;
  }
  ~sweep_dir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  sweep_dir(const sweep_dir&) = delete;
  sweep_dir& operator=(const sweep_dir&) = delete;
  const fs::path& path() const {
    return path_;
  }

private:
  fs::path path_;
};

/// Rows of one query on a journal file, through the default VFS, as lines.
std::string rows_of(const std::string& file, const std::string& sql,
                    int flags = SQLITE_OPEN_READONLY) {
  sqlite3* db = nullptr;
  auto rc = sqlite3_open_v2(file.c_str(), &db, flags, nullptr);
  std::string out;
  if (rc == SQLITE_OK) {
    sqlite3_busy_timeout(db, 2000);
    auto cb = [](void* o, int n, char** v, char**) {
      auto& s = *static_cast<std::string*>(o);
      for (int i = 0; i < n; ++i)
        s += (i ? "|" : "") + std::string{v[i] ? v[i] : "NULL"};
      s += '\n';
      return 0;
    };
    char* err = nullptr;
    rc = sqlite3_exec(db, sql.c_str(), cb, &out, &err);
    if (rc != SQLITE_OK)
      out = "error " + std::to_string(rc) + ": " + (err ? err : "");
    sqlite3_free(err);
  } else {
    out = "cannot open: " + std::to_string(rc);
  }
  sqlite3_close_v2(db);
  return out;
}

/// A journal whose first open failed before it had its tables holds
/// nothing either.
std::string no_schema_is_empty(std::string rows) {
  return rows.rfind("error 1: no such ", 0) == 0 ? "" : rows;
}

/// What the journal holds, without what differs between runs (random
/// session ids, instance numbers, epochs, recorded activity).
const char* journal_sql
  = "SELECT s.milestone_id, s.state, s.tasks_total, e.kind, e.task_id,"
    " e.wall_ns, e.payload, e.undone_by IS NOT NULL FROM events e"
    " JOIN sessions s ON s.sid = e.sid ORDER BY e.seq";

std::string journal_of(const fs::path& data) {
  auto file = data / "journal.sqlite3";
  if (!fs::exists(file))
    return "";
  return no_schema_is_empty(rows_of(file.string(), journal_sql));
}

/// The journal as a power cut or kill -9 now would leave it: the database
/// and its WAL, recovered by a new connection without the WAL index.
std::string crash_image_of(const fs::path& data, const fs::path& scratch) {
  std::error_code ec;
  fs::remove_all(scratch, ec);
  fs::create_directories(scratch);
  auto file = data / "journal.sqlite3";
  if (!fs::exists(file))
    return "";
  fs::copy_file(file, scratch / "journal.sqlite3");
  if (fs::exists(data / "journal.sqlite3-wal"))
    fs::copy_file(data / "journal.sqlite3-wal",
                  scratch / "journal.sqlite3-wal");
  if (fs::file_size(scratch / "journal.sqlite3") == 0)
    return "";
  return no_schema_is_empty(rows_of((scratch / "journal.sqlite3").string(),
                                    journal_sql, SQLITE_OPEN_READWRITE));
}

/// One call's outcome as the client sees it.
struct answer {
  bool is_error = false;
  std::string code;  ///< error_code of a tool error
  std::string reply; ///< the structuredContent, the session id replaced
  std::string raw;   ///< the whole JSON-RPC response
};

std::string replace_all(std::string s, const std::string& from,
                        const std::string& to) {
  if (from.empty())
    return s;
  for (auto at = s.find(from); at != std::string::npos;
       at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

/// The server as the workload sees it: a store (through the fault VFS) and
/// an MCP session on it; a restart is a new store and a new session.
struct server {
  fs::path data;
  std::shared_ptr<domain::fake_clock> clock;
  storage::store_ptr store{};
  std::unique_ptr<journaled> client{};
  std::string sid{}; ///< the workload's session, once started
  int ids = 100;

  server(fs::path d, std::shared_ptr<domain::fake_clock> c)
    : data(std::move(d)), clock(std::move(c)) {
    // nop
  }

  storage::sqlite_options options(bool faulty) const {
    storage::sqlite_options o;
    o.dir = data.string();
    o.sync = storage::sync_mode::full;
    o.instance = "fault_sweep";
    if (faulty)
      o.vfs = fv::name();
    return o;
  }

  /// Opens the store and a new client on it; the error, if it failed.
  std::optional<storage::error> open(bool faulty = true) {
    client.reset();
    store.reset();
    auto r = storage::open_sqlite(options(faulty));
    if (auto* e = std::get_if<storage::error>(&r))
      return *e;
    store = std::move(std::get<storage::store_ptr>(r));
    client = std::make_unique<journaled>(clock, *store, "alice");
    return std::nullopt;
  }

  answer call(const std::string& tool, const std::string& args) {
    auto res = client->run(tools_call(tool, args, std::to_string(++ids)));
    answer a;
    a.raw = to_json(res);
    INFO(tool << " " << args << " -> " << a.raw);
    REQUIRE(res.HasMember("result")); // a tool result, never a protocol error
    auto r = check_tool_result(res["result"], *client->registry, tool);
    a.is_error = r.is_error;
    if (r.is_error)
      a.code = str(r.sc["error_code"]);
    a.reply = to_json(r.sc);
    if (tool == "time_session_start" && !r.is_error)
      sid = str(r.sc["session_id"]);
    a.reply = replace_all(a.reply, sid, "<sid>");
    return a;
  }
};

/// One step of the workload: a tool call, or (empty tool) an open.
struct step {
  std::string tool;
  std::function<std::string(const server&)> args;
};

std::vector<step> workload() {
  auto sa = [](const server& s) { return session_args(s.sid); };
  auto ta = [](const std::string& t) {
    return [t](const server& s) { return task_args(s.sid, t); };
  };
  auto fixed = [](const std::string& a) {
    return [a](const server&) { return a; };
  };
  return {
    {"", nullptr}, // the first open: creates the journal
    {"time_session_start",
     fixed(R"({"milestone_id":"M-faults","milestone_name":"Faults",)"
           R"("task_ids":["a","b"],"tags":["x"],"idempotency_key":"k-1"})")},
    {"time_task_start", ta("a")},
    {"time_task_end", ta("a")},
    {"time_tasks_edit",
     [](const server& s) {
       return edit_args(s.sid, R"([{"op":"start","task_id":"b"},
                                   {"op":"add","task_id":"c"},
                                   {"op":"note","task_id":"b","text":"n"}])");
     }},
    {"time_undo", sa},
    {"", nullptr}, // a restart: a new server process on the directory
    {"time_task_start", ta("b")},
    {"time_session_end", sa},
    {"time_session_list", fixed("{}")},
    {"time_undo", sa}, // reopens the session
    {"time_tasks_edit",
     [](const server& s) {
       return edit_args(s.sid, R"([{"op":"end","task_id":"b"},
                                   {"op":"add","task_id":"d"}])");
     }},
    {"time_session_end", sa},
    {"time_session_summary",
     [](const server& s) { return summary_args(s.sid); }},
  };
}

/// What the clean run saw: each step's answer and the journal after it.
struct reference {
  std::vector<answer> answers;
  std::vector<std::string> journals;
  std::string summary; ///< a fresh server's summary at the end
  fv::counts points{};
};

/// A fresh server's view at the end: the store reopened without the fault
/// VFS, the session's summary read by a new client.
std::string final_summary(server& s) {
  auto e = s.open(false);
  INFO((e ? e->message : ""));
  REQUIRE_FALSE(e);
  auto a = s.call("time_session_summary", summary_args(s.sid));
  REQUIRE_FALSE(a.is_error);
  return a.reply;
}

reference clean_run() {
  sweep_dir dir;
  server s{dir.path() / "data",
           std::make_shared<domain::fake_clock>(example_start())};
  reference ref;
  fv::reset();
  for (const auto& st : workload()) {
    s.clock->advance(17s);
    if (st.tool.empty()) {
      auto e = s.open();
      INFO((e ? e->message : ""));
      REQUIRE_FALSE(e);
      ref.answers.push_back({});
    } else {
      auto a = s.call(st.tool, st.args(s));
      INFO(a.raw);
      REQUIRE_FALSE(a.is_error);
      ref.answers.push_back(a);
    }
    ref.journals.push_back(journal_of(s.data));
  }
  ref.points = fv::counted();
  ref.summary = final_summary(s);
  return ref;
}

struct fault {
  fv::kind kind;
  int code;
  const char* label;
};

/// What one faulted run found: where the fault hit and what it did.
struct outcome {
  bool fired = false;
  bool refused = false;
};

/// Runs the workload with `f` at the `nth` call of its kind (`sticky`: and
/// every later one, until the step it hits is over), checking the rule at
/// that step and at the end.
outcome faulted_run(const reference& ref, const fault& f, std::uint64_t nth,
                    bool sticky) {
  sweep_dir dir;
  server s{dir.path() / "data",
           std::make_shared<domain::fake_clock>(example_start())};
  auto steps = workload();
  outcome out;
  run_log.clear();
  fv::reset();
  fv::disarm_at_exit disarm;
  fv::arm(f.kind, nth, f.code, sticky);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto& st = steps[i];
    INFO("fault " << f.label << (sticky ? " from" : " at") << " call " << nth
                  << " of " << fv::to_string(f.kind) << "; step " << i << " "
                  << (st.tool.empty() ? "open" : st.tool));
    s.clock->advance(17s);
    bool before = fv::fired() > 0;
    std::optional<storage::error> open_error;
    answer a;
    if (st.tool.empty())
      open_error = s.open();
    else
      a = s.call(st.tool, st.args(s));
    bool hit = !before && fv::fired() > 0;
    if (!hit) {
      // Untouched by the fault: exactly the clean run.
      INFO(a.raw << (open_error ? open_error->message : ""));
      REQUIRE_FALSE(open_error);
      CHECK(a.reply == ref.answers[i].reply);
      continue;
    }
    out.fired = true;
    INFO("the server's log:\n" << run_log);
    const auto& acked = i > 0 ? ref.journals[i - 1] : std::string{};
    bool refused = open_error || a.is_error;
    out.refused = refused;
    if (open_error) {
      // Refused, with a reason, naming where.
      INFO(open_error->message);
      CHECK(open_error->kind != storage::error_kind::rejected);
      CHECK(open_error->message.find(s.data.string()) != std::string::npos);
    } else if (a.is_error) {
      INFO(a.raw);
      CHECK(a.code == "STORAGE_UNAVAILABLE");
    } else {
      INFO(a.raw);
      CHECK(a.reply == ref.answers[i].reply);
    }
    // Exactly what was acknowledged, now and after a crash now.
    const auto& want = refused ? acked : ref.journals[i];
    CHECK(journal_of(s.data) == want);
    CHECK(crash_image_of(s.data, dir.path() / "crash") == want);
    fv::disarm();
    if (refused) {
      // The fault cleared: the same call (or open) now works.
      if (st.tool.empty()) {
        auto e = s.open();
        INFO("the open after the fault: " << (e ? e->message : ""));
        REQUIRE_FALSE(e);
      } else {
        auto again = s.call(st.tool, st.args(s));
        INFO("the retry: " << again.raw);
        CHECK(again.reply == ref.answers[i].reply);
      }
      CHECK(journal_of(s.data) == ref.journals[i]);
    }
  }
  CHECK(journal_of(s.data) == ref.journals.back());
  CHECK(final_summary(s) == ref.summary);
  return out;
}

} // namespace

TEST_CASE("storage faults: every write, sync, lock, WAL-index map and lock, "
          "truncate and read of a mixed workload fails in turn: "
          "STORAGE_UNAVAILABLE, nothing acknowledged lost, nothing refused "
          "kept, recovery",
          "[fault_sweep][storage][issue34]") {
  auto started = std::clock();
  log_capture quiet;
  auto ref = clean_run();
  const std::vector<fault> faults{
    {fv::kind::write, SQLITE_IOERR_WRITE, "IOERR_WRITE"},
    {fv::kind::write, SQLITE_FULL, "FULL"},
    {fv::kind::sync, SQLITE_IOERR_FSYNC, "IOERR_FSYNC"},
    {fv::kind::lock, SQLITE_IOERR_LOCK, "IOERR_LOCK"},
    {fv::kind::lock, SQLITE_BUSY, "BUSY"},
    {fv::kind::shm_map, SQLITE_IOERR_SHMMAP, "IOERR_SHMMAP"},
    {fv::kind::shm_lock, SQLITE_IOERR_SHMLOCK, "IOERR_SHMLOCK"},
    {fv::kind::shm_lock, SQLITE_BUSY, "BUSY"},
    {fv::kind::truncate, SQLITE_IOERR_TRUNCATE, "IOERR_TRUNCATE"},
    {fv::kind::read, SQLITE_IOERR_READ, "IOERR_READ"},
  };
  bool log = std::getenv("TTM_FAULT_SWEEP_LOG") != nullptr;
  std::size_t runs = 0;
  for (std::size_t k = 0; k < fv::kinds; ++k)
    if (log)
      std::cerr << "fault sweep: " << ref.points[k] << " "
                << fv::to_string(static_cast<fv::kind>(k)) << " calls\n";
  // Once (the fault clears by itself), then sticky (every later call of
  // the kind fails too until the step is over: a disk gone bad, then
  // fixed). A sticky BUSY is a lock someone holds: the busy handler waits
  // its 2 s each time, which storage_shared_test covers.
  for (bool sticky : {false, true})
    for (const auto& f : faults) {
      if (sticky && f.code == SQLITE_BUSY)
        continue;
      auto points = ref.points[static_cast<std::size_t>(f.kind)];
      std::size_t refused = 0;
      for (std::uint64_t n = 1; n <= points; ++n) {
        auto o = faulted_run(ref, f, n, sticky);
        ++runs;
        INFO(fv::to_string(f.kind) << " " << f.label << " at " << n);
        CHECK(o.fired); // the clean run's count is every run's
        refused += o.refused ? 1 : 0;
      }
      if (log)
        std::cerr << "fault sweep: " << fv::to_string(f.kind) << " -> "
                  << f.label << (sticky ? " (sticky)" : "") << ": " << points
                  << " runs, " << refused << " refused\n";
    }
  if (log)
    std::cerr << "fault sweep: " << runs << " runs in "
              << (std::clock() - started) / (CLOCKS_PER_SEC / 1000)
              << " ms of CPU\n";
  CHECK(runs > 0);
}
