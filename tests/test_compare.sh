#!/usr/bin/env bash
# test_compare.sh — `carom compare` end to end: help and usage errors (exit
# 2) and bad input (exit 1); a fast head-on pair whose tunnelling through
# the plain frame stepper the report counts, while the bisection stepper
# with the same dt finds the collision at its analytic time; on a dilute gas
# the exact engine conserves energy and is reproducible bit for bit, the
# frame stepper is not reproducible under shifted frames, and its position
# error shrinks with dt; the JSON and CSV outputs are complete.
#
# usage: test_compare.sh CAROM_BINARY
# Prints "N passed, N failed" last; exits non-zero if anything failed.
carom=$(realpath "$1")
source "$(dirname "$0")/testlib.sh"

# csv_field FILE METHOD DT COLUMN: one value of the CSV report (dt "0" for exact).
csv_field() {
  awk -F, -v m="$2" -v dt="$3" -v col="$4" '
    NR == 1 { for (k = 1; k <= NF; k++) if ($k == col) c = k; next }
    $1 == m && ($2 + 0) == (dt + 0) { print $c; exit }' "$1"
}
# less A B: A < B as numbers
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# Two unit disks 3 apart closing at 40 in a walled box: contact at t = 0.05.
cat >"$work/head_on.xyz" <<'EOF'
2
Properties=species:S:1:pos:R:3:velo:R:3:radius:R:1
A -1.5 0 0 20 0 0 0.5
B 1.5 0 0 -20 0 0 0.5
EOF
cat >"$work/head_on.yaml" <<'EOF'
world: {dim: 2, box: [40, 40], boundary: walls}
bodies: [{file: head_on.xyz}]
run: {until: 0.9}
EOF
# 60 unit disks in a 40 x 40 box: a dilute gas.
cat >"$work/dilute.yaml" <<'EOF'
world: {dim: 2, box: [40, 40], boundary: walls}
seed: 7
bodies: [{count: 60, radius: 0.5, place: random, velocity: {temperature: 1}}]
run: {until: 2}
EOF

check_usage() {
  local out
  out=$("$carom" compare --help) && [[ $out == *"--dt DT[,DT...]"* && $out == *"--scaling"* ]] ||
    { fail usage "compare --help"; return; }
  out=$("$carom" --help) && [[ $out == *"carom compare"* ]] || { fail usage "carom --help lacks compare"; return; }
  out=$("$carom" compare 2>&1); [ $? -eq 2 ] && [[ $out == "carom: give a scenario file"* ]] ||
    { fail usage "no scenario: $out"; return; }
  out=$("$carom" compare "$work/dilute.yaml" 2>&1); [ $? -eq 2 ] && [[ $out == *"--dt"* ]] ||
    { fail usage "no --dt: $out"; return; }
  out=$("$carom" compare "$work/dilute.yaml" --dt 0.01,abc 2>&1); [ $? -eq 2 ] && [[ $out == *"--dt: 'abc'"* ]] ||
    { fail usage "bad dt: $out"; return; }
  out=$("$carom" compare "$work/dilute.yaml" --dt 0.01 --frobnicate 2>&1); [ $? -eq 2 ] &&
    [[ $out == *"unknown option '--frobnicate'"* ]] || { fail usage "unknown option: $out"; return; }
  out=$("$carom" compare "$work/dilute.yaml" --scaling 2>&1); [ $? -eq 2 ] || { fail usage "--scaling with a scenario: $out"; return; }
  out=$("$carom" compare "$work/missing.yaml" --dt 0.01 2>&1); [ $? -eq 1 ] && [[ $out == *"missing.yaml"* ]] ||
    { fail usage "missing scenario: $out"; return; }
  out=$("$carom" compare "$work/dilute.yaml" --dt 0.5 2>&1); [ $? -eq 1 ] && [[ $out == *"fewer frames"* ]] ||
    { fail usage "dt too large: $out"; return; }
  out=$("$carom" compare "$work/dilute.yaml" --dt 0.01 --csv "$work/no/such/dir.csv" --quiet 2>&1)
  [ $? -eq 1 ] && [[ $out == *"cannot write"* ]] || { fail usage "unwritable output: $out"; return; }
  pass usage
}

check_head_on() {
  local csv=$work/head_on.csv out
  out=$("$carom" compare "$work/head_on.yaml" --dt 0.09 --checkpoints 5 --csv "$csv" --quiet 2>&1) ||
    { fail head_on "run failed: $out"; return; }
  [[ $out == *"method"*"missed"* ]] || { fail head_on "no table: $out"; return; }
  [ "$(csv_field "$csv" exact 0 pair_collisions)" = 1 ] || { fail head_on "exact: not one collision"; return; }
  # dt = 0.09: the first frame end finds them overlapping with centres past each other
  [ "$(csv_field "$csv" frame 0.09 pair_collisions)" = 0 ] && [ "$(csv_field "$csv" frame 0.09 missed)" = 1 ] ||
    { fail head_on "frame: the tunnelling is not counted: $(grep frame "$csv")"; return; }
  [ "$(csv_field "$csv" bisection 0.09 pair_collisions)" = 1 ] && [ "$(csv_field "$csv" bisection 0.09 missed)" = 0 ] ||
    { fail head_on "bisection: $(grep bisection "$csv")"; return; }
  # after the exact bounce the bodies recede: bisection agrees to within eps-sized errors
  less "$(csv_field "$csv" bisection 0.09 error_end)" 1e-4 || { fail head_on "bisection error $(csv_field "$csv" bisection 0.09 error_end)"; return; }
  less 30 "$(csv_field "$csv" frame 0.09 error_end)" || { fail head_on "frame error $(csv_field "$csv" frame 0.09 error_end)"; return; }
  pass head_on
}

check_dilute() {
  local csv=$work/dilute.csv json=$work/dilute.json out
  out=$("$carom" compare "$work/dilute.yaml" --dt 0.004,0.001 --csv "$csv" --json "$json" --quiet 2>&1) ||
    { fail dilute "run failed: $out"; return; }
  [ "$(wc -l <"$csv")" -eq 6 ] || { fail dilute "csv rows: $(wc -l <"$csv")"; return; }
  local e
  e=$(csv_field "$csv" exact 0 energy_error)
  awk -v e="$e" 'BEGIN { exit !(e < 1e-13 && e > -1e-13) }' || { fail dilute "exact energy error $e"; return; }
  [ -n "$(csv_field "$csv" frame 0.004 energy_error)" ] || { fail dilute "no frame energy error"; return; }
  [ "$(csv_field "$csv" exact 0 reproducible)" = 1 ] || { fail dilute "exact run not reproducible"; return; }
  [ "$(csv_field "$csv" frame 0.004 reproducible)" = 0 ] || { fail dilute "frame run reproducible under shifted frames?"; return; }
  less "$(csv_field "$csv" frame 0.001 error_end)" "$(csv_field "$csv" frame 0.004 error_end)" ||
    { fail dilute "frame error does not shrink with dt"; return; }
  less "$(csv_field "$csv" bisection 0.004 error_end)" "$(csv_field "$csv" frame 0.004 error_end)" ||
    { fail dilute "bisection not better than frame"; return; }
  less 0 "$(csv_field "$csv" frame 0.004 max_penetration)" || { fail dilute "frame: no penetration"; return; }
  if command -v /usr/bin/python3 >/dev/null; then
    /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d["results"]) == 5
assert len(d["results"][1]["checkpoints"]) == 32' "$json" || { fail dilute "JSON"; return; }
  fi
  pass dilute
}

# --movie: the exact engine (left) and the frame stepper (right) side by
# side; frame k at t = k * 0.5 / 10; its left half shows the disks where a
# trajectory of the same scenario has them at that instant.
check_movie() {
  local k n verdict
  cp "$(dirname "$0")/data/scenarios/movie_gas.yaml" "$work/gas.yaml"
  (cd "$work" && "$carom" compare gas.yaml --dt 0.1 --checkpoints 8 --movie cm.mp4 --fps 10 --speed 0.5 --movie-size 1600x600 \
     --quiet >/dev/null && "$carom" run gas.yaml --trajectory g.xyz --every 0.05 --quiet --stats '' --events-log '') ||
    { fail "compare --movie" "carom failed"; return; }
  n=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames,width,height -of csv=p=0 "$work/cm.mp4")
  [ "$n" = "1600,600,41" ] && pass "compare --movie: 1600x600, 10 fps x 2 / 0.5 + 1 = 41 frames" || fail "compare --movie size and frames" "$n"
  for k in 13 33; do
    ffmpeg -nostdin -v error -i "$work/cm.mp4" -vf "select=eq(n\,$k),crop=800:600:0:0" -frames:v 1 -y "$work/left$k.png"
    ffmpeg -nostdin -v error -i "$work/cm.mp4" -vf "select=eq(n\,$k),crop=800:600:800:0" -frames:v 1 -y "$work/right$k.png"
    "$carom" render "$work/g.xyz" --frame "$k" -o "$work/exact$k.png"
    verdict=$(same_disks "$work/left$k.png" "$work/exact$k.png")
    [[ $verdict == ok* ]] &&
      pass "compare --movie frame $k: the exact half has the disks where the trajectory has them ($verdict)" ||
      fail "compare --movie frame $k, exact half" "$verdict"
    [[ $(same_disks "$work/left$k.png" "$work/right$k.png") == bad* ]] &&
      pass "compare --movie frame $k: the stepper's half differs" ||
      fail "compare --movie frame $k, stepper half" "the same disks as the exact half"
  done
  local out st
  out=$(cd "$work" && "$carom" compare gas.yaml --dt 0.1 --checkpoints 8 --speed 0.5 2>&1); st=$?
  [ $st -eq 2 ] && [[ $out == *"are for --movie"* ]] && pass "compare: --speed without --movie refused" ||
    fail "compare --speed alone" "status $st: $out"
  out=$(cd "$work" && "$carom" compare gas.yaml --dt 0.1 --checkpoints 8 --movie bad.avi --quiet 2>&1); st=$?
  [ $st -eq 1 ] && [[ $out == *"must end in .mp4 or .gif"* ]] && ! compgen -G "$work/bad.avi*" >/dev/null &&
    pass "compare --movie: a bad name refused, nothing written" || fail "compare --movie bad name" "status $st: $out"
}

check_usage
check_head_on
check_dilute
check_movie
finish
