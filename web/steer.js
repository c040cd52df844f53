// steer.js — seed 003's view: a ball steered by the keys, a gamepad or a
// touch, in a container, through the safety filter (web/src/steer_view.c).
import { heldKeys, keyDirection, pointerToWorld } from './input.js';

// The order of enum steer_counter in web/src/steer_view.h.
const C = {
  time: 0, x: 1, y: 2, vx: 3, vy: 4, lambda: 5, ratio: 6, acted: 7, wallHits: 8, leastClearance: 9,
  clearance: 10, count: 11,
};
const A_MAX = 2.0, SIGMA = 0.5, SCALE = 380; // pixels per unit length

export class SteerView {
  constructor(engine, page) {
    this.engine = engine;
    this.page = page;
    this.canvas = document.getElementById('steer-canvas');
    this.context = this.canvas.getContext('2d');
    this.held = heldKeys(page, 'steer');
    this.touch = null;
    this.trail = [];
    this.shape = document.getElementById('steer-shape');
    this.on = document.getElementById('steer-on');
    this.law = document.getElementById('steer-law');
    this.shape.addEventListener('change', () => this.restart());
    this.on.addEventListener('change', () => this.setLaw());
    this.law.addEventListener('change', () => this.setLaw());
    document.getElementById('steer-restart').addEventListener('click', () => this.restart());
    const point = (event) => { this.touch = pointerToWorld(this.canvas, event, SCALE); };
    this.canvas.addEventListener('pointerdown', (event) => { point(event); this.canvas.setPointerCapture(event.pointerId); });
    this.canvas.addEventListener('pointermove', (event) => { if (this.touch) point(event); });
    this.canvas.addEventListener('pointerup', () => { this.touch = null; });
    this.view = 0;
    this.restart();
  }

  restart() {
    const e = this.engine.exports;
    if (this.view) e.steer_destroy(this.view);
    this.view = e.steer_create(Number(this.shape.value), this.lawValue(), A_MAX, SIGMA);
    if (!this.view) throw new Error('steer_create: out of memory');
    if (e.steer_status(this.view) !== 0) this.page.fail(`steering: ${this.engine.string(e.steer_message(this.view))}`);
    const points = 256;
    this.outline = Array.from(this.engine.floats(e.steer_outline(this.view, points), 2 * points));
    this.radius = e.steer_radius(this.view);
    this.trail = [];
  }

  lawValue() { return this.on.checked ? Number(this.law.value) : 0; }

  setLaw() {
    const e = this.engine.exports;
    if (e.steer_set_law(this.view, this.lawValue()) !== 0)
      this.page.fail(`steering: ${this.engine.string(e.steer_message(this.view))}`);
  }

  // The player's push, each component in [-1, 1]: keys, then a gamepad's
  // left stick, then a touch (towards the touched point).
  input() {
    let [x, y] = keyDirection(this.held);
    for (const pad of navigator.getGamepads ? navigator.getGamepads() : []) {
      if (pad && Math.hypot(pad.axes[0], pad.axes[1]) > 0.15) { x += pad.axes[0]; y -= pad.axes[1]; }
    }
    if (this.touch) {
      const c = this.counters(), dx = this.touch[0] - c.x, dy = this.touch[1] - c.y, d = Math.hypot(dx, dy);
      if (d > 0.01) { x += dx / d; y += dy / d; }
    }
    const n = Math.hypot(x, y);
    return n > 1 ? [x / n, y / n] : [x, y];
  }

  frame(seconds) {
    const e = this.engine.exports;
    if (e.steer_status(this.view) !== 0) return;
    const [x, y] = this.input();
    if (e.steer_advance(this.view, x, y, seconds) !== 0)
      return this.page.fail(`steering: ${this.engine.string(e.steer_message(this.view))}`);
    const c = this.counters();
    this.trail.push([c.x, c.y]);
    if (this.trail.length > 240) this.trail.shift();
    this.draw(c, [x, y]);
    this.show(c);
  }

  counters() {
    const c = this.engine.doubles(this.engine.exports.steer_counters(this.view), C.count);
    return Object.fromEntries(Object.entries(C).filter(([k]) => k !== 'count').map(([k, i]) => [k, c[i]]));
  }

  draw(c, push) {
    const g = this.context, w = this.canvas.width, h = this.canvas.height;
    const px = (x) => w / 2 + x * SCALE, py = (y) => h / 2 - y * SCALE;
    g.fillStyle = '#fff';
    g.fillRect(0, 0, w, h);
    g.beginPath();
    for (let k = 0; k < this.outline.length; k += 2) g.lineTo(px(this.outline[k]), py(this.outline[k + 1]));
    g.closePath();
    g.fillStyle = '#eef3fb';
    g.fill();
    g.lineWidth = 3;
    g.strokeStyle = '#1d2330';
    g.stroke();
    g.beginPath();
    for (const [x, y] of this.trail) g.lineTo(px(x), py(y));
    g.lineWidth = 1.5;
    g.strokeStyle = '#9aa9c7';
    g.stroke();
    g.beginPath();
    g.arc(px(c.x), py(c.y), this.radius * SCALE, 0, 2 * Math.PI);
    g.fillStyle = c.acted ? '#e08a00' : '#2855c0';
    g.fill();
    g.beginPath();
    g.moveTo(px(c.x), py(c.y));
    g.lineTo(px(c.x + 0.12 * push[0]), py(c.y + 0.12 * push[1]));
    g.strokeStyle = '#1d2330';
    g.lineWidth = 2;
    g.stroke();
  }

  show(c) {
    const bar = (id, value) => {
      document.getElementById(`${id}-bar`).style.width = `${Math.min(100, 100 * value)}%`;
      document.getElementById(id).value = Number.isFinite(value) ? value.toFixed(3) : '∞';
    };
    bar('steer-lambda', c.lambda);
    bar('steer-ratio', c.ratio);
    document.getElementById('steer-counters').innerHTML = [
      ['time', c.time.toFixed(2)],
      ['speed', Math.hypot(c.vx, c.vy).toFixed(3)],
      ['clearance now', c.clearance.toExponential(2)],
      ['least clearance on the whole path', c.leastClearance.toExponential(2), c.leastClearance <= 0],
      ['wall hits', c.wallHits, c.wallHits > 0],
      ['filter acting', c.acted ? 'yes' : 'no'],
    ].map(([n, v, bad]) => `<tr${bad ? ' class="bad"' : ''}><td>${n}</td><td>${v}</td></tr>`).join('');
  }
}
