#!/usr/bin/env bash
# test_python_install.sh — scripts/python.sh installs the Python package
# into a fresh folder (from this build's libraries, --no-build); from
# another folder, with no hint of where the build is, Debian's python3
# imports it from there and simulates a collision with its closed-form
# time; a second install replaces the first whole; a target that is a
# file is refused and left alone. Then the example script runs to its end
# (it exits non-zero if one of its checks fails).
#
# usage: test_python_install.sh SOURCE_DIR BUILD_DIR
source_dir=$(realpath "$1")
build=$(realpath "$2")
source "$(dirname "$0")/testlib.sh"

out=$("$source_dir/scripts/python.sh" --target "$work/site" --build "$build" --no-build 2>&1)
if [ $? -eq 0 ] && [ -f "$work/site/carom/libcarom_py.so" ] && [ -f "$work/site/carom/libcarom.so.0" ]; then
  pass "install into a fresh folder"
else
  fail "install into a fresh folder" "$out"
fi

cat >"$work/meet.py" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import carom
assert carom.__file__.startswith(sys.argv[1]), carom.__file__
world = carom.World(dim=3, box=20.0, boundary="walls")
world.add_bodies([[-1.5, 0, 0], [1.5, 0, 0]], velocities=[[1, 0, 0], [-1, 0, 0]], radii=0.5)
world.record_events = True
world.run(until=3.0)
events = world.events()
assert len(events) == 1 and events["time"][0] == 1.0, events
print("met at", events["time"][0])
PY
out=$(cd "$work" && env -u CAROM_LIB_DIR /usr/bin/python3 meet.py "$work/site" 2>&1)
if [ $? -eq 0 ] && [[ $out == "met at 1.0" ]]; then pass "import and run from the installed copy"; else fail "import and run" "$out"; fi

echo "stale" >"$work/site/carom/stale.txt"
out=$("$source_dir/scripts/python.sh" --target "$work/site" --build "$build" --no-build 2>&1)
if [ $? -eq 0 ] && [ ! -e "$work/site/carom/stale.txt" ] && ! compgen -G "$work/site/.carom*" >/dev/null; then
  pass "a second install replaces the first whole"
else
  fail "reinstall" "$out"
fi

mkdir -p "$work/filetarget" && echo "mine" >"$work/filetarget/carom"
out=$("$source_dir/scripts/python.sh" --target "$work/filetarget" --build "$build" --no-build 2>&1)
if [ $? -ne 0 ] && [ "$(cat "$work/filetarget/carom")" = "mine" ] && [[ $out == *"not a folder"* ]]; then
  pass "a file in the way is refused and kept"
else
  fail "file in the way" "$out"
fi

out=$("$source_dir/scripts/python.sh" --target "$work/none" --build "$work/nobuild" --no-build 2>&1)
if [ $? -ne 0 ] && [[ $out == *"libcarom.so.0 is missing"* ]] && [ ! -e "$work/none/carom" ]; then
  pass "a missing build is refused"
else
  fail "missing build" "$out"
fi

out=$(cd "$work" && env -u CAROM_LIB_DIR PYTHONPATH="$work/site" /usr/bin/python3 "$source_dir/python/examples/hard_sphere_fluid.py" 2>&1)
status=$?
echo "$out" | tail -6
if [ $status -eq 0 ]; then pass "the example script's checks"; else fail "example script" "status $status"; fi
finish
