// box.js — seed 002's view: the exact engine and the frame stepper side by
// side (web/src/box_view.c does the work; this file reads the sliders,
// keeps the clock and draws).
import { diskDrawer } from './draw.js';

const WIDTH = 1.6, HEIGHT = 1.0, SEED = 2026;
const COUNTS = [100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000]; // the disks slider's stops
// The order of enum box_counter in web/src/box_view.h.
const C = {
  timeExact: 0, timeFrame: 1, energyStart: 2, energyExact: 3, energyFrame: 4, collisionsExact: 5,
  wallsExact: 6, collisionsFrame: 7, overlapsNow: 8, overlapsMost: 9, missed: 10, penetrationMost: 11,
  overlapsExact: 12, frames: 13, count: 14,
};

function fmt(x, digits = 4) {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  const a = Math.abs(x);
  return a >= 1e5 || a < 1e-3 ? x.toExponential(2) : x.toPrecision(digits);
}

function rows(table, entries) {
  table.innerHTML = entries.map(([name, value, bad]) =>
    `<tr${bad ? ' class="bad"' : ''}><td>${name}</td><td>${value}</td></tr>`).join('');
}

export class BoxView {
  constructor(engine, page) {
    this.engine = engine;
    this.page = page;
    this.exactDrawer = diskDrawer(document.getElementById('box-exact'));
    this.frameDrawer = diskDrawer(document.getElementById('box-frame'));
    this.inputs = ['n', 'speed', 'radius', 'dt'].map((k) => document.getElementById(`box-${k}`));
    // The address may set the start exactly: ?n=10000&speed=0.2&radius=0.6&dt=0.01&stepper=0
    // (radius as a fraction of the largest that fits); moving a slider takes over.
    const asked = new URLSearchParams(location.search);
    this.asked = {};
    for (const input of this.inputs) {
      const key = input.id.slice(4), value = Number(asked.get(key));
      if (!asked.has(key) || !(value > 0)) continue;
      this.asked[key] = value;
      input.value = key === 'n' ? COUNTS.reduce((best, c, i) => Math.abs(Math.log(c / value)) <
        Math.abs(Math.log(COUNTS[best] / value)) ? i : best, 0) : key === 'dt' ? Math.log10(value) : value;
      input.addEventListener('input', () => delete this.asked[key], { once: true });
    }
    if (asked.get('stepper') === '0') document.getElementById('box-stepper').checked = false;
    for (const input of this.inputs) input.addEventListener('change', () => this.restart());
    for (const input of this.inputs) input.addEventListener('input', () => this.showSettings());
    document.getElementById('box-restart').addEventListener('click', () => this.restart());
    this.stepper = document.getElementById('box-stepper');
    this.stepper.addEventListener('change', () => this.restart());
    this.view = 0;
    this.rate = { at: 0, collisions: 0, value: 0 };
    this.restart();
  }

  settings() {
    const [n, speed, radius, dt] = this.inputs.map((i) => Number(i.value));
    const a = this.asked, count = Math.round(a.n ?? COUNTS[n]);
    const largest = this.engine.exports.web_max_radius(count, WIDTH, HEIGHT);
    return { n: count, speed: a.speed ?? speed, radius: (a.radius ?? radius) * largest, dt: a.dt ?? 10 ** dt };
  }

  showSettings() {
    const s = this.settings();
    document.getElementById('box-n-out').value = s.n.toLocaleString('en');
    document.getElementById('box-speed-out').value = fmt(s.speed, 3);
    document.getElementById('box-radius-out').value = fmt(s.radius, 3);
    document.getElementById('box-dt-out').value = fmt(s.dt, 3);
    document.getElementById('box-fine').textContent =
      `box ${WIDTH} × ${HEIGHT}; every disk starts at speed ${fmt(s.speed, 3)} in a random direction; ` +
      `a disk crosses its own diameter in ${fmt(2 * s.radius / s.speed, 3)}, the frame step is ${fmt(s.dt, 3)}.`;
  }

  restart() {
    const e = this.engine.exports;
    if (this.view) e.box_destroy(this.view);
    const s = this.settings();
    this.showSettings();
    this.view = e.box_create(s.n, WIDTH, HEIGHT, s.radius, s.speed, s.dt, SEED);
    if (!this.view) throw new Error('box_create: out of memory');
    if (e.box_status(this.view) !== 0) this.page.fail(`box: ${this.engine.string(e.box_message(this.view))}`);
    this.n = s.n;
    this.clock = 0;
    this.stepping = this.stepper.checked;
    document.getElementById('box-frame-figure').hidden = !this.stepping;
    this.rate = { at: performance.now(), collisions: 0, value: 0 };
  }

  // Advances both runs by seconds of real time (the simulated clock runs at
  // the wall clock's pace) and draws them at the exact engine's instant.
  frame(seconds) {
    const e = this.engine.exports;
    if (e.box_status(this.view) !== 0) return;
    this.clock += seconds;
    const t0 = performance.now();
    const status = e.box_advance(this.view, this.clock, this.stepping ? 5000 : 0);
    if (status !== 0) return this.page.fail(`box: ${this.engine.string(e.box_message(this.view))}`);
    const t1 = performance.now();
    this.draw(this.exactDrawer, 0, e.box_exact_disks(this.view));
    if (this.stepping) this.draw(this.frameDrawer, 1, e.box_frame_disks(this.view));
    const t2 = performance.now();
    this.showCounters();
    const t3 = performance.now();
    const p = this.profile || (this.profile = { engine: 0, draw: 0, counters: 0 });
    p.engine = 0.9 * p.engine + 0.1 * (t1 - t0), p.draw = 0.9 * p.draw + 0.1 * (t2 - t1), p.counters = 0.9 * p.counters + 0.1 * (t3 - t2);
  }

  draw(drawer, which, disks) {
    const e = this.engine.exports;
    if (drawer.kind !== 'pixels') return drawer.draw(this.engine.floats(disks, 4 * this.n), this.n, WIDTH, HEIGHT);
    const pixels = e.box_paint(this.view, which, drawer.canvas.width, drawer.canvas.height);
    if (!pixels) return this.page.fail('box: out of memory for the pixels');
    drawer.put(this.engine.memory, pixels);
  }

  counters() {
    const c = this.engine.doubles(this.engine.exports.box_counters(this.view), C.count);
    return Object.fromEntries(Object.entries(C).filter(([k]) => k !== 'count').map(([k, i]) => [k, c[i]]));
  }

  showCounters() {
    const c = this.counters(), now = performance.now();
    if (now - this.rate.at >= 1000) {
      this.rate.value = (c.collisionsExact - this.rate.collisions) * 1000 / (now - this.rate.at);
      this.rate.at = now;
      this.rate.collisions = c.collisionsExact;
    }
    this.collisionsPerSecond = this.rate.value;
    const drift = (x) => (x - c.energyStart) / c.energyStart;
    rows(document.getElementById('box-exact-counters'), [
      ['time', fmt(c.timeExact)],
      ['energy E/E₀ − 1', fmt(drift(c.energyExact), 3)],
      ['collisions', c.collisionsExact.toLocaleString('en')],
      ['collisions per second', Math.round(this.rate.value).toLocaleString('en')],
      ['overlapping pairs', c.overlapsExact, c.overlapsExact > 0],
    ]);
    rows(document.getElementById('box-frame-counters'), [
      ['time', fmt(c.timeFrame)],
      ['energy E/E₀ − 1', fmt(drift(c.energyFrame), 3), Math.abs(drift(c.energyFrame)) > 1e-9],
      ['collisions', c.collisionsFrame.toLocaleString('en')],
      ['overlapping pairs now (most)', `${c.overlapsNow} (${c.overlapsMost})`, c.overlapsNow > 0],
      ['missed collisions (passed through)', c.missed, c.missed > 0],
      ['deepest overlap at an impulse', fmt(c.penetrationMost, 3)],
    ]);
  }
}
