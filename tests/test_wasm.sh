#!/usr/bin/env bash
# test_wasm: the page's engine is the native engine, bit for bit. The same
# fixed runs (web/src/trace.c: seed 002's box, its first 5,000 events and
# final states; the frame stepper; the steered ball in four containers
# under six laws; an air-hockey game) run in the native build (trace_native,
# compiled by this build) and in the wasm build (scripts/web.sh, clang
# wasm32-wasi) under node; every number must have the same bits.
# Usage: test_wasm.sh TRACE_NATIVE WORK_DIR
set -uo pipefail
native=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
passed=0 failed=0
ok() { echo "ok $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }
rm -rf "$work" && mkdir -p "$work"

if "$root/scripts/web.sh" --out "$work/page" >"$work/build.log" 2>&1; then ok "the wasm build"; else
  cat "$work/build.log"; fail "the wasm build"; fi
"$native" >"$work/native.txt" 2>"$work/native.err" && ok "the native trace runs" || fail "the native trace runs"
node "$here/web/trace.mjs" "$work/page/carom.wasm" >"$work/wasm.txt" 2>"$work/wasm.err" &&
  ok "the wasm trace runs under node" || { cat "$work/wasm.err"; fail "the wasm trace runs under node"; }
cat "$work/native.err" "$work/wasm.err"

lines=$(wc -l <"$work/native.txt")
[ "$lines" -gt 28000 ] && ok "the trace holds every run ($lines numbers)" || fail "the trace is short: $lines lines"
grep -qx "status 0" "$work/native.txt" && ok "every native run went through" || fail "a native run failed: $(tail -1 "$work/native.txt")"
for section in box-events box-states frame steer hockey; do
  a=$(grep -c "^$section " "$work/native.txt") b=$(grep -c "^$section " "$work/wasm.txt")
  first=$(diff <(grep "^$section " "$work/native.txt") <(grep "^$section " "$work/wasm.txt") | sed -n 2p)
  if [ "$a" -gt 0 ] && [ "$a" = "$b" ] && [ -z "$first" ]; then ok "$section: $a numbers, the same bits"
  else fail "$section: native $a numbers, wasm $b; first difference: ${first:-none}"; fi
done
cmp -s "$work/native.txt" "$work/wasm.txt" && ok "the whole trace, the same bits" || fail "the traces differ"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
