// trace.mjs — runs trace_run (web/src/trace.c) in the wasm build under node
// and prints every number as "section index hex-bits", the format of
// tests/web/trace_native.c, so that tests/test_wasm.sh can diff the two.
// Usage: node trace.mjs build/web/carom.wasm
import { readFileSync } from 'node:fs';
import { Engine } from '../../web/engine.js';

const engine = await Engine.fromBytes(readFileSync(process.argv[2]));
const e = engine.exports;
const started = process.hrtime.bigint();
const trace = e.trace_run();
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
if (!trace) throw new Error('trace_run: out of memory');
const count = e.trace_count(trace);
const values = engine.doubles(e.trace_values(trace), count);
const sections = engine.bytes(e.trace_sections(trace), count);
const bits = new DataView(values.buffer, values.byteOffset, 8 * count);
const lines = [];
const index = new Map();
for (let k = 0; k < count; k++) {
  const name = engine.string(e.trace_section_name(sections[k]));
  const at = index.get(name) ?? 0;
  index.set(name, at + 1);
  lines.push(`${name} ${at} ${bits.getBigUint64(8 * k, true).toString(16).padStart(16, '0')}`);
}
lines.push(`status ${e.trace_status(trace)}`);
process.stdout.write(lines.join('\n') + '\n');
process.stderr.write(`wasm trace: ${count} numbers in ${seconds.toFixed(3)} s\n`);
e.trace_destroy(trace);
