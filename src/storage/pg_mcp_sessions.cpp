// The PostgreSQL store's MCP sessions (schema step 9; see mcp_session.hpp):
// one row per Mcp-Session-Id of the 2025 eras, so that every node sharing
// the database answers it. Committed with synchronous_commit off: the
// commit does not wait for the WAL flush, so a crash of PostgreSQL itself
// may lose the latest (a re-initialize for its client), never a tracking
// change, whose commits keep waiting for theirs. Each call is one round
// trip: a read is one statement, a write one transaction in pipeline mode.
//
// A write that changes a record (stored, state changed, removed) notifies
// the id on pg_mcp_channel, delivered at its commit to every node's
// listener (pg_listener.hpp): a node holding a copy reads it again. Its
// use being recorded (touch) changes nothing a copy holds: no notification.

#include "storage/pg_listener.hpp"
#include "storage/pg_store_impl.hpp"

namespace ttm::storage::detail {

namespace {

const std::string what_write = "cannot store an MCP session in";
const std::string what_read = "cannot read an MCP session from";

/// One write transaction in one round trip: BEGIN, synchronous_commit off,
/// `sql`, COMMIT, sent at once (pipeline mode). `rows`: what `sql` returned.
std::optional<error> write_unsynced(pg_conn& conn, const std::string& sql,
                                    pg_params params,
                                    pg_rows* rows = nullptr) {
  auto r = conn.pipeline({{"BEGIN", {}},
                          {"SET LOCAL synchronous_commit = off", {}},
                          {sql, std::move(params)},
                          {"COMMIT", {}}},
                         what_write);
  // A statement that failed left the block open, aborted.
  conn.rollback_if_open();
  if (auto* err = std::get_if<error>(&r))
    return std::move(*err);
  auto& results = std::get<std::vector<pg_res>>(r);
  if (rows && results.size() == 4)
    *rows = pg_rows{std::move(results[2])};
  return std::nullopt;
}

} // namespace

result<ok> pg_store::put_mcp_session(const mcp_session_record& r) {
  if (auto err = connect())
    return std::move(*err);
  // Another principal's id is never taken over (the caller checks the
  // principal on every read; ids are random anyway).
  if (auto err = write_unsynced(
        conn_,
        "WITH w AS (INSERT INTO mcp_sessions (id, principal, state,"
        " created_wall_ns, last_wall_ns) VALUES ($1, $2, $3, $4, $5)"
        " ON CONFLICT (id) DO UPDATE SET state = excluded.state,"
        " last_wall_ns = greatest(mcp_sessions.last_wall_ns,"
        " excluded.last_wall_ns) WHERE mcp_sessions.principal ="
        " excluded.principal RETURNING id) SELECT pg_notify($6, id) FROM w",
        pg_params{}
          .add(r.id)
          .add(r.principal)
          .add(r.state)
          .add(r.created_wall_ns)
          .add(r.last_wall_ns)
          .add(pg_mcp_channel)))
    return std::move(*err);
  return ok{};
}

result<std::optional<mcp_session_record>>
pg_store::get_mcp_session(const std::string& id) {
  using value = std::optional<mcp_session_record>;
  if (auto err = connect())
    return std::move(*err);
  pg_rows rows;
  if (auto err = conn_.query("SELECT principal, state, created_wall_ns,"
                             " last_wall_ns FROM mcp_sessions WHERE id = $1",
                             pg_params{}.add(id), what_read, &rows))
    return std::move(*err);
  if (rows.empty())
    return value{};
  auto row = rows[0];
  mcp_session_record r;
  r.id = id;
  r.principal = row.text(0);
  r.state = row.text(1);
  r.created_wall_ns = row.int64(2);
  r.last_wall_ns = row.int64(3);
  return value{std::move(r)};
}

result<ok> pg_store::touch_mcp_sessions(const std::vector<std::string>& ids,
                                        std::int64_t now_wall_ns) {
  if (ids.empty())
    return ok{};
  if (auto err = connect())
    return std::move(*err);
  if (auto err = write_unsynced(
        conn_,
        "UPDATE mcp_sessions SET last_wall_ns = $2"
        " WHERE id = ANY($1::text[]) AND last_wall_ns < $2",
        pg_params{}.add_text_array(ids).add(now_wall_ns)))
    return std::move(*err);
  return ok{};
}

result<bool>
pg_store::remove_mcp_session(const std::string& id,
                             std::optional<std::int64_t> idle_before_wall_ns) {
  if (auto err = connect())
    return std::move(*err);
  pg_rows removed;
  if (auto err = write_unsynced(conn_,
                                "WITH d AS (DELETE FROM mcp_sessions WHERE"
                                " id = $1 AND ($2::bigint IS NULL OR"
                                " last_wall_ns < $2) RETURNING id)"
                                " SELECT pg_notify($3, id) FROM d",
                                pg_params{}
                                  .add(id)
                                  .add(idle_before_wall_ns)
                                  .add(pg_mcp_channel),
                                &removed))
    return std::move(*err);
  // Only one node's DELETE finds the row: the removal happens once.
  return !removed.empty();
}

result<std::vector<std::string>>
pg_store::mcp_sessions_due(std::int64_t idle_before_wall_ns,
                           std::size_t limit) {
  using value = std::vector<std::string>;
  if (auto err = connect())
    return std::move(*err);
  pg_rows rows;
  if (auto err = conn_.query("SELECT id FROM mcp_sessions WHERE"
                             " last_wall_ns < $1 ORDER BY last_wall_ns"
                             " LIMIT $2",
                             pg_params{}
                               .add(idle_before_wall_ns)
                               .add(static_cast<std::int64_t>(limit)),
                             what_read, &rows))
    return std::move(*err);
  value out;
  for (int i = 0; i < rows.size(); ++i)
    out.push_back(rows[i].text(0));
  return out;
}

} // namespace ttm::storage::detail
