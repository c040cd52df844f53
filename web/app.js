// app.js — the page: loads the engine, shows one view at a time (the URL's
// #box, #steer or #hockey) and drives it once per animation frame, each
// frame drawn at the simulated instant that matches the wall clock.
// window.carom exposes the views and the frame timing to the tests
// (tests/web/browser.mjs).
import { Engine } from './engine.js';
import { BoxView } from './box.js';
import { SteerView } from './steer.js';
import { HockeyView } from './hockey.js';

const VIEWS = { box: BoxView, steer: SteerView, hockey: HockeyView };
const LONGEST_STEP = 0.05; // s: a frame after a pause (a hidden tab) advances at most this much

class Page {
  constructor(engine) {
    this.engine = engine;
    this.views = {};
    this.current = null;
    this.timing = { frames: 0, workMs: 0, intervalMs: 0, last: 0, recent: [] };
    addEventListener('hashchange', () => this.select());
    this.select();
    requestAnimationFrame((t) => this.tick(t));
  }

  fail(message) {
    const p = document.getElementById('error');
    p.hidden = false;
    p.textContent = message;
    console.error(message);
  }

  showing(name) { return this.current === name; }

  select() {
    const name = location.hash.slice(1) in VIEWS ? location.hash.slice(1) : 'box';
    for (const section of document.querySelectorAll('.view')) section.hidden = section.id !== name;
    for (const a of document.querySelectorAll('nav a')) a.classList.toggle('active', a.dataset.view === name);
    if (!this.views[name]) this.views[name] = new VIEWS[name](this.engine, this);
    this.current = name;
    this.timing.last = 0;
  }

  tick(now) {
    const t = this.timing;
    const seconds = t.last ? Math.min((now - t.last) / 1000, LONGEST_STEP) : 1 / 60;
    if (t.last) {
      t.recent.push(now - t.last);
      if (t.recent.length > 120) t.recent.shift();
    }
    t.last = now;
    const started = performance.now();
    this.views[this.current].frame(seconds);
    const work = performance.now() - started;
    t.frames++;
    t.workMs = 0.9 * t.workMs + 0.1 * work;
    t.intervalMs = t.recent.length ? t.recent.reduce((a, b) => a + b, 0) / t.recent.length : 0;
    if (t.frames % 30 === 0)
      document.getElementById('frame-time').textContent =
        `frame every ${t.intervalMs.toFixed(1)} ms; engine and drawing ${t.workMs.toFixed(1)} ms a frame`;
    requestAnimationFrame((n) => this.tick(n));
  }
}

Engine.fromUrl('carom.wasm').then((engine) => {
  window.carom = new Page(engine);
}).catch((error) => {
  const p = document.getElementById('error');
  p.hidden = false;
  p.textContent = `carom could not start: ${error.message}`;
  console.error(error);
});
