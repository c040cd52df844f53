#!/usr/bin/env bash
# test_thermostat.sh — a scenario's thermostat: (issue 17) through `carom run`:
# white-noise driving of a granular gas reaches the steady temperature that
# balances the energy put in against Enskog's collisional loss (van Noije &
# Ernst 1998), Andersen holds its temperature, rescaling sets it exactly at
# its instants, a restart from a checkpoint goes on bit for bit (the
# generator's state is in the checkpoint), and bad settings are refused
# with FILE:LINE:COL, a damaged thermostat in a checkpoint with its field.
#
# usage: test_thermostat.sh CAROM
carom=$1
source "$(dirname "$0")/testlib.sh"

run() { (cd "$work" && "$carom" run "$@" --quiet 2>&1); }
close() { # name got want tolerance
  if awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { d = g / w - 1; exit !(d < t && d > -t) }'; then
    pass "$1 ($2 against $3)"
  else
    fail "$1" "$2 against $3, tolerance $4"
  fi
}

# Driven granular gas, 3D, phi = 0.1, e = 0.9, kicks s = 0.2 at rate 1 per body.
cat >"$work/drive.yaml" <<'YAML'
world: {dim: 3, boundary: periodic, restitution: 0.9}
seed: 3
bodies: [{count: 2000, radius: 0.5, place: lattice, packing_fraction: 0.1}]
run: {until: 200, equilibrate: 60}
thermostat:
  drive: {kick: 0.2, rate: 1.0}
YAML
if out=$(run drive.yaml --stats drive.json); then
  t=$(json_number "$work/drive.json" mean_temperature)
  rate=$(json_number "$work/drive.json" collision_rate)
  # energy balance: m nu s^2 = (1 - e^2) omega T / d, omega and T measured
  close "driven gas: energy put in = collisional loss (Maxwellian contacts)" \
    "$(awk -v t="$t" -v w="$rate" 'BEGIN { print 0.19 * w * t / 3 }')" 0.04 0.05
  # T^(3/2) = d nu s^2 / ((1 - e^2) omega_1), omega_1 = 4 n sigma^2 g(sigma) sqrt(pi) (Enskog, Carnahan-Starling g)
  want=$(awk 'BEGIN { phi = 0.1; n = 6 * phi / 3.141592653589793; g = (1 - phi / 2) / (1 - phi) ^ 3;
                      w1 = 4 * n * g * sqrt(3.141592653589793); print (3 * 0.04 / (0.19 * w1)) ^ (2 / 3) }')
  close "driven gas: steady temperature against van Noije & Ernst with Enskog's rate" "$t" "$want" 0.05
else
  fail "driven gas runs" "$out"
fi

sed 's/drive: {kick: 0.2, rate: 1.0}/andersen: {temperature: 2.0, rate: 0.5}/; s/restitution: 0.9/restitution: 1/; s/until: 200, equilibrate: 60/until: 30, equilibrate: 10/' \
  "$work/drive.yaml" >"$work/bath.yaml"
if out=$(run bath.yaml --stats bath.json); then
  close "Andersen: mean temperature" "$(json_number "$work/bath.json" mean_temperature)" 2.0 0.02
else
  fail "Andersen runs" "$out"
fi

sed 's/andersen: {temperature: 2.0, rate: 0.5}/rescale: {temperature: 0.7, every: 0.5}/; s/restitution: 1/restitution: 0.8/; s/equilibrate: 10/equilibrate: 1/' \
  "$work/bath.yaml" >"$work/rescale.yaml"
sed 's/equilibrate: 10/equilibrate: 1/' "$work/bath.yaml" >"$work/short.yaml"
if out=$(run rescale.yaml --stats rescale.json --until 5); then
  close "rescaling: the temperature at its instant" "$(json_number "$work/rescale.json" temperature)" 0.7 1e-12
else
  fail "rescaling runs" "$out"
fi

# A restart goes on bit for bit: 0 -> 4 against 0 -> 2 -> 4, with Andersen.
if run short.yaml --until 4 --stats straight.json >/dev/null && run short.yaml --until 2 --stats "" --checkpoint half.ckpt >/dev/null &&
   run --restart half.ckpt --until 4 --stats resumed.json >/dev/null; then
  a=$(json_number "$work/straight.json" kinetic_energy)
  b=$(json_number "$work/resumed.json" kinetic_energy)
  if [ -n "$a" ] && [ "$a" = "$b" ]; then pass "restart with a thermostat: the same bits ($a)"; else fail "restart" "$a against $b"; fi
else
  fail "restart runs" "a run failed"
fi

# A damaged thermostat kind in a checkpoint (the checksum redone) is refused with its field.
if /usr/bin/python3 - "$work/half.ckpt" "$work/damaged.ckpt" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
at = 16
for _ in range(7):  # the texts
    (length,) = struct.unpack_from("<I", data, at)
    at += 4 + (0 if length == 0xFFFFFFFF else length)
at += 8 * (11 + 5)  # numbers and integers: the thermostat's kind is next
struct.pack_into("<I", data, at, 9)
def crc32c(block):
    crc = 0xFFFFFFFF
    for byte in block:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF
struct.pack_into("<I", data, len(data) - 4, crc32c(data[:-4]))
open(sys.argv[2], "wb").write(data)
PY
then
  out=$(run --restart damaged.ckpt --until 5)
  if [[ $out == *"thermostat kind"*"9"* ]]; then pass "a damaged thermostat kind is refused"; else fail "damaged kind" "$out"; fi
else
  fail "damaging the checkpoint" "python failed"
fi

refused() { # name expected thermostat-text
  printf 'world: {dim: 2, box: [20, 20]}\nbodies: [{count: 10, radius: 0.5}]\nrun: {until: 1}\n%s\n' "$3" >"$work/bad.yaml"
  out=$(run bad.yaml)
  if [ $? -eq 1 ] && [[ $out == *"$2"* ]]; then pass "refused: $1"; else fail "refused: $1" "$out"; fi
}
refused "two kinds" "bad.yaml:4:13: thermostat has 2 kinds" "thermostat: {andersen: {temperature: 1, rate: 1}, drive: {kick: 1, rate: 1}}"
refused "a missing rate" "thermostat.andersen needs temperature and rate" "thermostat: {andersen: {temperature: 1}}"
refused "a negative kick" "bad.yaml:4:28:" "thermostat: {drive: {kick: -1, rate: 1}}"
refused "an unknown kind" "unknown key 'nose_hoover'" "thermostat: {nose_hoover: {temperature: 1}}"
printf 'world: {dim: 2, box: [20, 20]}\nbodies: [{count: 3, radius: 0.5, mass: .inf, velocity: {speed: 1}}]\nrun: {until: 1}\nthermostat: {andersen: {temperature: 1, rate: 1}}\n' >"$work/kinematic.yaml"
out=$(run kinematic.yaml)
if [ $? -eq 1 ] && [[ $out == *"no free body"* ]]; then pass "refused: no free body"; else fail "refused: no free body" "$out"; fi
finish
