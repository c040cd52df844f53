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
# pixel X Y W H: the picture pixel of world point (X, Y) in a W x H box drawn
# at the default 800x600 (render.c: a legend 110 wide, margins of 24).
pixel_of() {
  python3 -c "
import sys
x, y, w, h = map(float, sys.argv[1:5])
room_w, room_h = 800 - 110 - 48, 600 - 72
s = min(room_w / w, room_h / h)
left, top = 24 + 0.5 * (room_w - w * s), 24 + 0.5 * (room_h - h * s)
print(round(left + (x + w / 2) * s), round(top + (h / 2 - y) * s))" "$@"
}
at() { local p; p=$(pixel_of "$2" "$3" "$4" "$5"); probe pixel "$1" ${p% *} ${p#* }; }

# species: a colour each from the palette (render.c), and a key naming them
hs='Lattice="20 0.0 0.0 0.0 10 0.0 0.0 0.0 1" Origin="-10 -5 -0.5" Properties=species:S:1:pos:R:3:velo:R:3:mass:R:1:radius:R:1 Time=0'
printf '3\n%s pbc="F F F"\nAr -5 0 0 1 0 0 1 1\nKr 5 0 0 2 0 0 1 1\nAr 0 3 0 3 0 0 1 1\n' "$hs" > "$work/species.xyz"
out=$("$carom" render "$work/species.xyz" -o "$work/species.png" --color species --verbose 2>&1)
a1=$(at "$work/species.png" -5 0 20 10); b1=$(at "$work/species.png" 5 0 20 10); a2=$(at "$work/species.png" 0 3 20 10)
[ "$a1" = "31 119 180" ] && [ "$a2" = "31 119 180" ] && [ "$b1" = "255 127 14" ] && [[ $out == *"species Ar Kr"* ]] &&
  pass "--color species: each species its palette colour, the key names them" ||
  fail "--color species" "Ar $a1 and $a2, Kr $b1 (expected 31 119 180 and 255 127 14): $out"

# periodic images: a disk across the x face drawn on both sides when x is periodic
printf '1\n%s pbc="T T F"\nA 9.5 0 0 1 0 0 1 1\n' "$hs" > "$work/wrap.xyz"
sed 's/pbc="T T F"/pbc="F F F"/' "$work/wrap.xyz" > "$work/walls.xyz"
out=$("$carom" render "$work/wrap.xyz" -o "$work/wrap.png" --verbose 2>&1)
"$carom" render "$work/walls.xyz" -o "$work/walls.png" 2>/dev/null
far=$(at "$work/wrap.png" -9.8 0 20 10); near=$(at "$work/wrap.png" 9.6 0 20 10); none=$(at "$work/walls.png" -9.8 0 20 10)
[ "$far" = "$near" ] && [ "$far" != "255 255 255" ] && [ "$none" = "255 255 255" ] && [[ $out == *"and 1 periodic images"* ]] &&
  pass "periodic images: the disk across the x face drawn at both sides, not with walls" ||
  fail "periodic images" "image $far, disk $near, with walls $none: $out"

# polygons from the scenario: a square of side 2 turned by 45 degrees is a
# diamond; (0, 1.3) lies inside it, (0.9, 0.9) outside it but inside its
# bounding circle (radius 1.414), which is all that is drawn without --scenario
hp='Lattice="10 0.0 0.0 0.0 10 0.0 0.0 0.0 1" Origin="-5 -5 -0.5" Properties=species:S:1:pos:R:3:velo:R:3:mass:R:1:radius:R:1:orientation:R:4:omega:R:3:angle:R:1 Time=0 pbc="F F F"'
printf '1\n%s\nSq 0 0 0 0 0 0 1 1.4142135623730951 0 0 0 1 0 0 0 0\n' "$hp" > "$work/square0.xyz"
printf '1\n%s\nSq 0 0 0 0 0 0 1 1.4142135623730951 0 0 0.38268343236508978 0.92387525831152 0 0 0 0.78539816339744828\n' "$hp" > "$work/square45.xyz"
cat > "$work/square.yaml" <<YAML
world: {dim: 2, box: [10, 10], boundary: walls}
bodies:
  - name: Sq
    file: $work/square0.xyz
    shape: {box: [2, 2]}
run: {until: 1}
YAML
out=$("$carom" render "$work/square45.xyz" --scenario "$work/square.yaml" -o "$work/diamond.png" 2>&1)
"$carom" render "$work/square45.xyz" -o "$work/disk.png" 2>/dev/null
inside=$(at "$work/diamond.png" 0 1.3 10 10); outside=$(at "$work/diamond.png" 0.9 0.9 10 10); bounding=$(at "$work/disk.png" 0.9 0.9 10 10)
[ "$inside" != "255 255 255" ] && [ "$outside" = "255 255 255" ] && [ "$bounding" != "255 255 255" ] &&
  pass "--scenario: a polygon drawn from its shape, turned by the frame's angle" ||
  fail "--scenario polygon" "inside $inside, outside $outside, bounding disk $bounding: $out"

# a container's boundary from the scenario: the circle of radius 4 through (2.83, 2.83)
printf '1\n%s\nA 0 0 0 0 0 0 1 0.5 0 0 0 1 0 0 0 0\n' "${hp//10/9}" | sed 's/Origin="-5 -5 -0.5"/Origin="-4.5 -4.5 -0.5"/' > "$work/ring.xyz"
cat > "$work/ring.yaml" <<YAML
world: {dim: 2, box: [9, 9], container: {circle: 4}}
bodies:
  - file: $work/ring.xyz
run: {until: 1}
YAML
out=$("$carom" render "$work/ring.xyz" --scenario "$work/ring.yaml" -o "$work/ring.png" 2>&1)
"$carom" render "$work/ring.xyz" -o "$work/plain.png" 2>/dev/null
edge=$(at "$work/ring.png" 2.8284 2.8284 9 9); corner=$(at "$work/ring.png" 3.7 3.7 9 9); plain=$(at "$work/plain.png" 2.8284 2.8284 9 9)
[ "${edge%% *}" -lt 100 ] 2>/dev/null && [ "$corner" = "255 255 255" ] && [ "$plain" = "255 255 255" ] &&
  pass "--scenario: the container's boundary drawn (its zero contour)" ||
  fail "--scenario container" "on the circle $edge, outside it $corner, without --scenario $plain: $out"
printf 'world: {dim: 2, box: [10, 10]}\nbodies:\n  - {count: 2, radius: 0.5}\n' > "$work/two.yaml"
refused "scenario with other bodies" 1 "the scenario makes 2 bodies" "$work/square45.xyz" --scenario "$work/two.yaml" -o "$work/bad.png"
refused "scenario missing" 1 "$work/none.yaml" "$work/square45.xyz" --scenario "$work/none.yaml" -o "$work/bad.png"
finish
