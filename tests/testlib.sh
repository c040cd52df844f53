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

# refused_option SUBCOMMAND OUTPUT_OPTION NAME EXPECTED ARGS...: `$carom
# SUBCOMMAND OUTPUT_OPTION $work/bad.out ARGS...` must exit 2 with one line
# containing EXPECTED, and leave nothing behind at $work/bad.* (options are
# checked before anything is written).
refused_option() {
  local command=$1 output=$2 name=$3 expected=$4 out status
  shift 4
  rm -f "$work"/bad.*
  out=$("$carom" "$command" "$output" "$work/bad.out" "$@" 2>&1); status=$?
  if [ $status -ne 2 ] || [[ $out != *"$expected"* ]] || [ "$(printf '%s\n' "$out" | wc -l)" -ne 1 ] ||
     compgen -G "$work/bad.*" >/dev/null; then
    fail "bad $name" "status $status: $out"
    return
  fi
  pass "bad $name"
}
