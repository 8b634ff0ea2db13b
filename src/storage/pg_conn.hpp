#pragma once

// A libpq connection as the PostgreSQL store uses it: text parameters and
// results (binary results where a statement asks: pg_params::binary),
// errors mapped to storage errors, and a connection that broke
// (server restarted, network) dropped so that the next call reconnects.
// Internal to src/storage.

#include "storage/store.hpp"

#include <libpq-fe.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::storage::detail {

struct pg_result_free {
  void operator()(PGresult* r) const {
    PQclear(r);
  }
};
using pg_res = std::unique_ptr<PGresult, pg_result_free>;

/// A query's parameters, in order ($1, $2, ...): text, or NULL, or bytes.
class pg_params {
public:
  pg_params& add(const std::string& s);
  pg_params& add(const char* s) {
    return add(std::string{s});
  }
  pg_params& add(std::int64_t v);
  pg_params& add(const std::optional<std::string>& s);
  pg_params& add(const std::optional<std::int64_t>& v);
  pg_params& add_null();
  /// Binary (bytea).
  pg_params& add_bytes(const std::string& b);
  /// A text[] literal of `items`.
  pg_params& add_text_array(const std::vector<std::string>& items);
  /// A bigint[] literal.
  pg_params& add_int_array(const std::vector<std::int64_t>& items);

  /// The statement's rows in binary format (a bytea as its bytes, not
  /// hex text: half the wire and no unescaping; pg_row reads either).
  pg_params& binary() {
    result_format_ = 1;
    return *this;
  }
  int result_format() const {
    return result_format_;
  }

  int size() const {
    return static_cast<int>(values_.size());
  }
  std::vector<const char*> pointers() const;
  const std::vector<int>& lengths() const {
    return lengths_;
  }
  const std::vector<int>& formats() const {
    return formats_;
  }

private:
  std::vector<std::optional<std::string>> values_;
  std::vector<int> lengths_;
  std::vector<int> formats_;
  int result_format_ = 0;
};

/// Reads a result's cells, in text or binary format (PQfformat): a text
/// column's bytes are the same in both.
struct pg_row {
  const PGresult* r;
  int row;
  bool null(int col) const {
    return PQgetisnull(r, row, col) != 0;
  }
  std::string text(int col) const {
    return std::string{view(col)};
  }
  /// A text or (binary format) bytea cell's bytes, valid while the result.
  std::string_view view(int col) const {
    return {PQgetvalue(r, row, col),
            static_cast<std::size_t>(PQgetlength(r, row, col))};
  }
  /// A smallint, integer or bigint.
  std::int64_t int64(int col) const;
  bool boolean(int col) const {
    auto* v = PQgetvalue(r, row, col);
    if (PQfformat(r, col) == 1)
      return PQgetlength(r, row, col) == 1 && v[0] != 0;
    return v && v[0] == 't';
  }
  /// A bytea column (text format: hex, unescaped; binary: its bytes).
  std::string bytes(int col) const;
};

inline int rows_of(const pg_res& r) {
  return PQntuples(r.get());
}

/// A statement's rows, read by index (none before a statement set them).
class pg_rows {
public:
  pg_rows() = default;
  explicit pg_rows(pg_res r) : res_(std::move(r)) {
  }
  int size() const {
    return res_ ? PQntuples(res_.get()) : 0;
  }
  bool empty() const {
    return size() == 0;
  }
  pg_row operator[](int i) const {
    return pg_row{res_.get(), i};
  }
  /// The rows an INSERT, UPDATE or DELETE touched.
  std::int64_t affected() const;

private:
  pg_res res_;
};

class pg_conn {
public:
  /// `conninfo`: a libpq URI or key=value string ("" for the PG*
  /// environment); `schema`: the search_path to set ("" for the default);
  /// `where`: what error messages name ("postgresql://host:port/db").
  pg_conn(std::string conninfo, std::string schema, std::string where);
  ~pg_conn();
  pg_conn(const pg_conn&) = delete;
  pg_conn& operator=(const pg_conn&) = delete;

  /// Connects if not connected (again after a loss); the error says why
  /// not. `fresh`: set when this call made a new connection.
  std::optional<error> ensure(bool* fresh = nullptr);
  bool connected() const {
    return conn_ != nullptr;
  }
  PGconn* raw() const {
    return conn_;
  }
  /// How many times a connection was made (1 after the first).
  std::uint64_t connects() const {
    return connects_;
  }

  /// Runs one statement; its rows in `*rows` (when given), or the error
  /// (`what`: "cannot append to the journal"). The one way to run a
  /// statement: `if (auto err = conn_.query(...)) return std::move(*err);`
  std::optional<error> query(const std::string& sql, const pg_params& params,
                             const std::string& what,
                             pg_rows* rows = nullptr);
  /// As `query`, the result itself (the callers not moved to `query` yet).
  result<pg_res> exec(const std::string& sql, const pg_params& params,
                      const std::string& what);
  result<pg_res> exec(const std::string& sql, const std::string& what) {
    return exec(sql, pg_params{}, what);
  }
  /// Runs statements without parameters (several, ';'-separated).
  std::optional<error> run(const std::string& sql, const std::string& what);

  /// The SQLSTATE of the last failure ("" when none).
  const std::string& last_state() const {
    return last_state_;
  }

  /// Closes the connection (the next `ensure` opens a new one).
  void drop();
  /// Rolls back an open transaction, if any (after a failure).
  void rollback_if_open();

  /// Pipeline mode (libpq 14+): sends every statement (each with its
  /// parameters) without waiting, one sync at the end, then reads every
  /// result: one round trip for a whole batch. A statement that fails
  /// aborts the rest (and their transaction); its error is returned.
  result<std::vector<pg_res>>
  pipeline(const std::vector<std::pair<std::string, pg_params>>& statements,
           const std::string& what);

  using statement = std::pair<std::string, pg_params>;
  /// Pipeline mode with the statements made as results come back: `next`
  /// gives the next statement (none: that was the last), asked for while
  /// fewer than `ahead` sent ones await their results; `on_result` takes
  /// each statement's result, in order, as soon as it has arrived (the
  /// server works on the next ones meanwhile). One sync at the end. A
  /// statement that fails aborts the rest (and their transaction), no
  /// further one is asked for, and its error is returned.
  std::optional<error> stream(const std::function<std::optional<statement>()>& next,
                              const std::function<void(pg_res)>& on_result,
                              std::size_t ahead, const std::string& what);

  /// This connection's backend process id (0 when not connected): the
  /// notifications our own writes raise carry it.
  int backend_pid() const {
    return conn_ ? PQbackendPID(conn_) : 0;
  }

private:
  /// The storage error for a failed result (nullptr: the connection's).
  error fail(const PGresult* r, const std::string& what);
  /// Waits until a result can be read without blocking; the error (the
  /// connection dropped) when shutdown asked to stop waiting and its
  /// grace is over.
  std::optional<error> await_result(const std::string& what);
  /// Reads a sent query's results (as PQexec would).
  result<pg_res> finish(const std::string& what);

  std::string conninfo_;
  std::string schema_;
  std::string where_;
  PGconn* conn_ = nullptr;
  std::uint64_t connects_ = 0;
  std::string last_state_;
};

/// "postgresql://user@host:port/db" without a password, for logs.
std::string pg_describe(const std::string& conninfo);

} // namespace ttm::storage::detail
