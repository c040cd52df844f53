#!/usr/bin/env bash
# Installs carom's Python package (python/carom) for Debian's /usr/bin/python3:
# builds libcarom.so and its helper libcarom_py.so (release, warnings as
# errors), then copies the package with both libraries inside it to
# /usr/local/lib/python3.X/dist-packages/carom (or --target DIR), so that
# `import carom` works from any folder. The copy is made beside the target
# and renamed into place when complete: an interrupted install leaves the
# previous one whole.
#
# usage: scripts/python.sh [--target DIR] [--build DIR] [--no-build]
#   --target DIR  install into DIR/carom (default: Debian's site folder for /usr/bin/python3)
#   --build DIR   the CMake build folder to build in and take the libraries from (default build/release)
#   --no-build    take the libraries as they are in the build folder (no dependencies, no build)
set -euo pipefail
cd "$(dirname "$0")/.."
target="" build=build/release do_build=1
while [ $# -gt 0 ]; do
  case $1 in
    --target) target=${2:?--target needs a folder}; shift 2 ;;
    --build) build=${2:?--build needs a folder}; shift 2 ;;
    --no-build) do_build=0; shift ;;
    *) echo "scripts/python.sh: unknown option '$1' (expected --target DIR, --build DIR or --no-build)" >&2; exit 2 ;;
  esac
done
python=/usr/bin/python3
if [ $do_build -eq 1 ]; then
  scripts/deps.sh
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCAROM_WERROR=ON >/dev/null
  cmake --build "$build" -j"$(nproc)" --target carom_shared carom_py
fi
for lib in libcarom.so.0 libcarom_py.so; do
  [ -e "$build/$lib" ] || { echo "scripts/python.sh: $build/$lib is missing (build it, or drop --no-build)" >&2; exit 1; }
done
[ -n "$target" ] || target=$("$python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
mkdir -p "$target"
if [ -e "$target/carom" ] && [ ! -d "$target/carom" ]; then
  echo "scripts/python.sh: $target/carom exists and is not a folder; not replacing it" >&2
  exit 1
fi
staging=$(mktemp -d "$target/.carom.XXXXXX")
trap 'rm -rf "$staging"' EXIT
cp python/carom/*.py "$staging/"
cp -L "$build/libcarom.so.0" "$build/libcarom_py.so" "$staging/"
chmod 755 "$staging"
old=""
if [ -d "$target/carom" ]; then old=$(mktemp -d "$target/.carom-old.XXXXXX"); mv "$target/carom" "$old/"; fi
mv "$staging" "$target/carom"
[ -z "$old" ] || rm -rf "$old"
trap - EXIT
echo "carom: the Python package is in $target/carom"
"$python" -c "import sys; sys.path.insert(0, '$target'); import carom; print('carom', carom.__version__, 'imports from', carom.__file__)"
