#!/usr/bin/env bash
# test_install.sh — `cmake --install` into a fresh prefix, then a small program
# built against the installed carom twice: with pkg-config (shared library)
# and with find_package(carom) (static library), each compiled with warnings
# as errors and run. The prefix is then moved, and both ways must still work
# (the pkg-config file and the CMake package are relocatable). The installed
# `carom` command must run too.
#
# usage: test_install.sh BUILD_DIR
# Prints "N passed, N failed" last; exits non-zero if anything failed.
build=$(realpath "$1")
source "$(dirname "$0")/testlib.sh"

cat >"$work/hello.c" <<'C'
#include <stdio.h>
#include "carom.h"
/* Two spheres meet head on: each moves 1 until contact at t = 1 (gap 2, closing speed 2). */
int main(void)
{
    carom_world_def def = carom_default_world_def();
    def.dim = 3;
    def.box = (carom_vec){20, 20, 20};
    carom_world *w = NULL;
    if (carom_world_create(&def, &w, NULL, 0) != CAROM_OK) return 1;
    carom_body_def b = carom_default_body_def();
    b.radius = 0.5;
    b.position = (carom_vec){-1.5, 0, 0}, b.velocity = (carom_vec){1, 0, 0};
    carom_world_add_body(w, &b, NULL);
    b.position = (carom_vec){1.5, 0, 0}, b.velocity = (carom_vec){-1, 0, 0};
    carom_world_add_body(w, &b, NULL);
    carom_world_run(w, 2.0, -1);
    carom_stats st = carom_world_stats(w);
    printf("pairs %lld\n", (long long)st.pair_events);
    carom_world_destroy(w);
    return 0;
}
C

cat >"$work/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.16)
project(hello LANGUAGES C)
find_package(carom 0.1 CONFIG REQUIRED)
add_executable(hello hello.c)
target_compile_options(hello PRIVATE -std=c11 -Wall -Wextra -Wpedantic -Werror)
target_link_libraries(hello PRIVATE carom::carom_static)
C

install_prefix() {
  cmake --install "$build" --prefix "$1" >"$work/install.log" 2>&1 || { fail install "$(tail -3 "$work/install.log")"; return 1; }
  local f
  for f in bin/carom include/carom.h; do
    [ -e "$1/$f" ] || { fail install "$f missing"; return 1; }
  done
  [ -n "$(find "$1" -name carom.pc)" ] && [ -n "$(find "$1" -name caromConfig.cmake)" ] &&
    [ -n "$(find "$1" -name caromConfigVersion.cmake)" ] && [ -n "$(find "$1" -name 'libcarom.so*')" ] &&
    [ -n "$(find "$1" -name libcarom.a)" ] || { fail install "a file is missing: $(cd "$1" && find . -type f)"; return 1; }
  return 0
}

with_pkg_config() { # prefix label
  local pc_dir out
  pc_dir=$(dirname "$(find "$1" -name carom.pc | head -1)")
  out=$(PKG_CONFIG_PATH=$pc_dir pkg-config --modversion carom 2>&1) && [ "$out" = "$("$1/bin/carom" --version | cut -d' ' -f2)" ] ||
    { fail "pkg-config $2" "version: $out"; return; }
  # shellcheck disable=SC2046
  cc -std=c11 -Wall -Wextra -Wpedantic -Werror "$work/hello.c" -o "$work/hello_pc" \
    $(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags --libs carom) 2>"$work/cc.log" || { fail "pkg-config $2" "$(cat "$work/cc.log")"; return; }
  out=$(LD_LIBRARY_PATH=$(dirname "$(find "$1" -name 'libcarom.so' | head -1)") "$work/hello_pc") && [ "$out" = "pairs 1" ] ||
    { fail "pkg-config $2" "program said: $out"; return; }
  pass "pkg-config $2"
}

with_find_package() { # prefix label
  rm -rf "$work/b"
  cmake -S "$work" -B "$work/b" -DCMAKE_PREFIX_PATH="$1" >"$work/cmake.log" 2>&1 &&
    cmake --build "$work/b" >>"$work/cmake.log" 2>&1 || { fail "find_package $2" "$(tail -5 "$work/cmake.log")"; return; }
  local out
  out=$("$work/b/hello") && [ "$out" = "pairs 1" ] || { fail "find_package $2" "program said: $out"; return; }
  pass "find_package $2"
}

if install_prefix "$work/prefix"; then
  out=$("$work/prefix/bin/carom" --version) && [[ $out == "carom "* ]] && pass install || fail install "carom --version: $out"
  with_pkg_config "$work/prefix" installed
  with_find_package "$work/prefix" installed
  mv "$work/prefix" "$work/moved"
  with_pkg_config "$work/moved" moved
  with_find_package "$work/moved" moved
fi
finish
