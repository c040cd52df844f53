#!/usr/bin/env bash
# test_airhockey_cli.sh — `carom airhockey` end to end: help; a short game
# prints its score and statistics; the event log's goal rows add up to the
# printed score and its pair and wall rows to the printed collisions; the
# trajectory has one frame per window plus the first; the same seed prints
# the same game and writes the same files, another seed does not; four
# players; bad options fail with exit status 2, one line naming the option,
# and nothing written.
#
# usage: test_airhockey_cli.sh CAROM_BINARY
# Prints "N passed, N failed" last; exits non-zero if anything failed.
carom=$(realpath "$1")
source "$(dirname "$0")/testlib.sh"

# the printed statistics without the wall-clock line
game_lines() { grep -v '^wall time' "$1"; }
field() { sed -n "s/^$2 *\([0-9][0-9]*\).*/\1/p" "$1" | head -1; }

check_help() {
  local out
  out=$("$carom" airhockey --help) && [[ $out == *"--players 2|4"* && $out == *"--trajectory FILE"* ]] ||
    { fail help "carom airhockey --help"; return; }
  out=$("$carom" --help) && [[ $out == *"carom airhockey"* ]] || { fail help "carom --help lacks airhockey"; return; }
  pass help
}

check_game() {
  local out=$work/game.txt
  "$carom" airhockey --minutes 1 --seed 5 --trajectory "$work/g.xyz" --events "$work/g.csv" --quiet >"$out" 2>"$work/err" ||
    { fail game "exit $?: $(cat "$work/err")"; return; }
  local a b goals windows pairs walls
  read -r a b < <(sed -n 's/^score *\([0-9]*\) - \([0-9]*\).*/\1 \2/p' "$out")
  goals=$(field "$out" goals); windows=$(sed -n 's/.* in \([0-9]*\) windows.*/\1/p' "$out")
  [ "$windows" = 3000 ] || { fail game "windows: '$windows' (expected 3000)"; return; }
  [ "$goals" -eq $((a + b)) ] && [ "$goals" -gt 0 ] || { fail game "goals $goals, score $a - $b"; return; }
  [ "$(grep -c ',goal,0,' "$work/g.csv")" -eq "$a" ] && [ "$(grep -c ',goal,1,' "$work/g.csv")" -eq "$b" ] ||
    { fail game "goal rows do not match the score $a - $b"; return; }
  pairs=$(sed -n 's/.*(pair \([0-9]*\),.*/\1/p' "$out"); walls=$(sed -n 's/.*; wall \([0-9]*\)).*/\1/p' "$out")
  [ "$(grep -c ',pair,' "$work/g.csv")" -eq "$pairs" ] && [ "$(grep -c ',wall,' "$work/g.csv")" -eq "$walls" ] ||
    { fail game "pair/wall rows differ from the printed $pairs / $walls"; return; }
  [ "$(head -1 "$work/g.csv")" = "time,kind,a,b,c" ] || { fail game "event log header"; return; }
  [ "$(grep -c '^3$' "$work/g.xyz")" -eq 3001 ] || { fail game "trajectory frames: $(grep -c '^3$' "$work/g.xyz")"; return; }
  # the last frame's time is the end of the last window, one minute
  tail -4 "$work/g.xyz" | grep -q 'Time=60 ' || tail -4 "$work/g.xyz" | grep -q 'Time=60\.0000000000' ||
    { fail game "last frame: $(tail -4 "$work/g.xyz" | head -1)"; return; }
  pass game
}

check_determinism() {
  "$carom" airhockey --minutes 1 --seed 5 --trajectory "$work/h.xyz" --events "$work/h.csv" --quiet >"$work/h.txt" ||
    { fail determinism "second run failed"; return; }
  "$carom" airhockey --minutes 1 --seed 6 --events "$work/i.csv" --quiet >"$work/i.txt" ||
    { fail determinism "seed 6 failed"; return; }
  diff <(game_lines "$work/game.txt") <(game_lines "$work/h.txt") >/dev/null &&
    cmp -s "$work/g.xyz" "$work/h.xyz" && cmp -s "$work/g.csv" "$work/h.csv" ||
    { fail determinism "the same seed gave another game"; return; }
  cmp -s "$work/g.csv" "$work/i.csv" && { fail determinism "seeds 5 and 6 gave the same event log"; return; }
  pass determinism
}

check_four_players() {
  local out
  out=$("$carom" airhockey --players 4 --minutes 0.5 --trajectory "$work/four.xyz" --quiet) ||
    { fail four "exit $?"; return; }
  [[ $out == *"4 players"* ]] && [ "$(head -1 "$work/four.xyz")" = 5 ] || { fail four "$out"; return; }
  sed -n 2,7p "$work/four.xyz" | awk 'NR > 1 { print $1 }' | tr '\n' ' ' | grep -q '^puck mallet mallet mallet mallet $' ||
    { fail four "species: $(sed -n 3,7p "$work/four.xyz" | awk '{ print $1 }' | tr '\n' ' ')"; return; }
  pass four
}

# bad NAME EXPECTED ARGS...: exit 2, one line containing EXPECTED, nothing written
bad() { refused_option airhockey --events "$@"; }

check_bad_options() {
  bad players3 "--players: '3' is not a usable value (expected 2 or 4)" --players 3
  bad players-word "--players: 'two'" --players two
  bad seed-negative "--seed: '-1' is not a usable value (expected a whole number >= 0)" --seed -1
  bad seed-word "--seed: 'x1'" --seed x1
  bad minutes-zero "--minutes: '0' is not a usable value (expected a finite number > 0)" --minutes 0
  bad minutes-nan "--minutes: 'nan'" --minutes nan
  bad minutes-huge "--minutes: '1e300' is too long (expected at most 525600)" --minutes 1e300
  bad unknown "unknown option '--frobnicate'" --frobnicate 1
  bad missing "--minutes needs a value" --minutes
  bad positional "unexpected argument 'game.yaml'" game.yaml
  # an output that cannot be written: status 1, one line, nothing left behind
  local out status
  out=$("$carom" airhockey --minutes 0.1 --trajectory "$work/no/such/dir/t.xyz" 2>&1); status=$?
  [ $status -eq 1 ] && [[ $out == *"no/such/dir/t.xyz: cannot write"* ]] || { fail "bad output" "status $status: $out"; return; }
  pass "bad output"
}

check_help
check_game
check_determinism
check_four_players
check_bad_options
finish
