#!/bin/sh
# The admin commands the binary dispatches (named by its unknown-mode error)
# are each in --help and in the man page (--help-man): both are written by
# hand beside the option table, so this catches a command added or renamed
# in src/admin without them. Usage: help_admin.sh BINARY
bin=$1
list=$("$bin" no-such-mode 2>&1 | sed -n 's/.*admin commands: \([^)]*\)).*/\1/p' | tr -d ',')
[ -n "$list" ] || { echo "no admin command list in the unknown-mode error"; exit 1; }
help=$("$bin" --help) || exit 1
man=$("$bin" --help-man) || exit 1
for c in $list; do
  printf '%s\n' "$help" | grep -q "^  $c" || { echo "--help does not list '$c'"; exit 1; }
  printf '%s\n' "$man" | grep -q -e "\\\\fB$c" -e "^\\.B $c" || { echo "the man page does not list '$c'"; exit 1; }
done
echo "admin commands in --help and the man page: $list"
