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

cp "$here/data/scenarios/movie_gas.yaml" "$work/gas.yaml"
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
    verdict=$(same_disks "f$k.png" "r$k.png")
    [[ $verdict == ok* ]] &&
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
# --movie-size; and a movie draws the live world's polygons and container:
# a square of side 2.4 at rest, unturned, at (x0, y0) in a circle of radius
# 4 (box 9): (x0 + 1.1, y0 + 1.1) lies inside the square, (x0, y0 + 1.5)
# outside it but inside its bounding circle (radius 1.70), and the circle's
# boundary passes through (2.83, 2.83)
cat > ring.yaml <<'YAML'
world: {dim: 2, box: [9, 9], container: {circle: 4}}
seed: 1
bodies:
  - {count: 1, shape: {box: [2.4, 2.4]}, velocity: {speed: 0}}
run: {until: 1}
YAML
pixel_at() { # FILE X Y: the pixel of world point (X, Y) in the 9 x 9 box at 800x600
  local p; p=$(python3 -c "
import sys
x, y = map(float, sys.argv[1:3]); s = 528 / 9; left = 24 + 0.5 * (642 - 9 * s)
print(round(left + (x + 4.5) * s), round(24 + (4.5 - y) * s))" "$2" "$3")
  probe pixel "$1" ${p% *} ${p#* }
}
if "$carom" run ring.yaml --movie ring.mp4 --fps 4 --speed 1 --quiet --stats '' --events-log '' --trajectory ring.xyz &&
   "$carom" run ring.yaml --movie small.gif --movie-size 320x240 --fps 4 --speed 1 --quiet --stats '' --events-log '' --trajectory ''; then
  [ "$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=p=0 small.gif)" = "320,240" ] &&
    pass "--movie-size" || fail "--movie-size" "$(ffprobe -v error -show_entries stream=width,height -of csv=p=0 small.gif)"
  ffmpeg -v error -i ring.mp4 -vf "select=eq(n\,0)" -frames:v 1 -y ring0.png
  read -r _ x0 y0 _ <<< "$(sed -n 3p ring.xyz)"
  plus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.9f", a + b }'; }
  square=$(pixel_at ring0.png "$(plus "$x0" 1.1)" "$(plus "$y0" 1.1)")
  beside=$(pixel_at ring0.png "$x0" "$(plus "$y0" 1.5)")
  edge=$(pixel_at ring0.png 2.8284 2.8284); outside=$(pixel_at ring0.png 3.7 3.7)
  read -r sr _ <<< "$square"; read -r br bg bb <<< "$beside"; read -r er eg eb <<< "$edge"; read -r or og ob <<< "$outside"
  [ "$sr" -lt 200 ] && [ $((br + bg + bb)) -gt 720 ] && [ $((er + eg + eb)) -lt 300 ] && [ $((or + og + ob)) -gt 720 ] &&
    pass "a movie draws the polygon and the container's boundary" ||
    fail "movie polygon and container" "square's corner $square, beside the square $beside, circle $edge, outside $outside"
else
  fail "movie of a polygon in a container" "carom run failed"
fi
out=$("$carom" run ring.yaml --movie odd.mp4 --movie-size 641x480 --quiet 2>&1); st=$?
[ $st -ne 0 ] && [[ $out == *"needs even sides"* ]] && ! compgen -G "odd.mp4*" >/dev/null &&
  pass "--movie-size odd for MP4 refused" || fail "--movie-size odd" "status $st: $out"
out=$("$carom" run ring.yaml --movie-size 640x480 --quiet 2>&1); st=$?
[ $st -eq 2 ] && [[ $out == *"--movie-size is for --movie"* ]] && pass "--movie-size without --movie refused" ||
  fail "--movie-size alone" "status $st: $out"
cd /
finish
