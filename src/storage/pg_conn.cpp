#include "storage/pg_conn.hpp"

#include "log.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include <poll.h>

namespace ttm::storage {

namespace {

/// When shutdown asked waits to end (steady clock, ns; 0: not asked).
std::atomic<std::int64_t> stop_waiting_ns{0};

/// The SQLSTATE of a failed result ("" when none).
std::string state_of(const PGresult* r) {
  if (!r)
    return {};
  auto* s = PQresultErrorField(r, PG_DIAG_SQLSTATE);
  return s ? s : "";
}

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
           std::chrono::steady_clock::now().time_since_epoch())
    .count();
}

} // namespace

void stop_waiting_for_postgresql() {
  std::int64_t none = 0;
  stop_waiting_ns.compare_exchange_strong(none, steady_ns());
}

} // namespace ttm::storage

namespace ttm::storage::detail {

// -- parameters ---------------------------------------------------------------

pg_params& pg_params::add(const std::string& s) {
  values_.emplace_back(s);
  lengths_.push_back(static_cast<int>(s.size()));
  formats_.push_back(0);
  return *this;
}

pg_params& pg_params::add(std::int64_t v) {
  return add(std::to_string(v));
}

pg_params& pg_params::add(const std::optional<std::string>& s) {
  return s ? add(*s) : add_null();
}

pg_params& pg_params::add(const std::optional<std::int64_t>& v) {
  return v ? add(*v) : add_null();
}

pg_params& pg_params::add_null() {
  values_.emplace_back(std::nullopt);
  lengths_.push_back(0);
  formats_.push_back(0);
  return *this;
}

pg_params& pg_params::add_bytes(const std::string& b) {
  values_.emplace_back(b);
  lengths_.push_back(static_cast<int>(b.size()));
  formats_.push_back(1);
  return *this;
}

pg_params& pg_params::add_text_array(const std::vector<std::string>& items) {
  std::string lit = "{";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0)
      lit += ',';
    lit += '"';
    for (char c : items[i]) {
      if (c == '"' || c == '\\')
        lit += '\\';
      lit += c;
    }
    lit += '"';
  }
  lit += '}';
  return add(lit);
}

pg_params& pg_params::add_int_array(const std::vector<std::int64_t>& items) {
  std::string lit = "{";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0)
      lit += ',';
    lit += std::to_string(items[i]);
  }
  lit += '}';
  return add(lit);
}

std::vector<const char*> pg_params::pointers() const {
  std::vector<const char*> out;
  out.reserve(values_.size());
  for (const auto& v : values_)
    out.push_back(v ? v->data() : nullptr);
  return out;
}

std::int64_t pg_row::int64(int col) const {
  const auto* v = PQgetvalue(r, row, col);
  if (PQfformat(r, col) != 1)
    return std::strtoll(v, nullptr, 10);
  // Binary: big-endian two's complement of the column type's width.
  auto n = PQgetlength(r, row, col);
  std::uint64_t u = 0;
  for (int i = 0; i < n; ++i)
    u = (u << 8) | static_cast<unsigned char>(v[i]);
  if (n > 0 && n < 8 && (static_cast<unsigned char>(v[0]) & 0x80))
    u |= ~std::uint64_t{0} << (8 * n); // sign-extend
  return static_cast<std::int64_t>(u);
}

std::string pg_row::bytes(int col) const {
  if (PQfformat(r, col) == 1)
    return text(col);
  std::size_t n = 0;
  auto* raw = PQunescapeBytea(
    reinterpret_cast<const unsigned char*>(PQgetvalue(r, row, col)), &n);
  if (!raw)
    return {};
  std::string out{reinterpret_cast<const char*>(raw), n};
  PQfreemem(raw);
  return out;
}

// -- the connection -----------------------------------------------------------

std::string pg_describe(const std::string& conninfo) {
  if (conninfo.empty())
    return "postgresql (PG* environment)";
  // A URI without its password: postgresql://user:secret@host -> user@host.
  auto scheme = conninfo.find("://");
  if (scheme == std::string::npos)
    return "postgresql (connection string)";
  auto at = conninfo.find('@', scheme);
  auto colon = conninfo.find(':', scheme + 3);
  auto query = conninfo.find('?');
  std::string out = conninfo.substr(0, query);
  if (at != std::string::npos && colon != std::string::npos && colon < at)
    out = conninfo.substr(0, colon) + conninfo.substr(at, query - at);
  return out;
}

pg_conn::pg_conn(std::string conninfo, std::string schema, std::string where)
  : conninfo_(std::move(conninfo)),
    schema_(std::move(schema)),
    where_(std::move(where)) {
  // nop
}

pg_conn::~pg_conn() {
  drop();
}

void pg_conn::drop() {
  if (conn_)
    PQfinish(conn_);
  conn_ = nullptr;
}

std::optional<error> pg_conn::ensure(bool* fresh) {
  if (fresh)
    *fresh = false;
  if (conn_ && PQstatus(conn_) == CONNECTION_OK)
    return std::nullopt;
  drop();
  // Bounded: a server that does not answer makes the call fail (and the
  // next one try again), never hang the journal's thread.
  const char* keys[] = {"dbname",        "connect_timeout", "application_name",
                        "keepalives_idle", "keepalives_interval",
                        "keepalives_count", "tcp_user_timeout", nullptr};
  const char* values[] = {conninfo_.c_str(), "5", "time-tracker-mcp", "10",
                          "5", "3", "10000", nullptr};
  conn_ = PQconnectdbParams(keys, values, 1);
  if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
    std::string why = conn_ ? PQerrorMessage(conn_) : "out of memory";
    while (!why.empty() && (why.back() == '\n' || why.back() == ' '))
      why.pop_back();
    drop();
    return error{error_kind::io, "journal " + where_
                                   + ": cannot connect to PostgreSQL ("
                                   + why + "); the next call tries again"};
  }
  ++connects_;
  if (fresh)
    *fresh = true;
  // A statement waits for other nodes' row locks at most this long (then
  // `busy`, as SQLite's busy timeout).
  // No JIT: the statements are short, and a plan estimated dear (a join
  // the executor never runs) made PostgreSQL compile one for ~100 ms.
  std::string setup = "SET lock_timeout = '2s'; SET client_min_messages"
                      " = warning; SET jit = off";
  if (!schema_.empty()) {
    char* quoted = PQescapeIdentifier(conn_, schema_.c_str(), schema_.size());
    setup += std::string{"; CREATE SCHEMA IF NOT EXISTS "} + quoted
             + "; SET search_path = " + quoted;
    PQfreemem(quoted);
  }
  if (auto err = run(setup, "cannot set up the connection to"))
    return err;
  return std::nullopt;
}

error pg_conn::fail(const PGresult* r, const std::string& what) {
  std::string why = r ? PQresultErrorMessage(r) : "";
  if (why.empty() && conn_)
    why = PQerrorMessage(conn_);
  while (!why.empty() && (why.back() == '\n' || why.back() == ' '))
    why.pop_back();
  auto state = state_of(r);
  last_state_ = state;
  auto kind = error_kind::io;
  if (state == "40001" || state == "40P01" || state == "55P03"
      || state == "57014" || state == "53300")
    kind = error_kind::busy;
  else if (state == "53100")
    kind = error_kind::full;
  else if (state == "25006")
    kind = error_kind::read_only;
  bool lost = !conn_ || PQstatus(conn_) != CONNECTION_OK
              || state.rfind("08", 0) == 0 || state.rfind("57P", 0) == 0;
  if (lost) {
    // The server went away (restart, network): the next call reconnects.
    drop();
    return error{error_kind::io,
                 what + " " + where_ + ": the connection to PostgreSQL was"
                   " lost (" + why + "); the next call reconnects"};
  }
  return error{kind, what + " " + where_ + ": " + why};
}

std::optional<error> pg_conn::await_result(const std::string& what) {
  // libpq's own wait (PQgetResult) polls with no timeout: a server that
  // stops answering but whose kernel still acknowledges (stopped, hung on
  // its disk) would hold the journal's thread, and with it ~actor_system
  // at shutdown, for ever. So wait here in slices; once shutdown asked
  // (stop_waiting_for_postgresql) and its grace is over, give up.
  constexpr int slice_ms = 250;
  constexpr std::int64_t grace_ns = 5'000'000'000;
  while (PQisBusy(conn_)) {
    pollfd p{PQsocket(conn_), POLLIN, 0};
    int n = ::poll(&p, 1, slice_ms);
    if (n < 0 && errno != EINTR)
      return std::nullopt; // PQgetResult reports the broken socket
    if (n > 0 && PQconsumeInput(conn_) == 0)
      return std::nullopt; // likewise a read that failed
    auto asked = stop_waiting_ns.load();
    if (asked != 0 && steady_ns() - asked > grace_ns) {
      drop(); // the statement's fate is the server's; this connection is done
      return error{error_kind::io, what + " " + where_
                                     + ": PostgreSQL did not answer before"
                                       " shutdown; the connection was closed"};
    }
  }
  return std::nullopt;
}

result<pg_res> pg_conn::finish(const std::string& what) {
  // As PQexec: every result until none; the first error, else the last.
  pg_res kept;
  bool failed = false;
  while (true) {
    if (auto err = await_result(what))
      return std::move(*err);
    pg_res r{PQgetResult(conn_)};
    if (!r)
      break;
    auto status = PQresultStatus(r.get());
    bool ok = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
    if (!failed) {
      kept = std::move(r);
      failed = !ok;
    }
  }
  if (kept && !failed)
    return kept;
  return fail(kept.get(), what);
}

result<pg_res> pg_conn::exec(const std::string& sql, const pg_params& params,
                             const std::string& what) {
  if (auto err = ensure())
    return std::move(*err);
  auto ptrs = params.pointers();
  if (PQsendQueryParams(conn_, sql.c_str(), params.size(), nullptr,
                        ptrs.data(), params.lengths().data(),
                        params.formats().data(), params.result_format())
      != 1)
    return fail(nullptr, what);
  return finish(what);
}

std::optional<error> pg_conn::query(const std::string& sql,
                                    const pg_params& params,
                                    const std::string& what, pg_rows* rows) {
  auto r = exec(sql, params, what);
  if (auto* err = std::get_if<error>(&r))
    return std::move(*err);
  if (rows)
    *rows = pg_rows{std::move(std::get<pg_res>(r))};
  return std::nullopt;
}

std::int64_t pg_rows::affected() const {
  return res_ ? std::strtoll(PQcmdTuples(res_.get()), nullptr, 10) : 0;
}

std::optional<error> pg_conn::run(const std::string& sql,
                                  const std::string& what) {
  if (!conn_)
    if (auto err = ensure())
      return err;
  if (PQsendQuery(conn_, sql.c_str()) != 1)
    return fail(nullptr, what);
  auto r = finish(what);
  if (auto* err = std::get_if<error>(&r))
    return std::move(*err);
  return std::nullopt;
}

result<std::vector<pg_res>> pg_conn::pipeline(
  const std::vector<std::pair<std::string, pg_params>>& statements,
  const std::string& what) {
  std::size_t i = 0;
  std::vector<pg_res> out;
  auto err = stream(
    [&]() -> std::optional<statement> {
      if (i == statements.size())
        return std::nullopt;
      return statements[i++];
    },
    [&](pg_res r) { out.push_back(std::move(r)); }, statements.size(), what);
  if (err)
    return std::move(*err);
  return out;
}

std::optional<error>
pg_conn::stream(const std::function<std::optional<statement>()>& next,
                const std::function<void(pg_res)>& on_result,
                std::size_t ahead, const std::string& what) {
  if (auto err = ensure())
    return err;
  if (PQenterPipelineMode(conn_) != 1)
    return fail(nullptr, what);
  std::size_t sent = 0;
  std::size_t answered = 0;
  bool last_sent = false;
  std::optional<error> first;
  // Sends statements until `ahead` await their results, then asks the
  // server to flush what it has (else the tail of a result could wait in
  // its buffer for the next statement); the sync after the last one.
  auto send = [&]() -> bool {
    while (!last_sent && !first && sent - answered < ahead) {
      auto st = next();
      if (!st) {
        last_sent = true;
        break;
      }
      auto ptrs = st->second.pointers();
      if (PQsendQueryParams(conn_, st->first.c_str(), st->second.size(),
                            nullptr, ptrs.data(),
                            st->second.lengths().data(),
                            st->second.formats().data(),
                            st->second.result_format())
          != 1)
        return false;
      ++sent;
    }
    if (first)
      last_sent = true;
    if (last_sent)
      return PQpipelineSync(conn_) == 1;
    return PQsendFlushRequest(conn_) == 1 && PQflush(conn_) == 0;
  };
  if (!send()) {
    auto err = fail(nullptr, what);
    drop(); // a half-sent pipeline: start over on a new connection
    return err;
  }
  // Each statement's result then a null; aborted ones report
  // PGRES_PIPELINE_ABORTED; the sync's result ends it.
  while (true) {
    if (auto err = await_result(what))
      return err;
    pg_res r{PQgetResult(conn_)};
    if (!r) {
      if (PQstatus(conn_) != CONNECTION_OK) {
        if (!first)
          first = fail(nullptr, what);
        break;
      }
      continue;
    }
    auto status = PQresultStatus(r.get());
    if (status == PGRES_PIPELINE_SYNC)
      break;
    ++answered;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
      if (!first)
        on_result(std::move(r));
    } else if (status != PGRES_PIPELINE_ABORTED && !first)
      first = fail(r.get(), what);
    if (!conn_)
      break; // the failure was the connection's (fail dropped it)
    if (!last_sent && !send()) {
      auto err = first ? std::move(*first) : fail(nullptr, what);
      drop();
      return err;
    }
  }
  if (conn_)
    PQexitPipelineMode(conn_);
  return first;
}

void pg_conn::rollback_if_open() {
  if (conn_ && PQtransactionStatus(conn_) != PQTRANS_IDLE
      && PQstatus(conn_) == CONNECTION_OK)
    if (PQsendQuery(conn_, "ROLLBACK") == 1)
      (void)finish("cannot roll back");
}

} // namespace ttm::storage::detail
