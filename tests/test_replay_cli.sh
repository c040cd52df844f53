#!/usr/bin/env bash
# test_replay_cli.sh — carom_replay (bench/replay.c), the measurement behind
# issue 16's point 3: it replays a recorded stretch with the engine's own
# code in time order and region by region, and runs the stretch region by
# region with speculation (speculate.c), and must say that all three ended
# in the recorded state ("same") and exit 0; with few cells a region, events
# are taken out of their region's turn (away > 0) and speculation undoes
# some. Bad options are refused with a message naming the option and exit 2.
#
# usage: test_replay_cli.sh CAROM_REPLAY
# Prints "N passed, N failed" last; exits non-zero if anything failed.
replay=$1
source "$(dirname "$0")/testlib.sh"

if "$replay" --n 4000 --collisions 1 --side 3 --window 0.1 >"$work/out" 2>"$work/err"; then
  pass "a replay of 4,000 spheres runs to its end"
else
  fail "replay" "exit $?: $(tail -3 "$work/err")"
fi
same=$(awk '$NF == "same"' "$work/out" | wc -l)
if [ "$same" -eq 3 ]; then pass "both replays and the speculation end in the recorded state"; else fail "bits" "$(cat "$work/out")"; fi
away=$(awk '/^region by region, replayed/ {print $(NF - 2)}' "$work/out")
if awk -v a="$away" 'BEGIN {exit !(a > 0 && a < 1)}'; then
  pass "regions of 3 cells take some events in another region's turn ($away)"
else
  fail "away" "'$away'"
fi

undone=$(awk '/^speculation:/ {print $5}' "$work/out")
if [ -n "$undone" ] && [ "$undone" -gt 0 ]; then
  pass "speculating with regions of 3 cells undoes some events ($undone)"
else
  fail "undone" "'$undone'"
fi

for bad in "--n 10" "--density 0.6" "--side 2.5" "--window x" "--seed -1" "--bogus 1"; do
  set -- $bad
  "$replay" "$@" >"$work/bad.out" 2>"$work/bad.err"
  rc=$?
  if [ "$rc" -eq 2 ] && grep -q -- "$1" "$work/bad.err" && [ ! -s "$work/bad.out" ]; then
    pass "refuses $bad, naming $1"
  else
    fail "refuses $bad" "exit $rc: $(cat "$work/bad.err")"
  fi
done
finish
