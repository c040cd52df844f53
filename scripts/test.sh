#!/usr/bin/env bash
# Builds and runs the whole test suite twice: optimised with warnings as
# errors, then Debug (at -O1, asserts on) with AddressSanitizer and
# UndefinedBehaviorSanitizer, the longest runs shortened (CAROM_TEST_QUICK=1);
# then a short run of each libFuzzer target from a fixed seed (CAROM_FUZZ_RUNS
# executions, default 30000; scripts/fuzz.sh runs long campaigns), each
# counted as one test.
# The last line is "N passed, N failed" over all of them.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh || exit 1
jobs=$(nproc)
started=$SECONDS
passed=0
failed=0

run_pass() { # name, extra environment, cmake options...
  local name=$1 env=$2
  shift 2
  local dir=build/$name log
  echo "== $name: configure and build (at $((SECONDS - started)) s)"
  cmake -S . -B "$dir" -DCAROM_WERROR=ON "$@" >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; failed=$((failed + 1)); return; }
  cmake --build "$dir" -j"$jobs" 2>&1 | grep -E 'error|warning' ;
  if [ "${PIPESTATUS[0]}" -ne 0 ]; then echo "build failed ($name)"; failed=$((failed + 1)); return; fi
  echo "== $name: run the tests (at $((SECONDS - started)) s)"
  log=$(cd "$dir" && env $env ctest --output-on-failure -j"$jobs" 2>&1)
  echo "$log"
  local total fails
  total=$(echo "$log" | sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' | tail -1)
  fails=$(echo "$log" | sed -n 's/.*, \([0-9]*\) tests failed out of.*/\1/p' | tail -1)
  if [ -z "$total" ]; then failed=$((failed + 1)); return; fi
  passed=$((passed + total - fails))
  failed=$((failed + fails))
}

# A short run of each fuzz target (scripts/fuzz.sh), each
# counted as one test: a fixed number of executions from a fixed seed, the
# targets side by side on the cores, the slowest first. fuzz_run runs a
# simulation per input, about 30 times as long as the parsers' inputs, so it
# makes a quarter of the executions. The time limit only stops a target that
# hangs.
run_fuzz() {
  local runs=${CAROM_FUZZ_RUNS:-30000} t n dir=build/fuzz-pass
  echo "== fuzz: each target for $runs executions ($((runs / 4)) for run) from a fixed seed (at $((SECONDS - started)) s)"
  if ! scripts/fuzz.sh build; then failed=$((failed + 5)); return; fi
  rm -rf "$dir" && mkdir -p "$dir"
  for t in run checkpoint scenario xyz snapshot; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    n=$runs
    [ "$t" = run ] && n=$((runs / 4))
    (CAROM_FUZZ_RUNS=$n scripts/fuzz.sh "$t" 1200 1 >"$dir/$t.log" 2>&1; echo $? >"$dir/$t.status") &
  done
  wait
  for t in scenario xyz snapshot checkpoint run; do
    cat "$dir/$t.log"
    if [ "$(cat "$dir/$t.status" 2>/dev/null)" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  done
}

mkdir -p build
run_pass release "CAROM_TEST_QUICK=0" -DCMAKE_BUILD_TYPE=Release
# -O1, as the sanitizers' own documentation advises: asserts stay on, and the
# runs are about 2.5 times as fast as at -O0.
run_pass sanitize "CAROM_TEST_QUICK=1" -DCMAKE_BUILD_TYPE=Debug -DCAROM_SANITIZE=ON "-DCMAKE_C_FLAGS_DEBUG=-g -O1"
run_fuzz
echo "== done in $((SECONDS - started)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
