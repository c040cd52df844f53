#!/usr/bin/env bash
# Installs the Debian packages carom needs that are missing (run as root on
# Debian 12; a new machine has gcc, make and cmake). The core library needs
# nothing beyond a C11 compiler and libm; python3-ase is for test_ase, which
# checks that ASE reads carom's trajectories; clang and its runtime libraries
# (libFuzzer, the sanitizers) are for the fuzz targets (scripts/fuzz.sh).
# Further packages may be named as arguments (bench/valgrind_build.sh asks for valgrind).
set -euo pipefail
needed=(gcc make cmake libyaml-dev python3-ase clang libclang-rt-14-dev "$@")
needed+=(python3-numpy python3-pytest) # the Python package (python/carom) and its tests
needed+=(pkgconf) # pkg-config, for test_install (a program built against the installed carom)
needed+=(libcairo2-dev) # carom render: pictures drawn with cairo (PNG, SVG)
needed+=(ffmpeg) # carom run --movie: MP4 and GIF encoding (test_movie uses ffprobe too)
needed+=(gnuplot-nox) # carom plot: plots drawn by gnuplot (pngcairo and svg terminals)
needed+=(wasi-libc libclang-rt-14-dev-wasm32 lld-14) # the page: the engine compiled to wasm32-wasi (scripts/web.sh)
needed+=(chromium) # the page's tests: headless Chromium, driven by puppeteer-core from npm
command -v node >/dev/null 2>&1 || needed+=(nodejs) # test_wasm runs the wasm engine under node
command -v npm >/dev/null 2>&1 || needed+=(npm)     # test_browser installs puppeteer-core
missing=()
for pkg in "${needed[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "carom: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
