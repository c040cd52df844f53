#!/usr/bin/env bash
# test_movie.sh — `carom run --movie`: frames at exact instants through
# ffmpeg. The frame count is fps x (run time / speed) + 1 (the start and the
# end included); a frame decoded from the movie shows the disks where the
# trajectory frame written at the same instant has them (centres within
# 1.5 px, mp4 being lossy); GIFs too; ffmpeg missing, bad names and values,
# and an interrupted run leave nothing behind.
carom=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/testlib.sh"
probe() { python3 "$here/png_probe.py" "$@"; }
frames() { ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$1"; }

cat > "$work/gas.yaml" <<'YAML'
world: {dim: 2, box: [20, 20], boundary: walls}
seed: 3
bodies:
  - {count: 12, radius: 1.0, mass: 1.0, place: random, velocity: {speed: 2.0}}
run: {until: 2}
YAML
cd "$work" || exit 1
# the movie's run writes a sparse trajectory (its stops are not the frames'); a
# second run of the same scenario writes a frame at every movie instant
if "$carom" run gas.yaml --movie m.mp4 --fps 10 --speed 0.5 --trajectory sparse.xyz --every 0.25 --quiet --stats '' --events-log '' &&
   "$carom" run gas.yaml --trajectory g.xyz --every 0.05 --quiet --stats '' --events-log ''; then
  n=$(frames m.mp4)
  [ "$n" = 41 ] && pass "mp4: 10 fps x 2 / 0.5 + 1 = 41 frames" || fail "mp4 frame count" "$n"
  [ "$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=p=0 m.mp4)" = "800,600" ] &&
    pass "mp4 size" || fail "mp4 size" "$(ffprobe -v error -show_entries stream=width,height -of csv=p=0 m.mp4)"
  for k in 7 20 33; do # frame k is at t = k * 0.5 / 10, as is trajectory frame k of the second run
    ffmpeg -v error -i m.mp4 -vf "select=eq(n\,$k)" -frames:v 1 -y "f$k.png"
    "$carom" render g.xyz --frame "$k" -o "r$k.png"
    probe blobs "f$k.png" 690 | sort -n > "fb$k.txt"; probe blobs "r$k.png" 690 | sort -n > "rb$k.txt"
    verdict=$(paste -d' ' "fb$k.txt" "rb$k.txt" | awk -v n="$(wc -l < "rb$k.txt")" '
      { d = sqrt(($1 - $7)^2 + ($2 - $8)^2); if (d > worst) worst = d; rows++ }
      END { printf "%s %d blobs, worst %.2f px", (rows == n && rows >= 8 && worst < 1.5) ? "ok" : "bad", rows, worst }')
    [ "$(wc -l < "fb$k.txt")" -eq "$(wc -l < "rb$k.txt")" ] && [[ $verdict == ok* ]] &&
      pass "movie frame $k where the trajectory has the disks ($verdict)" || fail "movie frame $k" "$verdict"
  done
else
  fail "a movie" "carom run failed"
fi

"$carom" run gas.yaml --movie m.gif --fps 5 --quiet --stats '' --events-log '' &&
  [ "$(frames m.gif)" = 51 ] && pass "gif: default speed (the run in 10 s) at 5 fps: 51 frames" ||
  fail "gif" "$(frames m.gif 2>&1)"

refused() { # NAME STATUS EXPECTED ARGS...
  local name=$1 want=$2 expected=$3 out st; shift 3
  rm -f bad.*
  out=$("$carom" run gas.yaml --quiet --stats '' --events-log '' "$@" 2>&1); st=$?
  if [ $st -eq "$want" ] && [[ $out == *"$expected"* ]] && ! compgen -G "bad.*" >/dev/null; then pass "refused: $name"
  else fail "refused: $name" "status $st: $out"; fi
}
refused "not mp4 or gif" 1 "must end in .mp4 or .gif" --movie bad.avi
refused "fps 0" 2 "--fps: '0'" --movie bad.mp4 --fps 0
refused "speed without a movie" 2 "--speed is for --movie" --speed 2
refused "negative speed" 2 "--speed: '-1'" --movie bad.mp4 --speed -1
out=$(PATH=/nonexistent "$carom" run gas.yaml --movie bad.mp4 --quiet --stats '' --events-log '' 2>&1); st=$?
[ $st -eq 1 ] && [[ $out == *"cannot start ffmpeg"* ]] && ! compgen -G "bad.*" >/dev/null &&
  pass "ffmpeg missing: a clear error, nothing written" || fail "ffmpeg missing" "status $st: $out"

cat > long.yaml <<'YAML'
world: {dim: 2, box: [200, 200], boundary: walls}
seed: 3
bodies:
  - {count: 2000, radius: 1.0, mass: 1.0, place: random, velocity: {speed: 2.0}}
run: {until: 1000}
YAML
"$carom" run long.yaml --movie long.mp4 --speed 1 --quiet --stats '' --events-log '' & pid=$!
sleep 2; kill -INT $pid; wait $pid; st=$?
[ $st -eq 130 ] && ! compgen -G "long.mp4*" >/dev/null && pass "interrupted: no movie and no part left" ||
  fail "interrupted movie" "status $st, $(ls long.mp4* 2>&1)"
cd /
finish
