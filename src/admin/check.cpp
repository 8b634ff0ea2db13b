// `time-tracker-mcp check`: what a server needs, one line per check, a
// non-zero exit on any fault: the configuration (parsed as the server
// parses it), the zone database, and the journal (its integrity, schema
// version and WAL; or a PostgreSQL journal's, --journal), read-only.

#include "admin/cli.hpp"

#include "config.hpp"
#include "domain/tzdata_files.hpp"
#include "domain/zones.hpp"
#include "storage/pg_admin.hpp"
#include "storage/sqlite_admin.hpp"
#include "storage/sqlite_store.hpp"

#include <sys/stat.h>

namespace ttm::admin {

namespace {

/// The schema line, the same for both backends.
template <class Line>
void schema_line(std::int64_t version, const Line& line) {
  line(version == storage::journal_schema_version, "journal schema",
       "version " + std::to_string(version)
         + (version == storage::journal_schema_version
              ? " (current)"
              : " (this build writes "
                  + std::to_string(storage::journal_schema_version)
                  + "; a server migrates an older one when it opens it)"));
}

/// A PostgreSQL journal (--journal): the same lines as SQLite's, read in
/// one snapshot without changing anything; its durability in place of
/// SQLite's WAL mode.
template <class Line>
void check_postgresql(const std::string& uri, const Line& line) {
  storage::pg_options pg;
  pg.conninfo = uri == "postgresql" ? "" : uri;
  auto where = storage::describe_postgresql(pg);
  auto r = storage::pg_health(pg);
  if (auto* e = std::get_if<storage::error>(&r)) {
    line(false, "journal", e->message);
    return;
  }
  auto& v = std::get<storage::pg_journal_health>(r);
  if (!v.exists) {
    line(true, "journal", "none yet in " + where + " (a server creates it)");
    return;
  }
  bool foreign = v.integrity.rfind("tables of another", 0) == 0;
  if (foreign)
    line(false, "journal integrity",
         "PostgreSQL " + v.server_version + " at " + where + ": "
           + v.integrity);
  else if (!v.integrity.empty()) // empty: a schema this build cannot read
    line(v.integrity == "ok", "journal integrity",
         "PostgreSQL " + v.server_version + " at " + where
           + ", every row read: " + v.integrity + " ("
           + std::to_string(v.sessions) + " sessions, "
           + std::to_string(v.events) + " events)");
  if (!foreign)
    schema_line(v.schema_version, line);
  // An acknowledged change must survive a crash of the database's machine
  // (fsync) and of PostgreSQL itself (synchronous_commit; the MCP
  // sessions alone turn it off for their own commits).
  bool durable = v.fsync == "on" && v.synchronous_commit != "off";
  line(durable, "journal WAL",
       "fsync " + v.fsync + ", synchronous_commit " + v.synchronous_commit
         + (durable ? std::string{}
                    : ": a crash can lose acknowledged changes (set fsync"
                      " and synchronous_commit on)"));
}

int run_check(context& ctx, const args& a) {
  int faults = 0;
  auto line = [&](bool ok, const std::string& what, const std::string& text) {
    ctx.out << (ok ? "ok    " : "FAULT ") << what << ": " << text << "\n";
    if (!ok)
      ++faults;
  };
  // 1. The configuration, as the server reads it: the config file, the
  //    environment, and any server options after `--`.
  std::vector<std::string> server = a.rest;
  if (server.empty() || server.front().rfind("--", 0) == 0)
    server.insert(server.begin(), "stdio");
  if (auto f = a.get("--config"))
    server.insert(server.end(), {"--config", *f});
  if (auto d = a.get("--data-dir"))
    server.insert(server.end(), {"--data-dir", *d});
  if (auto j = a.get("--journal"))
    server.insert(server.end(), {"--journal", *j});
  auto cfg = load_config(server, ctx.getenv);
  std::string dir;
  std::string journal; // PostgreSQL's URI; empty: SQLite in `dir`
  if (!cfg.cfg) {
    auto text = cfg.text;
    if (auto cut = text.find("\nRun "); cut != std::string::npos)
      text.resize(cut);
    line(false, "config", text);
  } else {
    line(true, "config",
         (cfg.cfg->config_file.empty() ? std::string{"no config file"}
                                       : "file " + cfg.cfg->config_file)
           + ", mode " + cfg.cfg->mode
           + (cfg.cfg->ephemeral ? ", --ephemeral"
                                 : ", data directory " + cfg.cfg->data_dir));
    if (!cfg.cfg->ephemeral) {
      dir = cfg.cfg->data_dir;
      journal = cfg.cfg->journal;
    }
  }
  // 2. The zone database: found, and a known zone resolves.
  const auto& zoneinfo = domain::zoneinfo_dir();
  struct stat st{};
  if (zoneinfo.empty() || ::stat(zoneinfo.c_str(), &st) != 0)
    line(false, "tzdata", "no zoneinfo directory (install the tzdata "
                          "package)");
  else if (!domain::preload_tz_database())
    line(false, "tzdata", "cannot load the zone database from " + zoneinfo);
  else if (auto z = domain::resolve_zone("Europe/Paris", "UTC"); !z.found)
    line(false, "tzdata", "Europe/Paris does not resolve: " + z.message);
  else
    line(true, "tzdata", zoneinfo + ", version "
                           + domain::tz_database_version()
                           + "; Europe/Paris resolves");
  // 3. The journal.
  if (!journal.empty()) {
    check_postgresql(journal, line);
  } else if (!dir.empty()) {
    auto path = dir + "/journal.sqlite3";
    if (::stat(path.c_str(), &st) != 0) {
      line(true, "journal", "none yet at " + path
                              + " (a server creates it)");
    } else if (auto r = storage::journal_reader::open(dir);
               auto* e = std::get_if<storage::error>(&r)) {
      line(false, "journal", e->message);
    } else {
      auto& reader = *std::get<0>(r);
      auto h = reader.health();
      if (auto* he = std::get_if<storage::error>(&h)) {
        line(false, "journal", he->message);
      } else {
        auto& v = std::get<storage::journal_health>(h);
        line(v.integrity == "ok", "journal integrity",
             "PRAGMA integrity_check: " + v.integrity + " ("
               + std::to_string(v.sessions) + " sessions, "
               + std::to_string(v.events) + " events)");
        schema_line(v.schema_version, line);
        line(v.journal_mode == "wal" || v.schema_version == 0,
             "journal WAL",
             "journal_mode " + v.journal_mode + ", "
               + (v.wal_bytes < 0 ? std::string{"no -wal file"}
                                  : "-wal file " + std::to_string(v.wal_bytes)
                                      + " bytes"));
      }
    }
  }
  return faults == 0 ? 0 : 1;
}

} // namespace

const command& check_command() {
  static const command c{
    "check",
    "check [options] [-- SERVER-OPTIONS]",
    "Checks what a server needs, one line per check, and exits 1 on any "
    "fault: the\nconfiguration (the config file, the environment and any "
    "server options after\n'--', parsed as the server parses them), the zone "
    "database, and the journal\n(PRAGMA integrity_check, schema version, "
    "WAL; with --journal postgresql://...:\nevery row read, schema version, "
    "fsync and synchronous_commit), read-only.",
    {},
    run_check};
  return c;
}

} // namespace ttm::admin
