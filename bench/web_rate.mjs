// web_rate.mjs — the wasm side of bench/web_rate.sh: the same work as
// bench/web_rate.c (seed 002's exact view as the page runs it), in the wasm
// build under node. Prints "wasm N collisions seconds rate".
// Usage: node web_rate.mjs CAROM_WASM [N] [SIMULATED_SECONDS]
import { readFileSync } from 'node:fs';
import { Engine } from '../web/engine.js';

const engine = await Engine.fromBytes(readFileSync(process.argv[2]));
const e = engine.exports;
const n = Number(process.argv[3] ?? 10000), seconds = Number(process.argv[4] ?? 2);
const view = e.box_create(n, 1.6, 1.0, 0.7 * e.web_max_radius(n, 1.6, 1.0), 0.3, 0.02, 2026);
if (e.box_status(view) !== 0) throw new Error(engine.string(e.box_message(view)));
const start = process.hrtime.bigint();
for (let frame = 1; frame <= Math.trunc(60 * seconds); frame++)
  if (e.box_advance(view, frame / 60, 0) !== 0) throw new Error(engine.string(e.box_message(view)));
const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
const collisions = engine.doubles(e.box_counters(view), 14)[5];
console.log(`wasm ${n} ${collisions} ${elapsed.toFixed(4)} ${Math.round(collisions / elapsed)}`);
e.box_destroy(view);
