#!/usr/bin/env bash
# Fuzzing campaigns with clang's libFuzzer (ASan and UBSan on every source).
#   scripts/fuzz.sh [TARGET|all] [SECONDS] [JOBS]
# TARGET: scenario, xyz, snapshot, checkpoint, run (tests/fuzz/fuzz_TARGET.c),
# all (the default), or build (build the targets and stop). SECONDS per
# target (default 60), JOBS processes in parallel (default 1). The corpus
# grows in build/fuzz/corpus/TARGET, seeded from tests/fuzz/corpus/TARGET;
# crashes, leaks, timeouts and broken promises land in
# build/fuzz/artifacts/TARGET/. Prints per target: executions, their
# rate, coverage (edges) and features, corpus size and findings. Exit status
# 1 if anything was found.
# With CAROM_FUZZ_RUNS=N (what scripts/test.sh uses) each target instead makes
# exactly N executions from a fixed seed, starting from the seed corpus only
# (SECONDS is then a time limit). libFuzzer's choices still vary a little from
# run to run (README.md, "Tests"), so a pass can reach an input others did not.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
targets=${1:-all}
seconds=${2:-60}
jobs=${3:-1}
[ "$targets" = all ] && targets="scenario xyz snapshot checkpoint run"

build=$root/build/fuzz
if ! command -v clang >/dev/null; then echo "fuzz: clang is missing (scripts/deps.sh installs it)" >&2; exit 2; fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang cmake -S . -B "$build" -DCAROM_FUZZ=ON -DCAROM_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCAROM_BUILD_TESTS=OFF -DCAROM_BUILD_BENCH=OFF >"$build.configure.log" 2>&1 ||
    { cat "$build.configure.log"; exit 2; }
fi
cmake --build "$build" -j"$(nproc)" >"$build.build.log" 2>&1 || { grep -E 'error' "$build.build.log"; exit 2; }
[ "$targets" = build ] && exit 0

dict_of() { case $1 in run) echo scenario ;; *) echo "$1" ;; esac; }

found_any=0
for t in $targets; do
  exe=$build/tests/fuzz/fuzz_$t
  [ -x "$exe" ] || { echo "fuzz: no target $t" >&2; exit 2; }
  corpus=$build/corpus/$t artifacts=$build/artifacts/$t work=$build/work/$t
  if [ -n "${CAROM_FUZZ_RUNS:-}" ]; then corpus=$build/fixed/$t; rm -rf "$corpus"; fi
  mkdir -p "$corpus" "$artifacts" "$work"
  rm -f "$work"/fuzz-*.log "$work/log"
  flags=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
         ${CAROM_FUZZ_RUNS:+-runs="$CAROM_FUZZ_RUNS" -seed=1}
         -dict="$root/tests/fuzz/$(dict_of "$t").dict" -artifact_prefix="$artifacts/")
  before=$(find "$artifacts" -type f | wc -l)
  started=$(date +%s)
  if [ "$jobs" -gt 1 ]; then
    (cd "$work" && "$exe" "${flags[@]}" -jobs="$jobs" -workers="$jobs" "$corpus" "$root/tests/fuzz/corpus/$t" \
      >/dev/null 2>&1)
    cat "$work"/fuzz-*.log >"$work/log" 2>/dev/null
  else
    (cd "$work" && "$exe" "${flags[@]}" "$corpus" "$root/tests/fuzz/corpus/$t" >"$work/log" 2>&1)
  fi
  after=$(find "$artifacts" -type f | wc -l)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | awk '{s += $1} END {print s + 0}')
  elapsed=$(( $(date +%s) - started ))
  [ "$elapsed" -gt 0 ] || elapsed=1
  rate=$(awk -v e="$execs" -v s="$elapsed" 'BEGIN {printf "%.0f", e / s}')
  last=$(grep -E '^#[0-9]+' "$work/log" | tail -1)
  cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
  units=$(find "$corpus" -type f | wc -l)
  findings=$((after - before))
  printf 'fuzz_%s: %s s x %s jobs, %s executions (%s/s), coverage %s edges, %s features, corpus %s, findings %s\n' \
    "$t" "$elapsed" "$jobs" "$execs" "$rate" "${cov:-?}" "${ft:-?}" "$units" "$findings"
  if [ "$findings" -gt 0 ] || grep -qE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|promise broken|runtime error' "$work/log"; then
    found_any=1
    grep -E 'promise broken|ERROR:|SUMMARY:|runtime error' "$work/log" | head -5
    echo "  inputs: $(find "$artifacts" -type f -newer "$work" 2>/dev/null | head -3 | tr '\n' ' ')"
  fi
done
exit $found_any
