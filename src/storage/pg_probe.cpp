#include "storage/pg_probe.hpp"

#include "storage/sqlite_store.hpp" // journal_schema_version

namespace ttm::storage::detail {

result<pg_found_journal> pg_find_journal(pg_conn& conn,
                                         const std::string& what) {
  auto found = conn.exec(
    "SELECT current_schema(), current_setting('search_path'),"
    " to_regclass('meta') IS NOT NULL, (SELECT count(*) FROM pg_tables"
    " WHERE schemaname = current_schema())",
    what);
  if (auto* err = std::get_if<error>(&found))
    return std::move(*err);
  pg_row r0{std::get<pg_res>(found).get(), 0};
  pg_found_journal out;
  out.schema = r0.null(0) ? "" : r0.text(0);
  out.search_path = r0.text(1);
  if (!r0.boolean(2)) {
    out.foreign = r0.int64(3) > 0;
    return out;
  }
  auto meta = conn.exec(
    "SELECT (SELECT value FROM meta WHERE key = 'application'),"
    " (SELECT value FROM meta WHERE key = 'schema_version')",
    what);
  if (auto* err = std::get_if<error>(&meta))
    return std::move(*err);
  pg_row m{std::get<pg_res>(meta).get(), 0};
  if (m.null(0) || m.text(0) != pg_application || m.null(1))
    out.foreign = true;
  else
    out.version = m.int64(1);
  return out;
}

error pg_missing_schema(const pg_found_journal& j, const std::string& where) {
  return {error_kind::io,
          "there is no journal in " + where
            + ", nor a schema for one: the search_path (" + j.search_path
            + ") names none that exists in that database; create it"
              " (CREATE SCHEMA name, as a role that may), or name an"
              " existing one (the URL's options=-csearch_path%3Dname)"};
}

error pg_no_journal(const pg_found_journal& j, const std::string& where) {
  if (j.schema.empty())
    return pg_missing_schema(j, where);
  if (j.foreign)
    return {error_kind::corrupt, "the journal " + where
                                   + " holds tables of another application"
                                     " (schema " + j.schema
                                   + "), no journal"};
  return {error_kind::io,
          "there is no journal in " + where + " (no table 'meta' in schema "
            + j.schema
            + "): a server started with --journal naming it creates one,"
              " or `time-tracker-mcp import --journal URL FILE` fills it"
              " from an export"};
}

std::optional<error> pg_readable(pg_conn& conn, const std::string& where,
                                 const std::string& what) {
  auto found = pg_find_journal(conn, what);
  if (auto* err = std::get_if<error>(&found))
    return std::move(*err);
  auto& j = std::get<pg_found_journal>(found);
  if (!j.version)
    return pg_no_journal(j, where);
  if (*j.version > journal_schema_version)
    return error{error_kind::newer_schema,
                 "the journal " + where + " has schema version "
                   + std::to_string(*j.version)
                   + ", newer than this time-tracker-mcp supports ("
                   + std::to_string(journal_schema_version)
                   + "): run a newer time-tracker-mcp"};
  return std::nullopt;
}

} // namespace ttm::storage::detail
