// The option docs, both generated from the option table of config.cpp (one
// source per fact): --help's text and docs/options.md's table
// (--help-markdown; tests/docs/check_drift.mjs compares it with the page).

#include "config.hpp"

#include <algorithm>

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

} // namespace

std::string usage() {
  std::string out
    = "Usage: time-tracker-mcp stdio [options]\n"
      "       time-tracker-mcp http [--listen 127.0.0.1:8787] [options]\n"
      "       time-tracker-mcp --help | --help-markdown | --version\n\n"
      "Modes:\n"
      "  stdio    serve one MCP client on stdin/stdout (newline-delimited "
      "JSON-RPC);\n"
      "           logs go to stderr\n"
      "  http     serve many MCP clients over Streamable HTTP at "
      "http://HOST:PORT/PATH (default /mcp);\n"
      "           logs go to stderr\n\n"
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

} // namespace ttm
