#!/usr/bin/env bash
# test_bench.sh — carom_bench's saved starts. A case written with
# --save-start (after a compression, the start the warm-up takes) and timed
# again with --start runs the same collisions: the events, stale predictions,
# energy drift and packing fraction of the two CSV rows agree to the last
# digit printed, which a snapshot that lost a velocity, a radius or a body
# would not give. Bad uses are refused with a message naming the option, and
# nothing is written where a file may not be replaced.
#
# usage: test_bench.sh CAROM_BENCH
# Prints "N passed, N failed" last; exits non-zero if anything failed.
bench=$1
source "$(dirname "$0")/testlib.sh"

# the columns of the table's one row that the physics fixes (not the times):
# dim, n, density, warm-up and measured collisions, events, stale, rel dE
physics() { awk -F, 'NR == 2 {print $1, $2, $3, $5, $6, $7, $8, $15}' "$1"; }

case_args=(--only 3d --n 800 --density 0.30 --poly 0.2 --compress 0.50:0.05 --warmup 1 --collisions 4)
if "$bench" "${case_args[@]}" --save-start "$work/start.snap" --csv "$work/lattice.csv" >"$work/save.log" 2>&1 &&
   "$bench" --start "$work/start.snap" --warmup 1 --collisions 4 --csv "$work/again.csv" >"$work/start.log" 2>&1; then
  a=$(physics "$work/lattice.csv") b=$(physics "$work/again.csv")
  if [ -n "$a" ] && [ "$a" = "$b" ] && grep -q " snapshot " "$work/start.log"; then
    pass "a compressed polydisperse start saved and timed again: the same run ($b)"
  else
    fail "saved start" "lattice run '$a', from the snapshot '$b'"
  fi
else
  fail "saved start" "$(tail -3 "$work/save.log" "$work/start.log")"
fi

# 2D and without a compression: the same
if "$bench" --only 2d --n 500 --density 0.5 --warmup 1 --collisions 3 --save-start "$work/disks.snap" \
     --csv "$work/d1.csv" >/dev/null 2>&1 &&
   "$bench" --start "$work/disks.snap" --warmup 1 --collisions 3 --csv "$work/d2.csv" >/dev/null 2>&1 &&
   [ "$(physics "$work/d1.csv")" = "$(physics "$work/d2.csv")" ] && [ -n "$(physics "$work/d2.csv")" ]; then
  pass "disks saved and timed again: the same run"
else
  fail "disks" "'$(physics "$work/d1.csv")' against '$(physics "$work/d2.csv")'"
fi

# a 2D mixture (--big in 2D): the disks left and the area fraction follow
# from the lattice (sites * pi/4 = density * area; a disk of diameter 6
# covers the sites within 3.5 of its centre, about 18), and the run conserves energy
if "$bench" --only 2d --n 2000 --density 0.4 --big 3:6 --warmup 1 --collisions 4 --csv "$work/big2d.csv" \
     >"$work/big2d.log" 2>&1; then
  got=$(awk -F, 'NR == 2 { split($4, l, "x"); sites = l[1] * l[2]; small = $2 - 3;
                           want = 0.4 * (small + 3 * 36) / sites;
                           ok = $1 == 2 && sites - small - 3 > 3 * 12 && sites - small - 3 < 3 * 25 &&
                                ($3 - want) ^ 2 < 1e-8 && $15 + 0 < 1e-10 && $6 >= 4 * $2;
                           printf "%s %d bodies of %d sites, fraction %s (expected %.4f)", ok ? "ok" : "bad", $2, sites, $3, want }' \
        "$work/big2d.csv")
  if [[ $got == ok* ]]; then pass "disks with 3 of diameter 6 among them: ${got#ok }"; else fail "2D --big" "$got"; fi
else
  fail "2D --big" "$(tail -3 "$work/big2d.log")"
fi

# refused: exit status 2 (options) or 1 (the case failed), the message, nothing written
refused() { # name, status, expected text, args...
  local name=$1 want=$2 expected=$3 out status
  shift 3
  out=$("$bench" "$@" 2>&1); status=$?
  if [ "$status" -eq "$want" ] && [[ $out == *"$expected"* ]]; then pass "refused: $name"
  else fail "refused: $name" "status $status: $(printf '%s' "$out" | tail -2)"; fi
}
refused "big disks that overlap" 2 "the big disks overlap" --only 2d --n 2000 --density 0.4 --big 200:9 \
  --csv "$work/bad.csv"
refused "a lattice option with --start" 2 "--density: a lattice option, expected none with --start" \
  --start "$work/start.snap" --density 0.4 --csv "$work/bad.csv"
refused "--save-start with several cases" 2 "expected one case, got 2" \
  --only 3d --n 500 --save-start "$work/two.snap" --csv "$work/bad.csv"
refused "a missing snapshot" 2 "cannot open it" --start "$work/none.snap" --csv "$work/bad.csv"
refused "a folder as the snapshot" 2 "expected a non-empty regular file" --start "$work" --csv "$work/bad.csv"
head -c 1000 "$work/start.snap" >"$work/cut.snap"
refused "a cut snapshot" 2 "1000 are present" --start "$work/cut.snap" --csv "$work/bad.csv"
printf 'not a snapshot at all\n' >"$work/text.snap"
refused "a text file" 2 "not a snapshot carom can restore" --start "$work/text.snap" --csv "$work/bad.csv"
mkdir "$work/folder"
refused "--save-start onto a folder" 1 "is not a regular file" \
  --only 3d --n 500 --density 0.3 --warmup 0 --collisions 1 --save-start "$work/folder" --csv "$work/bad.csv"
if [ -d "$work/folder" ] && [ -z "$(ls -A "$work/folder")" ] && ! compgen -G "$work/*.tmp-*" >/dev/null &&
   [ ! -e "$work/two.snap" ]; then
  pass "nothing half-written: the folder untouched, no temporary file left"
else
  fail "nothing half-written" "$(ls -A "$work")"
fi

finish
