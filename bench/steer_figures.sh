#!/usr/bin/env bash
# steer_figures.sh — the README's figures for the safety filter (issue 13,
# item 9): how intrusive each law is on the same player inputs, and the
# minimum clearance each reached. Runs `carom steer` (tools/steer_cli.c) for
# the laws naive, linear, quadratic, directional and backup, and off as the
# unprotected reference, on three inputs:
#   toward-wall  one disk (r 0.5) from the centre of a circle of radius 5,
#                the player pushing at a_max = 1 toward the nearest wall
#                (it depends on where the disk is, so each law sees the
#                inputs its own path leads to);
#   replayed     the same circle, a recorded input replayed bit for bit for
#                every law: a_max along +x for 8 s (a crossing), then a new
#                direction every 0.5 s (angles k * 2.39996 rad, the golden
#                angle, so no direction repeats);
#   random       the same circle, a fresh direction each window from seed 1
#                (one draw per window whatever the state: the same inputs
#                for every law);
#   rink         the circle player (a tangent spiralling outward) in a
#                rounded rink 30 x 15 with corners of radius 4, a_max 1.
# Windows of 0.05, sigma 0.5, 4000 windows (200 time units) each. The world
# filters (its decisions at window starts and, exactly, inside windows when
# v / v_max crosses sigma); the rows marked "starts" filter in the command
# at window starts only (--at-window-starts), on the same inputs: what the
# exact decisions inside windows change.
# Columns: acted = fraction of windows in which the filter changed the
# input; intrusion = mean |a - a_p| / a_max; cross = time until the
# clearance first falls to a tenth of its start (crossing 90% of the way to
# the wall; "never" if not); clearance = the least s(x) - r on each
# window's whole path where the world filters (exact), at window ends and
# events in the "starts" rows; contacts = wall contacts; hardest = the fastest of them (its
# normal speed): a filtered body may touch the wall, creeping, within the
# boundary's tolerance; an unprotected one hits it.
#
# usage: bench/steer_figures.sh [CAROM_BINARY]   (default build/release/carom)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
carom="${1:-$root/build/release/carom}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

awk 'BEGIN { print "time,body,ax,ay"; print "0,0,1,0";
  for (k = 1; k <= 384; k++) { t = 8 + 0.5 * (k - 1); a = k * 2.39996322972865332;
    printf "%.17g,0,%.17g,%.17g\n", t, cos(a), sin(a) } }' >"$work/replayed.csv"
cat >"$work/rink.yaml" <<'EOF'
world:
  dim: 2
  container: {rounded_box: [30, 15, 4]}
bodies:
  - count: 1
    radius: 0.5
    velocity: {speed: 0}
    steer: {law: linear, max_acceleration: 1, safety: 0.5}
run:
  window: 0.05
EOF

field() { awk -v key="\"$2\":" '$1 == key { v = $2; sub(/,$/, "", v); print v; exit }' "$1"; }
row() {
  local input=$1 law=$2 cross label=$2
  shift 2
  [[ " $* " == *" --at-window-starts "* ]] && label="$law, starts"
  if ! "$carom" steer "$@" --law "$law" --windows 4000 --window 0.05 --json "$work/f.json" --quiet >/dev/null \
    2>"$work/err"; then
    printf '| %s | %s | failed: %s |\n' "$input" "$label" "$(cut -c 8-120 "$work/err")"
    return
  fi
  cross=$(field "$work/f.json" time_to_cross)
  if [ "$cross" = null ]; then cross=never; else cross=$(printf '%.2f' "$cross"); fi
  printf '| %s | %s | %.3f | %.3f | %s | %.3g | %s | %.3g |\n' "$input" "$label" "$(field "$work/f.json" acted_fraction)" \
    "$(field "$work/f.json" mean_intrusion)" "$cross" "$(field "$work/f.json" min_clearance)" \
    "$(field "$work/f.json" wall_contacts)" "$(field "$work/f.json" hardest_impact)"
}

echo "| input | law | acted | intrusion | cross | clearance | contacts | hardest |"
echo "|---|---|---|---|---|---|---|---|"
for law in off naive linear quadratic directional backup; do row toward-wall "$law" --player toward-wall; done
for law in off naive linear quadratic directional backup; do row replayed "$law" --player "$work/replayed.csv"; done
for law in off naive linear quadratic directional backup; do row random "$law" --player random --seed 1; done
for law in linear quadratic; do
  row toward-wall "$law" --player toward-wall --at-window-starts
  row random "$law" --player random --seed 1 --at-window-starts
done
for law in off naive linear quadratic directional backup; do row rink "$law" "$work/rink.yaml" --player circle; done
