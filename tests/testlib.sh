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

# example_until FILE: the time to run an example to: its run.until, or a
# fifth of it under CAROM_TEST_QUICK=1 (the sanitizer pass, where the
# optimised pass has already run it whole). Empty if the file has none.
example_until() {
  local until
  until=$(sed -n 's/^ *until: *\([0-9.eE+-]*\).*/\1/p' "$1" | head -1)
  [ -n "$until" ] || return 0
  if [ "${CAROM_TEST_QUICK:-0}" = 1 ]; then awk -v u="$until" 'BEGIN { printf "%.17g\n", u / 5 }'; else echo "$until"; fi
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

# same_disks A.png B.png: whether two pictures of disks drawn by carom show
# the same disks (tests/png_probe.py's blobs left of the colour bar, paired
# in order): prints "ok N blobs, worst D px" when the counts agree, N >= 8
# and every centre is within 1.5 px, else "bad ...".
same_disks() {
  local probe lines_a lines_b
  probe="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/png_probe.py"
  python3 "$probe" blobs "$1" 690 | sort -n >"$work/.blobs_a"
  python3 "$probe" blobs "$2" 690 | sort -n >"$work/.blobs_b"
  lines_a=$(wc -l <"$work/.blobs_a") lines_b=$(wc -l <"$work/.blobs_b")
  paste -d' ' "$work/.blobs_a" "$work/.blobs_b" | awk -v na="$lines_a" -v nb="$lines_b" '
    { d = sqrt(($1 - $7)^2 + ($2 - $8)^2); if (d > worst) worst = d; rows++ }
    END { printf "%s %d blobs, worst %.2f px", (na == nb && rows == nb && rows >= 8 && worst < 1.5) ? "ok" : "bad", rows, worst }'
}
