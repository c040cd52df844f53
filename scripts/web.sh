#!/usr/bin/env bash
# Builds the page (web/): the core library (src/), the air-hockey game
# (examples/airhockey) and the page's C views (web/src) compiled to
# WebAssembly by clang for wasm32-wasi (Debian's clang-14, wasi-libc,
# libclang-rt-14-dev-wasm32 and lld-14), beside the page's HTML, CSS and
# JavaScript, into build/web (or --out DIR). With --serve [PORT] it then
# serves the page on http://127.0.0.1:PORT (default 8000) with python3's
# http.server; nothing is computed on the server.
# The flags that matter for results are the native build's: no unsafe
# floating-point optimisations,
# no contraction of a*b+c into fused multiply-adds (tests/test_wasm.sh
# checks that both builds give the same bits).
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/web serve=0 port=8000
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --serve) serve=1; shift; if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then port=$1; shift; fi ;;
    *) echo "usage: scripts/web.sh [--out DIR] [--serve [PORT]]" >&2; exit 2 ;;
  esac
done
scripts/deps.sh
mkdir -p "$out"
cc=clang-14
command -v "$cc" >/dev/null || cc=clang
flags=(--target=wasm32-wasi -mexec-model=reactor -O2 -std=c11 -ffp-contract=off -DNDEBUG
       -Wall -Wextra -Werror -Iinclude -Isrc -Iexamples/airhockey -Iweb/src)
sources=(src/*.c examples/airhockey/airhockey.c examples/airhockey/controller.c web/src/*.c)
# A 1 MiB stack (wasm-ld's default is 64 KiB, with nothing to stop an overflow).
"$cc" "${flags[@]}" "${sources[@]}" -o "$out/carom.wasm.part" -Wl,-z,stack-size=1048576 -Wl,--strip-all
mv "$out/carom.wasm.part" "$out/carom.wasm"
cp web/index.html web/style.css web/*.js "$out/"
echo "carom: the page is in $out ($(stat -c %s "$out/carom.wasm") bytes of wasm)" >&2
if [ "$serve" = 1 ]; then
  echo "carom: serving on http://127.0.0.1:$port/ (Ctrl-C stops)" >&2
  exec python3 -m http.server --bind 127.0.0.1 --directory "$out" "$port"
fi
