#!/usr/bin/env bash
# test_hostile.sh — `carom run` fed what a user trying to break it would feed
# it (found in the sweep of 2026-11-29), one case for each class of defect:
# numbers that made a loop endless (a thermostat rate whose total overflows,
# a structure factor over too many wavevectors, more frames than a trajectory
# can count), files with no line end (/dev/zero as a body file or controls),
# values the library would only refuse mid-run (controls, thermostat draws),
# outputs that named one file twice or an input, NaN in a series, a file
# name at the longest a folder takes, a scenario name that is not UTF-8 in
# the statistics, gnuplot titles from file names, and timeout(1)'s two
# SIGTERMs; and from the sweep's leftovers (2026-11-29, later): settings
# that change nothing, hex numbers, YAML nested too deep for libyaml's
# scanner, a 3D frame read into a 2D world, an output that is where
# standard output goes, and an event log cut short before a restart. Each
# refusal must name its place and leave nothing written.
#
# usage: test_hostile.sh CAROM
carom=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/testlib.sh"
cd "$work" || exit 1

scenario() { # scenario FILE EXTRA_YAML...: a small periodic 2D gas with the extra lines
  local file=$1
  shift
  {
    echo "seed: 3"
    echo "world: {dim: 2, box: [10, 10], boundary: periodic}"
    echo "bodies: [{count: 5, radius: 0.5, velocity: {temperature: 1.0}}]"
    printf '%s\n' "$@"
  } >"$file"
}

# refused NAME EXPECTED ARGS...: carom ARGS exits 1 within 20 s with EXPECTED
# in its one line, and leaves no file but the scenarios in the folder.
refused() {
  local name=$1 expected=$2 out status left
  shift 2
  out=$(timeout -k 5 20 "$carom" "$@" 2>&1); status=$?
  left=$(find . -maxdepth 1 -type f ! -name '*.yaml' ! -name '*.csv.in' | sort | tr '\n' ' ')
  if [ $status -ne 1 ] || [[ $out != *"$expected"* ]] || [ -n "$left" ]; then
    fail "$name" "status $status, left '$left': $out"
  else
    pass "$name"
  fi
  find . -maxdepth 1 -type f ! -name '*.yaml' ! -name '*.csv.in' -delete
}

# ---- loops that could not end --------------------------------------------------
scenario rate.yaml "run: {until: 2}" "thermostat: {andersen: {temperature: 1, rate: 5e307}}" \
  "output: {trajectory: r.xyz, stats: r.json}"
refused "a thermostat rate whose total overflows" "rate.yaml:5:13: thermostat: rate 5e+307 on 5 free bodies" \
  run rate.yaml --quiet
scenario kick.yaml "run: {until: 2}" "thermostat: {drive: {kick: 1e308, rate: 1}}" "output: {stats: k.json}"
refused "a kick past the velocities a world takes" "kick.yaml:5:13: thermostat: kick 1e+308" run kick.yaml --quiet
scenario hot.yaml "run: {until: 2}" "thermostat: {andersen: {temperature: 1e308, rate: 1}}" "output: {stats: h.json}"
refused "a bath temperature past the velocities a world takes" "hot.yaml:5:13: thermostat: temperature 1e+308" \
  run hot.yaml --quiet
scenario sk.yaml "run: {until: 2}" "analysis: {output: an, structure_factor: {max: 1e6}}" "output: {stats: s.json}"
refused "a structure factor over 10^13 wavevectors" "takes over 20000 wavevectors" run sk.yaml --quiet
scenario frames.yaml "run: {until: 2}" "output: {every: 1e-308, trajectory: f.xyz}"
refused "more frames than a trajectory counts" "would take more than 2147483646 frames" run frames.yaml --quiet

# ---- files without line ends -----------------------------------------------------
scenario zero.yaml "run: {until: 2}"
sed -i 's|bodies: .*|bodies: [{file: /dev/zero}]|' zero.yaml
refused "/dev/zero as a body file" "/dev/zero:1:1: a line longer than 1048576 bytes" run zero.yaml --quiet
scenario zc.yaml "run: {until: 2, window: 0.5, controls: /dev/zero}" "output: {stats: z.json}"
refused "/dev/zero as controls" "/dev/zero:1: a line longer than 1048576 bytes" run zc.yaml --quiet

# ---- values refused before the run, at their place ----------------------------------
printf 'time,body,ax,ay\n0,0,2,0\n1,0,1e-80,0\n' >tiny.csv.in
scenario ctl.yaml "run: {until: 2, window: 0.5, controls: tiny.csv.in}" "output: {trajectory: c.xyz, stats: c.json}"
refused "an acceleration below the world's range in controls" "tiny.csv.in:3:5: ax = 1e-80" run ctl.yaml --quiet

# ---- outputs apart from each other and from the inputs ---------------------------------
scenario two.yaml "run: {until: 2}"
refused "checkpoint and series on one file" "named for both the checkpoint and the series" \
  run two.yaml --quiet --checkpoint a.out --series a.out
refused "statistics over the scenario" "named for the statistics, but the run reads it" \
  run two.yaml --quiet --stats two.yaml
scenario an.yaml "run: {until: 2}" "analysis: {output: v, flights: {bins: 10}}" "output: {stats: v.json}"
refused "the analysis summary over the statistics" "named for both the statistics and an analysis file" \
  run an.yaml --quiet

scenario std.yaml "run: {until: 2}"
printf 'placeholder\n' >shared.csv.in
out=$("$carom" run std.yaml --quiet --stats - --events-log shared.csv.in 2>&1 >shared.csv.in); status=$?
if [ $status -eq 1 ] && [[ $out == *"shared.csv.in: named for the event log, but it is where standard output goes"* ]]; then
  pass "an output that is where standard output (--stats -) goes"
else
  fail "an output that is where standard output goes" "status $status: $out"
fi
rm -f shared.csv.in
"$carom" run std.yaml --quiet --events-log /dev/stdout 2>&1 | cat >piped.csv.in; status=${PIPESTATUS[0]}
if [ "$status" -eq 0 ] && [ "$(head -1 piped.csv.in)" = time,kind,i,j ] && [ "$(wc -l <piped.csv.in)" -gt 1 ]; then
  pass "--events-log /dev/stdout into a pipe"
else
  fail "--events-log /dev/stdout into a pipe" "status $status: $(head -c 200 piped.csv.in)"
fi
rm -f piped.csv.in
refused "--stats - and --events-log - together" "-: named for both the event log and the statistics" \
  run std.yaml --quiet --stats - --events-log -

# ---- settings that would change nothing, numbers as decimals only ------------------------
scenario every.yaml "run: {until: 2}" "output: {every: 0.5, stats: e.json}"
refused "output.every with no trajectory or series" "every.yaml:5:17: output.every sets the interval" \
  run every.yaml --quiet
scenario ckevery.yaml "run: {until: 2}" "output: {checkpoint_every: 0.5}"
refused "checkpoint_every with no checkpoint" "ckevery.yaml:5:28: output.checkpoint_every needs a checkpoint" \
  run ckevery.yaml --quiet
out=$("$carom" run std.yaml --quiet --until 0x1p1 2>&1); status=$?
if [ $status -eq 2 ] && [[ $out == *"--until: '0x1p1' is not a usable value"* ]]; then
  pass "a hex number refused on the command line, as in a scenario"
else
  fail "a hex number on the command line" "status $status: $out"
fi
python3 -c "print('seed: 3\nworld: {dim: 2, box: [10, 10]}\nbodies: [{count: 5, radius: 0.5}]\nrun: {until: 1}\nx: ' + '[' * 300000 + ']' * 300000)" >deep.yaml
if "$carom" run <(cat std.yaml) --quiet --stats piped.json && [ -s piped.json ]; then pass "a scenario read from a pipe"
else fail "a scenario read from a pipe" "refused"; fi
rm -f piped.json
refused "a scenario nested 300,000 deep, refused at once" "deep.yaml:5:260: [ or { nested 257 deep" run deep.yaml --quiet

# ---- a 2D world reads a file's bodies in one plane --------------------------------------
printf '2\nProperties=species:S:1:pos:R:3:velo:R:3:radius:R:1\nA 0 0 2 0 0 0 0.5\nA 3 0 2.5 0 0 0 0.5\n' >tilted.xyz.csv.in
scenario plane.yaml "run: {until: 1}" "output: {stats: p.json}"
sed -i 's|bodies: .*|bodies: [{file: tilted.xyz.csv.in}]|' plane.yaml
refused "a 3D frame read into a 2D world" "tilted.xyz.csv.in:4: body 1 has z = 2.5" run plane.yaml --quiet
sed -i 's/2.5 0 0 0 0.5/2 0 0 0 0.5/' tilted.xyz.csv.in
if "$carom" run plane.yaml --quiet && [ -s p.json ]; then pass "a 2D frame in the plane z = 2, read"
else fail "a 2D frame in the plane z = 2" "refused"; fi
rm -f p.json tilted.xyz.csv.in

# ---- no NaN in a series; its first row's averages are empty ------------------------------
if "$carom" run two.yaml --quiet --series s.csv --every 0.5 && [ "$(sed -n 2p s.csv | cut -d, -f7-9)" = ",," ] &&
   ! grep -qi nan s.csv && [ "$(wc -l <s.csv)" -eq 6 ] && "$carom" plot s.csv --what pressure -o p.svg; then
  pass "a series without NaN, plotted"
else
  fail "a series without NaN" "$(sed -n 2p s.csv 2>/dev/null)"
fi
rm -f s.csv p.svg

# ---- names ------------------------------------------------------------------------
long=$(printf 'a%.0s' $(seq 250)).json
if "$carom" run two.yaml --quiet --stats "$long" && [ -s "$long" ]; then pass "an output name of 255 bytes"
else fail "an output name of 255 bytes" "not written"; fi
rm -f "$long"
odd=$'\xff\xfe.yaml'
cp two.yaml "$odd"
if "$carom" run "$odd" --quiet --stats odd.json &&
   python3 -c 'import json, sys; d = json.load(open("odd.json")); sys.exit(d["scenario"] != "\ufffd\ufffd.yaml")'; then
  pass "a scenario name that is not UTF-8, in valid JSON"
else
  fail "a scenario name that is not UTF-8" "$(head -c 300 odd.json 2>/dev/null)"
fi
rm -f "$odd" odd.json
quote='q"u;system("touch pwned").csv'
if "$carom" run two.yaml --quiet --series "$quote" && "$carom" plot "$quote" -o q.png && [ -s q.png ] && [ ! -e pwned ]; then
  pass "a series named with quotes, plotted without running its name"
else
  fail "a series named with quotes" "$(ls)"
fi
rm -f "$quote" q.png pwned

# ---- plot and render ----------------------------------------------------------------
"$carom" run two.yaml --quiet --series s.csv --every 0.5
touch target.png && chmod 600 target.png && ln -s target.png link.png
if "$carom" plot s.csv -o link.png && [ -L link.png ] && [ -s target.png ] &&
   [ "$(stat -c %a target.png)" = 600 ] && python3 "$here/png_probe.py" size target.png >/dev/null; then
  pass "a plot through a symbolic link: the link kept, the target's mode kept"
else
  fail "a plot through a symbolic link" "$(ls -l link.png target.png 2>&1 | tr '\n' ' ')"
fi
rm -f s.csv link.png target.png
printf '1\nLattice="10 0 0 0 10 0 0 0 1" Properties=species:S:1:pos:R:3:radius:R:1 Time=0\nA 5 5 0 1e40\n' >huge.xyz
out=$(timeout 20 "$carom" render huge.xyz -o both.png --frame 0 --time 0 2>&1); status=$?
if [ $status -eq 2 ] && [[ $out == *"--frame and --time both pick the frame"* ]] && [ ! -e both.png ]; then
  pass "render: --frame and --time together refused"
else
  fail "render: --frame and --time together" "status $status: $out"
fi
if timeout 20 "$carom" render huge.xyz -o huge.png && [ -s huge.png ]; then pass "a body of radius 1e40, drawn"
else fail "a body of radius 1e40" "status $?"; fi
rm -f huge.xyz huge.png

# ---- a restart from damaged files ------------------------------------------------------
scenario walls.yaml "run: {until: 2}" "output: {every: 0.1, trajectory: w.xyz, events: w.csv, checkpoint: w.ckpt}"
sed -i 's/boundary: periodic/boundary: walls/; s/count: 5,/count: 40,/' walls.yaml
"$carom" run walls.yaml --quiet --until 1
cp w.xyz w.xyz.good
cp w.csv w.csv.good
truncate -s -1 w.xyz
out=$("$carom" run --restart w.ckpt --until 2 --quiet 2>&1); status=$?
if [ $status -eq 1 ] && [[ $out == *"w.xyz:"*": the line is cut short"* ]] && cmp -s <(head -c -1 w.xyz.good) w.xyz; then
  pass "a restart refuses a trajectory cut short, and leaves it as it was"
else
  fail "a restart from a trajectory cut short" "status $status: $out"
fi
cp w.xyz.good w.xyz
sed -i '2s/Time=[^ ]*/Time=-1e300/' w.xyz
out=$(timeout 20 "$carom" run --restart w.ckpt --until 2 --quiet 2>&1); status=$?
if [ $status -eq 1 ] && [[ $out == *"the first frame is at t = -1"* ]]; then pass "a restart refuses a first frame at -1e300"
else fail "a restart from a first frame at -1e300" "status $status: $out"; fi
cp w.xyz.good w.xyz
sed -i '5s/^[^,]*/nan/' w.csv
out=$("$carom" run --restart w.ckpt --until 2 --quiet 2>&1); status=$?
if [ $status -eq 1 ] && [[ $out == *"w.csv:5: a time that is not a number"* ]]; then pass "a restart refuses a NaN time in the event log"
else fail "a restart from an event log with NaN" "status $status: $out"; fi
cp w.csv.good w.csv
head -1 w.csv.good >w.csv
out=$("$carom" run --restart w.ckpt --until 2 --quiet 2>&1); status=$?
if [ $status -eq 1 ] && [[ $out == *"w.csv:1: the log ends after 0 rows, but the checkpoint's run had written"* ]] &&
   [ "$(wc -l <w.csv)" -eq 1 ]; then
  pass "a restart refuses an event log cut to its header, and leaves it as it was"
else
  fail "a restart from an event log cut to its header" "status $status: $out"
fi
cp w.csv.good w.csv
echo "1e9,pair,0,1" >>w.csv
if "$carom" run --restart w.ckpt --until 2 --quiet && ! grep -q '^1e9,' w.csv &&
   [ "$(sed -n "$(wc -l <w.csv.good)p" w.csv)" = "$(tail -1 w.csv.good)" ]; then
  pass "a restart keeps the rows its checkpoint counts and drops a later one"
else
  fail "a restart's event log" "$(tail -2 w.csv)"
fi
rm -f w.xyz w.xyz.good w.csv w.csv.good w.ckpt

out=$("$carom" run --restart --quiet 2>&1); status=$?
if [ $status -eq 2 ] && [[ $out == *"--restart needs a value, not the option '--quiet'"* ]]; then
  pass "an option where a value should be is not taken for a file name"
else
  fail "--restart --quiet" "status $status: $out"
fi

# ---- compare: outputs checked before it runs ------------------------------------------------
scenario cmp.yaml "run: {until: 1}"
refused "compare: --json and --csv on one file" "named for both --json and --csv" \
  compare cmp.yaml --dt 0.01 --json j.out --csv j.out --quiet
refused "compare: a frame count past llround" "frames to t = 1 (expected at most" compare cmp.yaml --dt 1e-20 --quiet

# ---- timeout(1): SIGTERM to carom and its group, one request --------------------------------
scenario long.yaml "world: {dim: 2, box: [10, 10], boundary: walls}" "run: {until: 1e6}" \
  "output: {every: 0.5, trajectory: l.xyz, stats: l.json}"
sed -i '2d' long.yaml
timeout 1 "$carom" run long.yaml --quiet 2>/dev/null; status=$?
temporaries=$(find . -name 'l.*.??????' | wc -l)
if [ $status -eq 124 ] && [ "$(json_text l.json status)" = interrupted ] && [ "$temporaries" -eq 0 ] &&
   [ "$(head -1 l.xyz)" = 5 ]; then
  pass "timeout's two SIGTERMs: one clean stop"
else
  fail "timeout's two SIGTERMs" "status $status, $temporaries temporaries, $(json_text l.json status 2>/dev/null)"
fi
finish
