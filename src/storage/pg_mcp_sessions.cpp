// The PostgreSQL store's MCP sessions (schema step 9; see mcp_session.hpp):
// one row per Mcp-Session-Id of the 2025 eras, so that every node sharing
// the database answers it. Committed with synchronous_commit off: the
// commit does not wait for the WAL flush, so a crash of PostgreSQL itself
// may lose the latest (a re-initialize for its client), never a tracking
// change, whose commits keep waiting for theirs.

#include "storage/pg_store_impl.hpp"

#include <cstdlib>

namespace ttm::storage::detail {

namespace {

const std::string what_write = "cannot store an MCP session in";
const std::string what_read = "cannot read an MCP session from";

/// The first statement of each write transaction.
constexpr const char* unsynced = "SET LOCAL synchronous_commit = off";

} // namespace

result<ok> pg_store::put_mcp_session(const mcp_session_record& r) {
  return in_transaction<ok>(
    what_write,
    [&]() -> result<ok> {
      if (auto err = conn_.run(unsynced, what_write))
        return std::move(*err);
      // Another principal's id is never taken over (the caller checks the
      // principal on every read; ids are random anyway).
      auto res = conn_.exec(
        "INSERT INTO mcp_sessions (id, principal, state, created_wall_ns,"
        " last_wall_ns) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO UPDATE"
        " SET state = excluded.state, last_wall_ns ="
        " greatest(mcp_sessions.last_wall_ns, excluded.last_wall_ns)"
        " WHERE mcp_sessions.principal = excluded.principal",
        pg_params{}
          .add(r.id)
          .add(r.principal)
          .add(r.state)
          .add(r.created_wall_ns)
          .add(r.last_wall_ns),
        what_write);
      if (auto* err = std::get_if<error>(&res))
        return std::move(*err);
      return ok{};
    },
    false);
}

result<std::optional<mcp_session_record>>
pg_store::get_mcp_session(const std::string& id) {
  using value = std::optional<mcp_session_record>;
  return in_transaction<value>(
    what_read,
    [&]() -> result<value> {
      auto res = conn_.exec("SELECT principal, state, created_wall_ns,"
                            " last_wall_ns FROM mcp_sessions WHERE id = $1",
                            pg_params{}.add(id), what_read);
      if (auto* err = std::get_if<error>(&res))
        return std::move(*err);
      auto& rows = std::get<pg_res>(res);
      if (rows_of(rows) == 0)
        return value{};
      pg_row row{rows.get(), 0};
      mcp_session_record r;
      r.id = id;
      r.principal = row.text(0);
      r.state = row.text(1);
      r.created_wall_ns = row.int64(2);
      r.last_wall_ns = row.int64(3);
      return value{std::move(r)};
    },
    true);
}

result<ok> pg_store::touch_mcp_sessions(const std::vector<std::string>& ids,
                                        std::int64_t now_wall_ns) {
  if (ids.empty())
    return ok{};
  return in_transaction<ok>(
    what_write,
    [&]() -> result<ok> {
      if (auto err = conn_.run(unsynced, what_write))
        return std::move(*err);
      auto res = conn_.exec("UPDATE mcp_sessions SET last_wall_ns = $2"
                            " WHERE id = ANY($1::text[]) AND last_wall_ns < $2",
                            pg_params{}.add_text_array(ids).add(now_wall_ns),
                            what_write);
      if (auto* err = std::get_if<error>(&res))
        return std::move(*err);
      return ok{};
    },
    false);
}

result<bool>
pg_store::remove_mcp_session(const std::string& id,
                             std::optional<std::int64_t> idle_before_wall_ns) {
  return in_transaction<bool>(
    what_write,
    [&]() -> result<bool> {
      if (auto err = conn_.run(unsynced, what_write))
        return std::move(*err);
      auto res = conn_.exec("DELETE FROM mcp_sessions WHERE id = $1 AND"
                            " ($2::bigint IS NULL OR last_wall_ns < $2)",
                            pg_params{}.add(id).add(idle_before_wall_ns),
                            what_write);
      if (auto* err = std::get_if<error>(&res))
        return std::move(*err);
      // Only one node's DELETE finds the row: the removal happens once.
      return std::strtoull(PQcmdTuples(std::get<pg_res>(res).get()), nullptr,
                           10)
             > 0;
    },
    false);
}

result<std::vector<std::string>>
pg_store::mcp_sessions_due(std::int64_t idle_before_wall_ns,
                           std::size_t limit) {
  using value = std::vector<std::string>;
  return in_transaction<value>(
    what_read,
    [&]() -> result<value> {
      auto res = conn_.exec("SELECT id FROM mcp_sessions WHERE last_wall_ns"
                            " < $1 ORDER BY last_wall_ns LIMIT $2",
                            pg_params{}
                              .add(idle_before_wall_ns)
                              .add(static_cast<std::int64_t>(limit)),
                            what_read);
      if (auto* err = std::get_if<error>(&res))
        return std::move(*err);
      auto& rows = std::get<pg_res>(res);
      value out;
      for (int i = 0; i < rows_of(rows); ++i)
        out.push_back(pg_row{rows.get(), i}.text(0));
      return out;
    },
    true);
}

} // namespace ttm::storage::detail
