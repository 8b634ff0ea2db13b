// The option docs, all generated from the option table of config.cpp (one
// source per fact): --help's text, docs/options.md's table (--help-markdown;
// tests/docs/check_drift.mjs compares it with the page) and the man page
// (--help-man; the build writes it from the built binary).

#include "config.hpp"

#include <algorithm>
#include <cstdio>

namespace ttm {

namespace {

/// A table cell: '|' would end it.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += '\\';
    out += c;
  }
  return out;
}

/// Text for a roff line: backslashes and minus signs escaped (a '-' alone
/// is a hyphen, wrong in an option name and lintian's complaint), non-ASCII
/// characters as \[uXXXX] so the page needs no input encoding, and a
/// leading \& so that no line starts a request ('.' or '\'').
std::string roff(const std::string& text) {
  std::string out = "\\&";
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else if (c < 0x80)
      out += static_cast<char>(c);
    else {
      // UTF-8: the option table's texts are valid UTF-8.
      int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
      unsigned code = c & (0x3F >> extra);
      for (int k = 0; k < extra && i + 1 < text.size(); ++k)
        code = (code << 6) | (static_cast<unsigned char>(text[++i]) & 0x3F);
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\[u%04X]", code);
      out += buf;
    }
  }
  return out;
}

} // namespace

std::string usage() {
  std::string out
    = "Usage: time-tracker-mcp stdio [options]\n"
      "       time-tracker-mcp http [--listen 127.0.0.1:8787] [options]\n"
      "       time-tracker-mcp --help | --help-markdown | --help-man | "
      "--version\n\n"
      "Modes:\n"
      "  stdio    serve one MCP client on stdin/stdout (newline-delimited "
      "JSON-RPC);\n"
      "           logs go to stderr\n"
      "  http     serve many MCP clients over Streamable HTTP at "
      "http://HOST:PORT/PATH (default /mcp);\n"
      "           logs go to stderr\n\n"
      "Admin commands over a data directory, safe while servers run on it\n"
      "(time-tracker-mcp COMMAND --help for each; docs/operations.md):\n"
      "  sessions list|show ID|report ID   tracking sessions, with the "
      "history tool's filters\n"
      "  audit --since TIME                who did what when, and refused "
      "requests\n"
      "  check                             config, zone database, journal "
      "integrity; exit 1 on a fault\n"
      "  backup DEST                       a consistent copy of the journal\n"
      "  export                            the whole journal as JSON lines\n"
      "  import [FILE]                     such lines into an empty data "
      "directory\n\n"
      "Options (also settable in a JSON config file and the environment; "
      "command line\nwins over environment, environment over file):\n";
  // One column for every description, as wide as the longest option needs,
  // so that a long option name cannot push its description out of line.
  struct row {
    std::string lhs, help, env, key;
  };
  std::vector<row> rows;
  for (const auto& o : option_docs())
    rows.push_back({"  " + o.flag + (o.arg.empty() ? "" : " " + o.arg),
                    o.help, o.env, o.key});
  std::size_t column = 0;
  for (const auto& r : rows)
    column = std::max(column, r.lhs.size() + 2);
  for (auto& r : rows) {
    r.lhs.resize(column, ' ');
    out += r.lhs + r.help
           + (r.key.empty() ? " (env " + r.env + ")\n"
                            : "\n" + std::string(column, ' ') + "env " + r.env
                                  + ", file key \"" + r.key + "\"\n");
  }
  return out;
}

std::string usage_markdown() {
  std::string out = "| option | env / file key | meaning |\n|---|---|---|\n";
  for (const auto& o : option_docs())
    out += "| `" + cell(o.flag + (o.arg.empty() ? "" : " " + o.arg)) + "` | `"
           + o.env + "`" + (o.key.empty() ? "" : " / `" + o.key + "`") + " | "
           + cell(o.help) + " |\n";
  return out;
}

std::string usage_man() {
  // No date in .TH: the page is the same for every build of a version.
  std::string out
    = ".TH TIME\\-TRACKER\\-MCP 1 \"\" \"time\\-tracker\\-mcp " TTM_VERSION
      "\" \"User Commands\"\n"
      ".SH NAME\n"
      "time\\-tracker\\-mcp \\- an MCP server that gives AI agents trusted "
      "time and tracks their work sessions\n"
      ".SH SYNOPSIS\n"
      ".B time\\-tracker\\-mcp stdio\n"
      ".RI [ options ]\n"
      ".br\n"
      ".B time\\-tracker\\-mcp http\n"
      ".RB [ \\-\\-listen\n"
      ".IR HOST : PORT ]\n"
      ".RI [ options ]\n"
      ".br\n"
      ".B time\\-tracker\\-mcp\n"
      ".BR \\-\\-help \" | \" \\-\\-help\\-markdown \" | \" \\-\\-help\\-man "
      "\" | \" \\-\\-version\n"
      ".SH DESCRIPTION\n"
      ".B time\\-tracker\\-mcp\n"
      "serves the Model Context Protocol (MCP): the current time in any zone, "
      "date arithmetic, and tracking sessions that time an agent's tasks, "
      "kept in a journal that survives restarts.\n"
      ".TP\n"
      ".B stdio\n"
      "serves one MCP client on standard input and output "
      "(newline\\-delimited JSON\\-RPC); logs go to standard error.\n"
      ".TP\n"
      ".B http\n"
      "serves many MCP clients over Streamable HTTP at\n"
      ".IR http://HOST:PORT/PATH\n"
      "(default path /mcp); logs go to standard error. Under systemd "
      "(a Type=notify unit) it reports READY=1 once it listens and the "
      "journal is open, STOPPING=1 at shutdown, and watchdog pings.\n"
      ".SH ADMIN COMMANDS\n"
      "Over a data directory, safe while servers run on it; each takes "
      "\\fB\\-\\-help\\fR, \\fB\\-\\-data\\-dir\\fR and "
      "\\fB\\-\\-config\\fR.\n"
      ".TP\n\\fBsessions list\\fR|\\fBshow\\fR \\fIID\\fR|\\fBreport\\fR "
      "\\fIID\\fR\n"
      "tracking sessions, with the history tool's filters; a report as "
      "Markdown, CSV, JSON or HTML.\n"
      ".TP\n\\fBaudit \\-\\-since\\fR \\fITIME\\fR\n"
      "who did what when, and the requests refused (401, 403, 429).\n"
      ".TP\n.B check\n"
      "the config, the zone database and the journal's integrity; exit 1 on "
      "a fault.\n"
      ".TP\n\\fBbackup\\fR \\fIDEST\\fR\n"
      "a consistent copy of the journal while servers write.\n"
      ".TP\n\\fBexport\\fR, \\fBimport\\fR [\\fIFILE\\fR]\n"
      "the whole journal as JSON lines, and back into an empty data "
      "directory.\n"
      ".SH OPTIONS\n"
      "Every option can also be set in a JSON config file "
      "(\\fB\\-\\-config\\fR \\fIFILE\\fR)\n"
      "and in the environment. The command line wins over the environment, "
      "the environment over the file. A\n"
      ".I DURATION\n"
      "is a number of seconds or a number with a unit: 90s, 30m, 4h, 1d.\n";
  for (const auto& o : option_docs()) {
    // .TP's tag is one line: the flag bold, its argument italic.
    out += ".TP\n\\fB" + roff(o.flag) + "\\fR";
    if (!o.arg.empty())
      out += " \\fI" + roff(o.arg) + "\\fR";
    out += "\n" + roff(o.help) + "\n.br\nEnvironment:\n.BR " + roff(o.env)
           + (o.key.empty() ? "" : " ;\nconfig file key:\n.BR " + roff(o.key))
           + " .\n";
  }
  out += ".TP\n.B \\-\\-help\nthe options as text.\n"
         ".TP\n.B \\-\\-help\\-markdown\nthe options as a Markdown table.\n"
         ".TP\n.B \\-\\-help\\-man\nthis page (roff).\n"
         ".TP\n.B \\-\\-version\nthe version.\n"
         ".SH EXIT STATUS\n"
         "0 after a clean shutdown (end of input, SIGTERM, SIGINT), 1 when the "
         "server cannot start (the address is in use, the data directory is "
         "another server's), 2 for an invalid option or config file. An admin "
         "command: 0 done, 1 a fault (a check failed, the journal cannot be "
         "read), 2 a usage error.\n"
         ".SH FILES\n"
         ".TP\n.I /etc/time\\-tracker\\-mcp/config.json\n"
         "the Debian package's config file (its systemd unit reads it).\n"
         ".TP\n.I /etc/default/time\\-tracker\\-mcp\n"
         "environment overrides for the systemd unit.\n"
         ".TP\n.I /var/lib/time\\-tracker\\-mcp\n"
         "the unit's data directory (its StateDirectory); elsewhere the default "
         "is\n.IR $XDG_STATE_HOME/time\\-tracker\\-mcp ,\nelse\n"
         ".IR ~/.local/state/time\\-tracker\\-mcp .\n"
         ".SH SEE ALSO\n"
         ".BR systemd.service (5),\n"
         ".BR sd_notify (3),\n"
         "and /usr/share/doc/time\\-tracker\\-mcp.\n";
  return out;
}

} // namespace ttm
