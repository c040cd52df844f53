#!/usr/bin/env bash
# Builds and runs the whole test suite twice: optimised with warnings as
# errors, then Debug with AddressSanitizer and UndefinedBehaviorSanitizer;
# then a short run of each libFuzzer target (CAROM_FUZZ_SECONDS each, default
# 20; scripts/fuzz.sh runs long campaigns), each counted as one test.
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

run_fuzz() { # a short, reproducible run of each fuzz target (scripts/fuzz.sh), each counted as one test
  local runs=${CAROM_FUZZ_RUNS:-30000} t
  echo "== fuzz: each target for $runs executions from a fixed seed (at $((SECONDS - started)) s)"
  for t in scenario xyz snapshot checkpoint run; do
    if CAROM_FUZZ_RUNS=$runs scripts/fuzz.sh "$t" 300 1; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  done
}

mkdir -p build
run_pass release "CAROM_TEST_QUICK=0" -DCMAKE_BUILD_TYPE=Release
run_pass sanitize "CAROM_TEST_QUICK=1" -DCMAKE_BUILD_TYPE=Debug -DCAROM_SANITIZE=ON
run_fuzz
echo "== done in $((SECONDS - started)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
