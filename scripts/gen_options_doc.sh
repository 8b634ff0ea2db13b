#!/usr/bin/env bash
# Rewrites docs/options.md's option table from the binary's option table
# (time-tracker-mcp --help-markdown), between its generated-block markers.
# Usage: scripts/gen_options_doc.sh [BINARY]   (default build/time-tracker-mcp)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/time-tracker-mcp}
table=$("$bin" --help-markdown)
TABLE="$table" python3 - "$root/docs/options.md" <<'PY'
import os, sys
path = sys.argv[1]
page = open(path, encoding="utf-8").read()
begin = page.index("<!-- BEGIN generated")
begin = page.index("\n", begin) + 1
end = page.index("<!-- END generated -->")
open(path, "w", encoding="utf-8").write(page[:begin] + os.environ["TABLE"] + "\n" + page[end:])
PY
echo "docs/options.md: option table regenerated"
