#!/usr/bin/env bash
# test_render.sh — `carom render`: pictures whose content is checked, not
# just their existence. A PNG is decoded by tests/png_probe.py (zlib, no
# PIL): the disks counted, their centres and areas against the positions
# and radii to scale, their colours against the colour bar's ends, the 3D
# depth order; SVG parsed as XML; bad inputs refused with nothing written.
carom=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/testlib.sh"
probe() { python3 "$here/png_probe.py" "$@"; }

header2='Lattice="20 0.0 0.0 0.0 10 0.0 0.0 0.0 1" Origin="-10 -5 -0.5" Properties=species:S:1:pos:R:3:velo:R:3:mass:R:1:radius:R:1 Time=0 pbc="F F F"'
# five disks of radius 1, speeds 1 to 5 (x and y in carom's frame, centred at 0)
xs=(-7 -3.5 0 3.5 7); ys=(-2 2 0 -1 2.5)
{
  echo 5; echo "$header2"
  for k in 0 1 2 3 4; do echo "A ${xs[$k]} ${ys[$k]} 0 $((k + 1)) 0 0 1 1"; done
} > "$work/five.xyz"

out=$("$carom" render "$work/five.xyz" -o "$work/five.png" --verbose 2>&1)
if [[ $out == *"5 of 5 bodies drawn, speed from 1 to 5"* ]]; then pass "legend range"; else fail "legend range" "$out"; fi
size=$(probe size "$work/five.png")
[ "$size" = "800 600" ] && pass "default size" || fail "default size" "$size"

probe blobs "$work/five.png" 690 | sort -n > "$work/blobs.txt"
count=$(wc -l < "$work/blobs.txt")
[ "$count" -eq 5 ] && pass "five disks found" || fail "five disks found" "$count: $(cat "$work/blobs.txt")"

# centres to scale: one scale s maps every x and y (y upwards), areas pi (s r)^2
python3 - "$work/blobs.txt" "${xs[*]}" "${ys[*]}" > "$work/scale.txt" <<'PY'
import math, sys
blobs = [list(map(float, l.split())) for l in open(sys.argv[1])]
xs = list(map(float, sys.argv[2].split())); ys = list(map(float, sys.argv[3].split()))
s = (blobs[-1][0] - blobs[0][0]) / (xs[-1] - xs[0])
worst = 0.0
for b, x, y in zip(blobs, xs, ys):
    worst = max(worst, abs(b[0] - (blobs[0][0] + s * (x - xs[0]))), abs(b[1] - (blobs[0][1] - s * (y - ys[0]))))
area = max(abs(b[2] / (math.pi * s * s) - 1.0) for b in blobs)
print("ok" if worst < 1.0 and area < 0.03 and s > 10 else "bad", "scale %.3f px, worst centre %.2f px, worst area %.3f" % (s, worst, area))
PY
[[ $(cat "$work/scale.txt") == ok* ]] && pass "to scale: $(cat "$work/scale.txt")" || fail "to scale" "$(cat "$work/scale.txt")"

# colours: the slowest disk has the colour bar's bottom, the fastest its top, the middle one its middle
read -r _ tr tg tb _ br bg bb _ mr mg mb <<< "$(probe column "$work/five.png" 711)"
near() { python3 -c "import sys; a=list(map(int,sys.argv[1:4])); b=list(map(int,sys.argv[4:7])); sys.exit(0 if max(abs(p-q) for p,q in zip(a,b)) <= 12 else 1)" "$@"; }
read -r _ _ _ r1 g1 b1 <<< "$(sed -n 1p "$work/blobs.txt")"
read -r _ _ _ r3 g3 b3 <<< "$(sed -n 3p "$work/blobs.txt")"
read -r _ _ _ r5 g5 b5 <<< "$(sed -n 5p "$work/blobs.txt")"
if near $r1 $g1 $b1 $br $bg $bb && near $r5 $g5 $b5 $tr $tg $tb && near $r3 $g3 $b3 $mr $mg $mb &&
   ! near $r1 $g1 $b1 $r5 $g5 $b5; then
  pass "colours against the colour bar"
else
  fail "colours against the colour bar" "slow $r1,$g1,$b1 bar $br,$bg,$bb; fast $r5,$g5,$b5 bar $tr,$tg,$tb; mid $r3,$g3,$b3 bar $mr,$mg,$mb"
fi

"$carom" render "$work/five.xyz" -o "$work/big.png" --size 1200x700 && [ "$(probe size "$work/big.png")" = "1200 700" ] &&
  pass "--size" || fail "--size" "$(probe size "$work/big.png" 2>&1)"

"$carom" render "$work/five.xyz" -o "$work/five.svg" &&
python3 - "$work/five.svg" <<'PY' && pass "SVG parses, 800 by 600, five filled disks" || fail "SVG" "see above"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.get("width").startswith("800") and root.get("height").startswith("600"), root.attrib
paths = [e for e in root.iter() if e.tag.endswith("path") and "fill:rgb" in (e.get("style") or "")
         and "fill:rgb(100%,100%,100%)" not in e.get("style")]
# the five disks, plus the colour bar's 256 steps
assert len(paths) == 5 + 256, len(paths)
PY

# 3D: the nearer of two overlapping spheres covers the farther one
header3='Lattice="10 0.0 0.0 0.0 10 0.0 0.0 0.0 10" Origin="-5 -5 -5" Properties=species:S:1:pos:R:3:velo:R:3:mass:R:1:radius:R:1 Time=0 pbc="F F F"'
sphere() { echo "A $1 0 $2 $3 0.5 0.5 1 1"; }
{ echo 3; echo "$header3"; sphere 0 1 5; sphere 3.5 0 0.1; sphere -3.5 0 5; } > "$work/a.xyz"  # A alone (+ two far markers for the range)
{ echo 3; echo "$header3"; sphere 1.2 -1 1; sphere 3.5 0 0.1; sphere -3.5 0 5; } > "$work/b.xyz"
{ echo 4; echo "$header3"; sphere 0 1 5; sphere 1.2 -1 1; sphere 3.5 0 0.1; sphere -3.5 0 5; } > "$work/ab.xyz"
{ echo 4; echo "$header3"; sphere 0 -1 5; sphere 1.2 1 1; sphere 3.5 0 0.1; sphere -3.5 0 5; } > "$work/ba.xyz"
for f in a b ab ba; do "$carom" render "$work/$f.xyz" -o "$work/$f.png" --dim 3 || fail "3D render $f" "status $?"; done
ca=$(probe blobs "$work/a.png" 690 | sort -n | sed -n 2p); cb=$(probe blobs "$work/b.png" 690 | sort -n | sed -n 2p)
read -r ax ay _ <<< "$ca"; read -r bx _ _ <<< "$cb"
mx=$(python3 -c "print(int(round(($ax + $bx) / 2)))"); my=$(python3 -c "print(int(round($ay)))")
pa=$(probe pixel "$work/a.png" "$mx" "$my"); pb=$(probe pixel "$work/b.png" "$mx" "$my")
pab=$(probe pixel "$work/ab.png" "$mx" "$my"); pba=$(probe pixel "$work/ba.png" "$mx" "$my")
if [ "$pab" = "$pa" ] && [ "$pba" = "$pb" ] && [ "$pa" != "$pb" ]; then
  pass "3D: the nearer sphere is drawn over the farther ($pa over $pb)"
else
  fail "3D depth order" "at $mx,$my: A alone $pa, B alone $pb, A near $pab, B near $pba"
fi
"$carom" render "$work/ab.xyz" -o "$work/slab.png" --dim 3 --slab 0:2 --verbose | grep -q "3 of 4 bodies drawn" &&
  pass "--slab keeps the bodies in it" || fail "--slab" "$("$carom" render "$work/ab.xyz" -o "$work/slab.png" --dim 3 --slab 0:2 --verbose 2>&1)"

# a trajectory carom wrote: --time picks a frame written, and names the nearest when none is at T
cat > "$work/gas.yaml" <<'YAML'
world: {dim: 2, box: [20, 20], boundary: walls}
seed: 3
bodies:
  - {count: 40, radius: 0.5, mass: 1.0, place: random, velocity: {speed: 1.0}}
run: {until: 2}
YAML
if "$carom" run "$work/gas.yaml" --trajectory "$work/gas.xyz" --every 0.5 --quiet --stats '' --events-log '' >/dev/null 2>&1; then
  "$carom" render "$work/gas.xyz" --time 1.5 -o "$work/t15.png" --verbose | grep -q "40 of 40" && pass "--time of a frame written" || fail "--time" "no picture"
  out=$("$carom" render "$work/gas.xyz" --time 1.25 -o "$work/t125.png" 2>&1); st=$?
  [ $st -eq 1 ] && [[ $out == *"no frame at time 1.25"*"nearest: 1 before, 1.5 after"* ]] && [ ! -e "$work/t125.png" ] &&
    pass "--time between frames refused" || fail "--time between frames" "status $st: $out"
else
  fail "a trajectory to render" "carom run failed"
fi

# bad inputs: one line naming the place, a non-zero status, nothing written
refused() { # NAME STATUS EXPECTED ARGS...
  local name=$1 want=$2 expected=$3 out st; shift 3
  rm -f "$work"/bad.*
  out=$("$carom" render "$@" 2>&1); st=$?
  if [ $st -eq "$want" ] && [[ $out == *"$expected"* ]] && ! compgen -G "$work/bad.*" >/dev/null; then pass "refused: $name"
  else fail "refused: $name" "status $st: $out"; fi
}
sed '4s/.*/A -7 -2 0 1 zero 0 1 1/' "$work/five.xyz" > "$work/broken.xyz"
refused "missing file" 1 "$work/none.xyz" "$work/none.xyz" -o "$work/bad.png"
refused "broken line" 1 "$work/broken.xyz:4:" "$work/broken.xyz" -o "$work/bad.png"
refused "frame past the end" 1 "frame 3 does not exist" "$work/five.xyz" --frame 3 -o "$work/bad.png"
refused "bad size" 2 "--size: '10x10'" "$work/five.xyz" --size 10x10 -o "$work/bad.png"
refused "bad colour" 2 "--color: 'hue'" "$work/five.xyz" --color hue -o "$work/bad.png"
refused "bad slab" 2 "--slab: '2:1'" "$work/five.xyz" --slab 2:1 -o "$work/bad.png"
refused "no output" 2 "an output picture is needed" "$work/five.xyz"
refused "not png or svg" 1 "must end in .png or .svg" "$work/five.xyz" -o "$work/bad.jpg"
printf '2\nno lattice\nA 0 0 0\nA 1 1 0\n' > "$work/nolattice.xyz"
refused "no Lattice" 1 "no Lattice" "$work/nolattice.xyz" -o "$work/bad.png"
finish
