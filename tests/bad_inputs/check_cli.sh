#!/usr/bin/env bash
# Runs `shardlab info` on every file of the bad-input corpus (this folder) and
# checks the exact one-line message (FILE.expected), exit code 2 and that
# nothing else reaches stderr (so a sanitizer report fails the test).
# Usage: check_cli.sh PATH/TO/shardlab   (run from this folder)
set -u
shardlab="$1"
failures=0
count=0
for file in *; do
  case "$file" in *.expected|*.sh|*.md) continue ;; esac
  count=$((count + 1))
  expected="shardlab: $(cat "$file.expected")"
  actual=$("$shardlab" info "$file" 2>&1 >/dev/null)
  code=$?
  if [ "$code" -ne 2 ] || [ "$actual" != "$expected" ]; then
    echo "FAIL $file (exit $code)"
    echo "  expected: $expected"
    echo "  actual:   $actual"
    failures=$((failures + 1))
  fi
done
echo "$count bad inputs, $failures failures"
[ "$failures" -eq 0 ] && [ "$count" -ge 30 ]
