#!/usr/bin/env bash
# test_repro.sh — every example runs to its full run.until with its own
# outputs (to a fifth of it in the sanitizer pass, CAROM_TEST_QUICK=1),
# and the inputs that once broke carom (tests/data/repro, copies of
# the reproductions in shared/repro) each end within a minute as they should:
# the Zeno ball rests at the closed-form time, restitution 0 and a resting
# lattice under gravity run to their end, an empty world runs, event caps
# that cannot be reached and frame intervals that cannot advance the clock
# end with a message, a box whose sides overflow is refused.
#
# usage: test_repro.sh CAROM_BINARY EXAMPLES_DIR REPRO_DIR
# Prints "N passed, N failed" last; exits non-zero if anything failed.
carom=$(realpath "$1")
examples=$(realpath "$2")
repro=$(realpath "$3")
source "$(dirname "$0")/testlib.sh"
# same A B: the two numbers are the same double
same() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 == b + 0) }'; }

# ---- every example to its end ----------------------------------------------

check_example() { # file
  local name dir until code
  name=$(basename "$1" .yaml)
  dir="$work/example_$name"
  mkdir -p "$dir"
  until=$(example_until "$1")
  [ -n "$until" ] || { fail "example $name" "no run.until in the file"; return; }
  (cd "$dir" && timeout 300 "$carom" run "$1" --quiet --until "$until" --stats stats.json) >"$dir/out" 2>&1
  code=$?
  [ $code -eq 0 ] || { fail "example $name" "exit $code: $(head -c 300 "$dir/out")"; return; }
  [ "$(json_text "$dir/stats.json" status)" = completed ] || { fail "example $name" "status not completed"; return; }
  same "$(json_number "$dir/stats.json" time)" "$until" ||
    { fail "example $name" "ended at t = $(json_number "$dir/stats.json" time), not at until = $until"; return; }
  pass "example $name runs to t = $until"
}

# ---- the reproductions ---------------------------------------------------------

run_repro() { # name, extra options...: runs in a fresh copy, sets $dir, $code, $out
  local name=$1
  shift
  dir="$work/repro_$name"
  mkdir -p "$dir"
  cp "$repro"/* "$dir"/
  out=$(cd "$dir" && timeout 60 "$carom" run "$name.yaml" --quiet "$@" 2>&1)
  code=$?
}

check_zeno() {
  run_repro zeno --stats st.json --events-log ev.csv
  [ $code -eq 0 ] || { fail zeno "exit $code: $out"; return; }
  local rest
  rest=$(awk -F, '$2 == "rest" { print $1 }' "$dir/ev.csv")
  [ "$(echo "$rest" | wc -w)" -eq 1 ] || { fail zeno "expected one rest event, got '$rest'"; return; }
  same "$rest" 7.9372539331937718 || { fail zeno "rests at $rest, not at 3 sqrt(7) = 7.9372539331937718"; return; }
  same "$(json_number "$dir/st.json" time)" 10 || { fail zeno "did not run to t = 10"; return; }
  [ "$(json_event "$dir/st.json" wall)" -lt 100 ] || { fail zeno "$(json_event "$dir/st.json" wall) bounces"; return; }
  pass "zeno: the ball rests at the closed-form time 3 sqrt(7) and the run ends at 10"
}

check_completes() { # name, until, what
  run_repro "$1" --stats st.json --events-log ev.csv
  [ $code -eq 0 ] || { fail "$1" "exit $code: $out"; return; }
  [ "$(json_text "$dir/st.json" status)" = completed ] && same "$(json_number "$dir/st.json" time)" "$2" ||
    { fail "$1" "did not complete at t = $2"; return; }
  grep -qi nan "$dir/st.json" && { fail "$1" "NaN in the statistics"; return; }
  pass "$1: $3"
}

check_resting_lattice() {
  check_completes resting-lattice-gravity 10 "the lattice's bottom row rests on the floor; runs to t = 10"
  local at_start
  at_start=$(awk -F, 'NR > 1 && $1 + 0 == 0' "$dir/ev.csv" | wc -l)
  [ "$at_start" -eq 0 ] || fail resting-lattice-gravity "$at_start events at t = 0 (resting bodies are not events)"
}

check_refused() { # name, expected message part, what, extra options...
  local name=$1 part=$2 what=$3
  shift 3
  run_repro "$name" "$@"
  [ $code -ne 0 ] && [ $code -ne 124 ] || { fail "$name" "exit $code (expected a refusal, not a hang)"; return; }
  [[ $out == *"$part"* ]] || { fail "$name" "message '$out' should say '$part'"; return; }
  [[ $out == carom:* ]] && [ "$(echo "$out" | wc -l)" -le 2 ] || { fail "$name" "not one clear line: $out"; return; }
  pass "$name: $what"
}

check_no_leftovers() { # name: nothing half-written is left behind
  local extra
  extra=$(cd "$dir" && ls | grep -v -x -F -f <(ls "$repro") | grep -v -x -e st.json -e ev.csv)
  [ -z "$extra" ] || fail "$1" "left files behind: $extra"
}

for example in "$examples"/*.yaml; do check_example "$example"; done
check_zeno
check_completes restitution-zero 20 "100 disks at restitution 0 run to t = 20"
check_resting_lattice
check_completes empty-world 1 "a world with no bodies runs"
check_refused rest-events-cap "no further event can happen" "bodies at rest with only a cap end with why" --stats st.json
grep -qi nan "$dir/st.json" && fail rest-events-cap "NaN in the statistics"
check_refused events-unreachable "no further event can happen" "an unreachable cap ends with a message"
check_refused until-tiny "cannot advance the clock" "a frame interval that cannot advance the clock is refused"
check_no_leftovers until-tiny
check_refused lattice-huge-box "supported range" "a box whose sides overflow is refused, naming the range"

finish
