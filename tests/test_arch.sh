#!/usr/bin/env bash
# test_arch.sh — the instruction-set variant (-DCAROM_ARCH=x86-64-v3, AVX2 and
# FMA) gives the portable build's results, bit for bit. The library and the
# tests that hold golden hashes (test_golden: event sequences and states;
# test_rough: rotation, where GCC 12's vectorisers once fused a multiply with
# an add despite -ffp-contract=off; test_airhockey: a whole driven game) are
# built in that variant from SOURCE_DIR; no object of the library may contain
# a fused multiply-add instruction, and where this CPU has AVX2 and FMA the
# three tests must pass with the portable build's recorded hashes.
#
# usage: test_arch.sh SOURCE_DIR
# Prints "N passed, N failed" last; exits non-zero if anything failed.
source_dir=$(realpath "$1")
source "$(dirname "$0")/testlib.sh"

build="$work/v3"
if cmake -S "$source_dir" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCAROM_ARCH=x86-64-v3 -DCAROM_WERROR=ON \
     -DCAROM_BUILD_TOOLS=OFF -DCAROM_BUILD_BENCH=OFF >"$work/configure.log" 2>&1 &&
   cmake --build "$build" -j"$(nproc)" --target test_golden test_rough test_airhockey >"$work/build.log" 2>&1; then
  pass "x86-64-v3 build"
else
  fail "x86-64-v3 build" "$(tail -5 "$work/configure.log" "$work/build.log")"
  finish
fi

objects=$(find "$build" -path '*carom_objects.dir*' -name '*.o')
if [ -z "$objects" ]; then
  fail "library objects" "none found under $build"
else
  fused=0
  for o in $objects; do
    n=$(objdump -d "$o" | grep -cE '\svfn?m(add|sub)')
    [ "$n" -gt 0 ] && { fused=$((fused + n)); echo "  $(basename "$o"): $n fused multiply-add instructions"; }
  done
  if [ "$fused" -eq 0 ]; then pass "no fused multiply-add in $(echo "$objects" | wc -w) library objects"
  else fail "fused multiply-add" "$fused instructions (they round differently from the portable build)"; fi
fi

if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
  for t in test_golden test_rough test_airhockey; do
    if out=$("$build/tests/$t" 2>&1); then pass "$t in the x86-64-v3 build"
    else fail "$t in the x86-64-v3 build" "$(printf '%s\n' "$out" | grep -E 'FAIL|check failed' | head -5)"; fi
  done
else
  echo "  this CPU lacks AVX2 or FMA: the x86-64-v3 tests cannot run here (only built and inspected)"
fi
finish
