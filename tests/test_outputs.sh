#!/usr/bin/env bash
# test_outputs.sh — what `carom run` does with its output paths, case by case,
# and the files and modes found after each: a device and /dev/full, a FIFO,
# symbolic links (to a file, dangling), a read-only folder, a missing folder,
# a folder in place of a file, existing modes kept and new ones from the
# umask, an empty name turning an output off, two outputs on one file,
# options that would be ignored, SIGINT and SIGTERM, a jam, restarts that
# append (and refuse what does not match), and kill -9 during checkpoint
# writes (the previous good checkpoint stays whole and restores).
#
# The read-only folder must stop root too (the tests may run as root, which
# ignores permission bits): it is made immutable with chattr +i where the file
# system allows it, else read-only by mode when not root, else /sys (sysfs
# takes no new files, even from root). The case says which it used.
#
# usage: test_outputs.sh CAROM_BINARY
# Prints "N passed, N failed" last; exits non-zero if anything failed.
set -u
carom=$(realpath "$1")
work=$(mktemp -d)
immutable=
cleanup() { [ -n "$immutable" ] && chattr -i "$immutable" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "pass  $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1: $2"; }

# A small elastic gas: 60 disks between walls, about 1500 collisions per unit time.
cat >"$work/gas.yaml" <<'EOF'
world: {dim: 2, box: [30, 30], boundary: walls}
seed: 5
bodies:
  - {count: 60, radius: 0.5, place: random, velocity: {temperature: 1.0}}
run: {until: 2}
EOF
# A big one, for runs that must still be going when they are signalled.
cat >"$work/big.yaml" <<'EOF'
world: {dim: 3, boundary: periodic}
seed: 3
bodies:
  - {count: 4000, radius: 0.5, place: lattice, packing_fraction: 0.3, velocity: {temperature: 1.0}}
run: {until: 100000}
EOF

# case NAME: a fresh folder to run in, as the current directory.
case_dir() { rm -rf "$work/$1"; mkdir -p "$work/$1"; cd "$work/$1" || exit 1; }
mode_of() { stat -c %a "$1"; }
temporaries() { ls -A | grep -E '\.[A-Za-z0-9]{6}$'; }
json_text() { sed -n "s/^  \"$2\": \"\(.*\)\",\$/\1/p" "$1"; }
json_number() { awk -v key="\"$2\":" '$1 == key { v = $2; sub(/,$/, "", v); print v; exit }' "$1"; }
frame_times() { sed -n 's/.* Time=\([^ ]*\).*/\1/p' "$1"; }

# ---- devices and FIFOs are written in place, never replaced -----------------

# The device cases write to device nodes of their own (mknod: the same
# devices as /dev/null and /dev/full), so a carom that wrongly replaced a
# device would replace those and never the system's /dev/null. Without mknod,
# /dev's own are used only when not root (then /dev cannot be written to).
null_device= full_device=
make_devices() {
  if mknod -m 666 "$work/null" c 1 3 2>/dev/null && mknod -m 666 "$work/full" c 1 7 2>/dev/null &&
     echo x >"$work/null" 2>/dev/null; then # (a file system mounted nodev refuses to open them)
    null_device=$work/null full_device=$work/full
  elif [ "$(id -u)" -ne 0 ]; then
    null_device=/dev/null full_device=/dev/full
  fi
}

check_device() {
  case_dir device
  [ -n "$null_device" ] || { echo "skip  device (root without mknod)"; return; }
  local out
  out=$("$carom" run ../gas.yaml --stats "$null_device" --trajectory "$null_device" --quiet 2>&1) ||
    { fail device "exit $?: $out"; return; }
  [ -c "$null_device" ] && [ "$(mode_of "$null_device")" = 666 ] || { fail device "$null_device was replaced"; return; }
  [ -z "$(ls -A "$(dirname "$null_device")" | grep '^null\.')" ] || { fail device "temporary files beside it"; return; }
  pass device
}

check_dev_full() {
  case_dir dev_full
  [ -n "$full_device" ] || { echo "skip  dev_full (root without mknod)"; return; }
  local out status
  out=$("$carom" run ../gas.yaml --stats "$full_device" --quiet 2>&1); status=$?
  [ $status -eq 1 ] && [[ $out == *"$full_device: cannot write (No space left on device)"* ]] ||
    { fail dev_full "stats: exit $status: $out"; return; }
  out=$("$carom" run ../gas.yaml --trajectory "$full_device" --every 0.001 --events-log e.csv --stats s.json --quiet 2>&1)
  status=$?
  [ $status -eq 1 ] && [[ $out == *"$full_device: cannot write (No space left on device)"* ]] ||
    { fail dev_full "trajectory: exit $status: $out"; return; }
  # Noticed when it happened, not at the end: the run stopped at the first full buffer.
  local t
  t=$(json_number s.json time)
  awk -v t="$t" 'BEGIN { exit !(t < 2) }' || { fail dev_full "ran on to t = $t after the disk was full"; return; }
  [ "$(json_text s.json status)" = failed ] || { fail dev_full "stats status: $(json_text s.json status)"; return; }
  [ -c "$full_device" ] || { fail dev_full "$full_device replaced"; return; }
  pass dev_full
}

check_fifo() {
  case_dir fifo
  mkfifo pipe
  timeout 15 cat pipe >got &
  local reader=$! out
  out=$(timeout 60 "$carom" run ../gas.yaml --stats pipe --quiet 2>&1) || { fail fifo "exit $?: $out"; kill $reader; return; }
  wait $reader
  [ -p pipe ] || { fail fifo "the FIFO was replaced"; return; }
  [ "$(json_text got status)" = completed ] || { fail fifo "nothing came through: $(head -2 got)"; return; }
  [ -z "$(temporaries)" ] || { fail fifo "temporary files: $(temporaries)"; return; }
  pass fifo
}

# A reader that goes away: a failed write like any other, not a silent death by SIGPIPE.
check_broken_pipe() {
  case_dir broken_pipe
  "$carom" run ../big.yaml --until 5 --trajectory - --stats s.json --quiet 2>err | head -c 100 >/dev/null
  local status=${PIPESTATUS[0]}
  [ "$status" -eq 1 ] && grep -q "standard output: cannot write (Broken pipe)" err ||
    { fail broken_pipe "exit $status: $(cat err)"; return; }
  [ "$(json_text s.json status)" = failed ] && [ -z "$(temporaries)" ] || { fail broken_pipe "stats or temporaries: $(ls -A)"; return; }
  pass broken_pipe
}

# ---- links, modes ---------------------------------------------------------------

check_symlink() {
  case_dir symlink
  mkdir real
  echo old >real/s.json
  chmod 640 real/s.json
  ln -s real/s.json link.json
  ln -s real/new.json dangling.json
  local out
  out=$("$carom" run ../gas.yaml --stats link.json --checkpoint dangling.json --quiet 2>&1) ||
    { fail symlink "exit $?: $out"; return; }
  [ -L link.json ] && [ "$(readlink link.json)" = real/s.json ] || { fail symlink "the link was replaced"; return; }
  [ "$(json_text real/s.json status)" = completed ] || { fail symlink "the target was not written"; return; }
  [ "$(mode_of real/s.json)" = 640 ] || { fail symlink "target mode $(mode_of real/s.json), expected 640"; return; }
  [ -L dangling.json ] && [ -s real/new.json ] || { fail symlink "dangling link: $(ls -l . real)"; return; }
  [ -z "$(cd real && temporaries)$(temporaries)" ] || { fail symlink "temporary files left"; return; }
  pass symlink
}

check_modes() {
  case_dir modes
  echo old >kept.json; chmod 644 kept.json
  echo old >private.json; chmod 600 private.json
  local out
  out=$("$carom" run ../gas.yaml --stats kept.json --quiet 2>&1) && "$carom" run ../gas.yaml --stats private.json --quiet &&
    out=$(umask 027 && "$carom" run ../gas.yaml --stats new027.json --quiet 2>&1) &&
    out=$(umask 022 && "$carom" run ../gas.yaml --stats new022.json --checkpoint c.ckpt --quiet 2>&1) ||
    { fail modes "a run failed: $out"; return; }
  local got
  got="$(mode_of kept.json) $(mode_of private.json) $(mode_of new027.json) $(mode_of new022.json) $(mode_of c.ckpt)"
  [ "$got" = "644 600 640 644 644" ] || { fail modes "modes $got, expected 644 600 640 644 644"; return; }
  grep -q '"status": "completed"' kept.json private.json || { fail modes "not rewritten"; return; }
  pass modes
}

# ---- paths refused before the run starts ------------------------------------------

# refused NAME PHRASE ARGS...: exit 1, one line with PHRASE, nothing written, quickly.
refused() {
  local name=$1 phrase=$2 out status
  shift 2
  out=$(timeout 20 "$carom" run "$work/big.yaml" --trajectory t.xyz --events-log e.csv --quiet "$@" 2>&1); status=$?
  [ $status -eq 1 ] || { fail "$name" "exit $status: $out"; return 1; }
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [[ $out == *"$phrase"* ]] ||
    { fail "$name" "expected one line with '$phrase', got: $out"; return 1; }
  [ ! -e t.xyz ] && [ ! -e e.csv ] && [ -z "$(temporaries)" ] || { fail "$name" "files written: $(ls -A)"; return 1; }
  return 0
}

make_read_only() { # folder -> prints how, or nothing
  local dir=$1
  if chattr +i "$dir" 2>/dev/null; then
    immutable=$dir
    if ! touch "$dir/probe" 2>/dev/null; then echo "chattr +i"; return; fi
    rm -f "$dir/probe"; chattr -i "$dir"; immutable=
  fi
  chmod a-w "$dir"
  if ! touch "$dir/probe" 2>/dev/null; then echo "chmod a-w"; return; fi
  rm -f "$dir/probe"
}

check_read_only() {
  case_dir read_only
  mkdir ro
  echo old >ro/s.json
  local how target=ro/s.json
  how=$(make_read_only ro)
  if [ -z "$how" ]; then how="/sys"; target=/sys/carom_test_stats.json; fi
  [ "$how" = "chattr +i" ] && immutable=$work/read_only/ro
  refused read_only "cannot write" --stats "$target" || return
  [ "$how" = /sys ] || [ "$(cat ro/s.json)" = old ] || { fail read_only "the old file changed"; return; }
  [ -n "$immutable" ] && chattr -i "$immutable" && immutable=
  chmod u+w ro
  pass "read_only ($how)"
}

check_refused_paths() {
  case_dir refused
  refused missing_folder "no_such_folder: No such file or directory" --stats no_such_folder/s.json || return
  mkdir a_folder
  refused folder_as_file "a_folder: cannot write (it is a folder" --stats a_folder || return
  echo x >a_file
  refused file_as_folder "a_file/c.ckpt: cannot write (Not a directory)" --checkpoint a_file/c.ckpt || return
  refused same_file "named for both the trajectory and the statistics" --stats t.xyz || return
  refused same_file_again "./t.xyz: named for both the trajectory and the statistics" --stats ./t.xyz || return
  ln -s e.csv link.csv
  refused same_file_linked "link.csv: named for both the event log and the checkpoint" --checkpoint link.csv || return
  rm link.csv
  pass "refused paths (missing folder, folder as file, file as folder, one file twice under three names)"
}

# ---- options that would do nothing; empty values --------------------------------

check_options() {
  case_dir options
  local out status
  out=$("$carom" run ../gas.yaml --every 0.1 2>&1); status=$?
  [ $status -eq 2 ] && [[ $out == *"--every"*"neither is written"* ]] || { fail options "--every alone: $status $out"; return; }
  out=$("$carom" run ../gas.yaml --checkpoint-every 0.1 2>&1); status=$?
  [ $status -eq 2 ] && [[ $out == *"--checkpoint-every needs a checkpoint"* ]] ||
    { fail options "--checkpoint-every alone: $status $out"; return; }
  # An empty name turns off what the scenario asks for.
  sed 's/^run: {until: 2}$/run: {until: 2}\noutput: {trajectory: t.xyz, stats: s.json, events: ""}/' ../gas.yaml >with.yaml
  out=$("$carom" run with.yaml --trajectory '' 2>&1) || { fail options "empty value: $out"; return; }
  [ -s s.json ] && [ -z "$(ls | grep -v '^with.yaml$\|^s.json$')" ] || { fail options "files: $(ls)"; return; }
  # Without --quiet a run says what it wrote, one line per output.
  [ "$out" = "carom: wrote s.json" ] || { fail options "said: $out"; return; }
  out=$("$carom" run with.yaml --quiet 2>&1)
  [ -z "$out" ] || { fail options "--quiet said: $out"; return; }
  pass "options (ignored ones refused, empty values, what was written)"
}

# The progress bar (drawn only on a terminal: script(1) gives the run one)
# ends full when the run completes, however fast it was.
check_progress() {
  case_dir progress
  command -v script >/dev/null || { echo "skip  progress (no script(1))"; return; }
  local bar
  bar=$(script -qec "'$carom' run ../gas.yaml --stats ''" /dev/null | tr '\r' '\n' | grep '^\[' | tail -1)
  [[ $bar == "[########################] t = 2 "* ]] || { fail progress "last bar: $bar"; return; }
  bar=$(script -qec "'$carom' run ../gas.yaml --until 1000 --events 500" /dev/null | tr '\r' '\n' | grep '^\[' | tail -1)
  [[ $bar == "[########################]"*"events 500 "* ]] || { fail progress "last bar at --events: $bar"; return; }
  pass progress
}

# ---- frames at exact instants -----------------------------------------------------

check_frame_times() {
  case_dir frame_times
  "$carom" run ../gas.yaml --trajectory t.xyz --every 0.1 --stats s.json --quiet || { fail frame_times "run"; return; }
  # frame k at k * 0.1 as the product rounds (awk computes in doubles too), the end time included
  local want
  want=$(awk 'BEGIN { for (k = 0; k <= 20; k++) printf "%.17g\n", k * 0.1 }')
  [ "$(frame_times t.xyz)" = "$want" ] || { fail frame_times "got $(frame_times t.xyz | tr '\n' ' ')"; return; }
  # An --events stop and an end off the grid get a last frame at the final time.
  "$carom" run ../gas.yaml --trajectory e.xyz --every 0.5 --events 777 --stats e.json --quiet || { fail frame_times "events run"; return; }
  [ "$(frame_times e.xyz | tail -1)" = "$(json_number e.json time)" ] || { fail frame_times "no frame at the --events stop"; return; }
  "$carom" run ../gas.yaml --trajectory u.xyz --every 0.3 --quiet || { fail frame_times "until run"; return; }
  [ "$(frame_times u.xyz | tail -2 | tr '\n' ' ')" = "1.7999999999999998 2 " ] ||
    { fail frame_times "end of an off-grid run: $(frame_times u.xyz | tail -2 | tr '\n' ' ')"; return; }
  pass frame_times
}

# ---- stopping: signals, a jam --------------------------------------------------------

# stopped PID: the process ends within 60 s (else it is killed and 1 returned).
stopped() { local k; for k in $(seq 600); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done; kill -9 "$1"; return 1; }
# wait_for FILE: until it exists (at most 60 s).
wait_for() { local k; for k in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.1; done; return 1; }

check_signal() { # SIGNAL EXIT
  local signal=$1 expected=$2 out status pid
  case_dir "signal_$signal"
  "$carom" run ../big.yaml --trajectory t.xyz --every 1 --events-log e.csv --stats s.json \
    --checkpoint c.ckpt --checkpoint-every 0.5 --quiet 2>err &
  pid=$!
  wait_for c.ckpt || { fail "$signal" "no checkpoint within 60 s"; kill -9 $pid; return; }
  kill -s "$signal" $pid
  stopped $pid || { fail "$signal" "still running 60 s after $signal"; return; }
  wait $pid; status=$?
  [ $status -eq "$expected" ] && grep -q "interrupted by $signal" err || { fail "$signal" "exit $status: $(cat err)"; return; }
  [ "$(json_text s.json status)" = interrupted ] || { fail "$signal" "stats status $(json_text s.json status)"; return; }
  [ -z "$(temporaries)" ] || { fail "$signal" "temporary files: $(temporaries)"; return; }
  # Finished: the trajectory ends with a frame at the time the run stopped, the checkpoint is from then.
  local t
  t=$(json_number s.json time)
  [ "$(frame_times t.xyz | tail -1)" = "$t" ] || { fail "$signal" "last frame $(frame_times t.xyz | tail -1) != $t"; return; }
  "$carom" run --restart c.ckpt --events 1 --stats r.json --quiet --trajectory '' --events-log '' --checkpoint '' ||
    { fail "$signal" "the checkpoint does not restore"; return; }
  awk -v a="$(json_number r.json time)" -v b="$t" 'BEGIN { exit !(a >= b) }' || { fail "$signal" "checkpoint older than the stop"; return; }
  pass "$signal"
}

check_jam() {
  case_dir jam
  printf '3\nProperties=species:S:1:pos:R:3:velo:R:3:radius:R:1\nB -1 0 0 0 0 0 0.5\nB 0 0 0 1 0 0 0.5\nB 1 0 0 0 0 0 0.5\n' >row.xyz
  printf 'world: {dim: 2, box: [3, 10], boundary: walls}\nbodies:\n  - file: row.xyz\nrun: {until: 10}\n' >jam.yaml
  local out status
  out=$(timeout 60 "$carom" run jam.yaml --stats s.json --events-log e.csv --trajectory t.xyz --checkpoint c.ckpt 2>&1); status=$?
  [ $status -eq 1 ] && [[ $out == *"jammed"* ]] || { fail jam "exit $status: $out"; return; }
  [ "$(json_text s.json status)" = failed ] && [[ $(json_text s.json message) == *jammed* ]] || { fail jam "stats"; return; }
  [ -s c.ckpt ] && [ "$(wc -l <e.csv)" -gt 100 ] || { fail jam "outputs not kept: $(ls -l)"; return; }
  [ "$(frame_times t.xyz | tail -1)" = "$(json_number s.json time)" ] || { fail jam "no frame at the jam"; return; }
  [ -z "$(temporaries)" ] || { fail jam "temporary files: $(temporaries)"; return; }
  pass jam
}

# ---- restarts -----------------------------------------------------------------------

check_restart_appends() {
  case_dir restart
  local o="--every 0.25 --quiet"
  "$carom" run ../gas.yaml --until 2 --trajectory one.xyz --events-log one.csv $o &&
    "$carom" run ../gas.yaml --until 1 --trajectory t.xyz --events-log e.csv --checkpoint c.ckpt $o &&
    cp t.xyz first_segment.xyz &&
    "$carom" run --restart c.ckpt --until 2 --quiet || { fail restart "a run failed"; return; }
  cmp -s one.xyz t.xyz && cmp -s one.csv e.csv || { fail restart "split run differs from one run"; return; }
  [ "$(head -c "$(stat -c %s first_segment.xyz)" t.xyz | cmp - first_segment.xyz && echo same)" = same ] ||
    { fail restart "the first segment was overwritten"; return; }
  # New outputs on a restart: a trajectory and periodic checkpoints the first run had not.
  "$carom" run ../gas.yaml --until 1 --checkpoint d.ckpt --quiet &&
    "$carom" run --restart d.ckpt --until 2 --trajectory new.xyz --every 0.5 --checkpoint-every 0.5 --quiet ||
    { fail restart "new outputs on a restart refused"; return; }
  [ "$(frame_times new.xyz | tr '\n' ' ')" = "1 1.5 2 " ] || { fail restart "new trajectory: $(frame_times new.xyz | tr '\n' ' ')"; return; }
  # Files that do not match are refused, and left as they were.
  "$carom" run ../gas.yaml --until 1 --trajectory m.xyz --checkpoint m.ckpt $o || { fail restart "run"; return; }
  head -n 20 m.xyz >m_short.xyz; cp m_short.xyz m.xyz
  local out status
  out=$("$carom" run --restart m.ckpt --until 2 --quiet 2>&1); status=$?
  [ $status -eq 1 ] && [[ $out == *"m.xyz:"*"the file ends"* ]] && cmp -s m.xyz m_short.xyz ||
    { fail restart "short trajectory: exit $status: $out"; return; }
  rm m.xyz
  out=$("$carom" run --restart m.ckpt --until 2 --quiet 2>&1); status=$?
  [ $status -eq 1 ] && [[ $out == *"m.xyz"*"--trajectory NEW"* ]] && [ ! -e m.xyz ] ||
    { fail restart "missing trajectory: exit $status: $out"; return; }
  pass "restart (appends, bit for bit; new outputs; mismatches refused)"
}

# kill -9 while checkpoints are being written, many times: each time the
# checkpoint on disk is whole and restores, and the run continued from it ends
# where one uninterrupted run ends. At least one kill must land inside a write
# (a temporary checkpoint left behind proves it; up to 40 tries, since where
# a kill lands is up to the scheduler: 12 once missed on a loaded machine).
check_kill_during_checkpoint() {
  case_dir kill9
  "$carom" run ../big.yaml --until 3 --trajectory one.xyz --every 0.5 --events-log one.csv --quiet ||
    { fail kill9 "reference run"; return; }
  local landed=0 k pid
  for k in $(seq 40); do
    rm -f c.ckpt c.ckpt.* t.xyz e.csv
    "$carom" run ../big.yaml --until 3 --trajectory t.xyz --every 0.5 --events-log e.csv --checkpoint c.ckpt \
      --checkpoint-every 0.002 --quiet &
    pid=$!
    wait_for c.ckpt || { fail kill9 "no checkpoint"; kill -9 $pid; return; }
    sleep "0.$((RANDOM % 5))$((RANDOM % 10))"
    kill -9 $pid; wait $pid 2>/dev/null
    ls c.ckpt.?????? >/dev/null 2>&1 && landed=$((landed + 1))
    "$carom" run --restart c.ckpt --until 3 --checkpoint '' --quiet 2>err ||
      { fail kill9 "attempt $k: the checkpoint left by kill -9 does not restore: $(cat err)"; return; }
    cmp -s one.xyz t.xyz && cmp -s one.csv e.csv || { fail kill9 "attempt $k: the continued run differs"; return; }
    [ $landed -ge 1 ] && [ "$k" -ge 3 ] && break
  done
  [ $landed -ge 1 ] || { fail kill9 "no kill landed inside a checkpoint write in 40 attempts"; return; }
  pass "kill -9 during checkpoint writes ($landed of $k inside a write)"
}

make_devices
check_device
check_dev_full
check_fifo
check_broken_pipe
check_symlink
check_modes
check_read_only
check_refused_paths
check_options
check_progress
check_frame_times
check_signal SIGINT 130
check_signal SIGTERM 143
check_jam
check_restart_appends
check_kill_during_checkpoint
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
