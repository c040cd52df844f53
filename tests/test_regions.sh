#!/usr/bin/env bash
# test_regions.sh — carom_regions' speculative order (bench/regions.c), the
# study behind issue 16's point 3. Its figures are only as good as its
# bookkeeping, so this checks what must hold whatever the fluid does:
# - the program itself checks that the executions it keeps come in an
#   order that respects every constraint (it exits 1 otherwise; dropping
#   the undo of what waited for a late collision makes it so);
# - every execution is either kept or undone: executed = 1 + undone;
# - every execution after a window's first sweep redoes an undone one;
# - undoing only what depended on a late collision never undoes more than
#   undoing the region's log from it;
# - with windows of a hundredth of a collision a body, selective undo
#   redoes under a tenth of the collisions;
# and that bad values are refused with a message naming the option.
#
# usage: test_regions.sh CAROM_REGIONS
# Prints "N passed, N failed" last; exits non-zero if anything failed.
regions=$1
source "$(dirname "$0")/testlib.sh"

if "$regions" --n 32000 --warmup 1 --collisions 1 >"$work/out" 2>"$work/err"; then
  pass "a speculative replay of 32,000 spheres keeps every constraint"
else
  fail "speculative replay" "exit $?: $(tail -3 "$work/err")"
fi

# The speculation rows: L bodies suffix|select, then per window "| exec undo later model".
awk '$3 == "suffix" || $3 == "select"' "$work/out" >"$work/rows"
rows=$(wc -l <"$work/rows")
if [ "$rows" -ge 4 ]; then pass "$rows rows of speculation"; else fail "speculation rows" "$rows rows"; fi

check() { # NAME AWK-PROGRAM: the program prints the rows that break the rule
  local bad
  bad=$(awk "$2" "$work/rows")
  if [ -z "$bad" ]; then pass "$1"; else fail "$1" "$bad"; fi
}
check "executed = 1 + undone in every window and region size" \
  '{for (k = 5; k + 3 <= NF; k += 5) if ($k - $(k + 1) < 0.9985 || $k - $(k + 1) > 1.0015) print}'
check "executions after the first sweep never exceed the undone" \
  '{for (k = 5; k + 3 <= NF; k += 5) if ($(k + 2) > $(k + 1) + 0.0015) print}'
check "selective undo never undoes more than suffix undo" \
  '$3 == "suffix" {for (k = 6; k <= NF; k += 5) s[$1, k] = $k}
   $3 == "select" {for (k = 6; k <= NF; k += 5) if ($k > s[$1, k] + 1e-9) print}'
check "windows of 0.01: selective undo redoes under a tenth" '$3 == "select" && $5 >= 1.1'

for bad in "--stream 0" "--near-rate x" "--far-rate -1"; do
  set -- $bad
  if "$regions" "$@" >"$work/bad.out" 2>"$work/bad.err"; then
    fail "refuses $bad" "it ran"
  elif grep -q -- "$1" "$work/bad.err"; then
    pass "refuses $bad, naming $1"
  else
    fail "refuses $bad" "$(cat "$work/bad.err")"
  fi
done
finish
