#!/usr/bin/env bash
# time_get_current's `unix` and `unix_ms` timestamps are JSON strings (the
# spec's schema says string): every example in the README and docs/ shows
# them quoted, never as a bare number. Usage: unix_example.sh REPO_ROOT
set -u
root="$1"
bare=$(grep -rnE '`unix(_ms)?` → `?[0-9]' "$root/README.md" "$root/docs")
if [ -n "$bare" ]; then
  echo "a unix timestamp example shown as a number (it is a JSON string):"
  echo "$bare"
  exit 1
fi
grep -q '`unix` → `"[0-9]*"`' "$root/docs/tools.md" || {
  echo "docs/tools.md lacks the quoted \`unix\` example"
  exit 1
}
echo "unix examples are strings"
