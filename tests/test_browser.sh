#!/usr/bin/env bash
# test_browser: the page in a real browser. Builds the page
# (scripts/web.sh), installs puppeteer-core from npm (the version pinned by
# tests/web/package-lock.json) into WORK_DIR, serves the page on a free
# port of 127.0.0.1 with python3's http.server, and runs
# tests/web/browser.mjs in Debian's headless Chromium. Screenshots of each
# view are left in WORK_DIR/shots. A missing browser or package fails.
# Usage: test_browser.sh WORK_DIR
set -uo pipefail
work=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
rm -rf "$work" && mkdir -p "$work/shots" "$work/npm"
if ! "$root/scripts/web.sh" --out "$work/page" >"$work/build.log" 2>&1; then
  cat "$work/build.log"; echo "FAIL the page builds"; echo "0 passed, 1 failed"; exit 1
fi
cp "$here/web/package.json" "$here/web/package-lock.json" "$work/npm/"
if ! (cd "$work/npm" && npm ci --no-audit --no-fund --loglevel=error) >"$work/npm.log" 2>&1; then
  cat "$work/npm.log"; echo "FAIL npm ci (puppeteer-core from the npm registry)"; echo "0 passed, 1 failed"; exit 1
fi
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$work/page" >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$work/server.log" | head -1)
  [ -n "$port" ] && break
  sleep 0.1
done
if [ -z "$port" ]; then cat "$work/server.log"; echo "FAIL the server starts"; echo "0 passed, 1 failed"; exit 1; fi
node "$here/web/browser.mjs" "http://127.0.0.1:$port/" "$work/shots" "$work/npm/node_modules"
