# testlib.sh — what the shell tests share, sourced by each: a scratch folder
# removed at exit ($work), pass/fail counters and the closing line, and
# readers of carom's statistics JSON. The sourcing script may replace the
# EXIT trap (then it removes $work itself).
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "pass  $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1: $2"; }

# Prints "N passed, N failed" and exits non-zero if anything failed (or nothing passed).
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
  exit
}

# json_number FILE KEY: the number after "KEY": in a stats file.
json_number() { awk -v key="\"$2\":" '$1 == key { v = $2; sub(/,$/, "", v); print v; exit }' "$1"; }
# json_event FILE KIND: one of the event counts.
json_event() { sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1" | head -1; }
# json_text FILE KEY: a string value.
json_text() { sed -n "s/^ *\"$2\": \"\(.*\)\",\{0,1\}$/\1/p" "$1" | head -1; }
