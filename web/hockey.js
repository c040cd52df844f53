// hockey.js — air hockey against the scripted agent (web/src/hockey_view.c),
// first to seven. The mouse (or the keys) sets where the player's mallet
// goes; the game runs 50 control windows a second, each exactly.
import { heldKeys, keyDirection, pointerToWorld } from './input.js';

// The order of enum hockey_counter in web/src/hockey_view.h.
const C = {
  time: 0, player: 1, agent: 2, over: 3, puckHits: 4, fastestPuck: 5, length: 6, width: 7, goalWidth: 8,
  count: 9,
};
const KEY_SPEED = 1.5; // m/s of the target under a held key

export class HockeyView {
  constructor(engine, page) {
    this.engine = engine;
    this.page = page;
    this.canvas = document.getElementById('hockey-canvas');
    this.context = this.canvas.getContext('2d');
    this.held = heldKeys(page, 'hockey');
    this.canvas.addEventListener('pointermove', (event) => this.point(event));
    this.canvas.addEventListener('pointerdown', (event) => this.point(event));
    document.getElementById('hockey-restart').addEventListener('click', () => this.restart());
    this.view = 0;
    this.games = 0;
    this.restart();
  }

  restart() {
    const e = this.engine.exports;
    if (this.view) e.hockey_destroy(this.view);
    this.view = e.hockey_create(1 + this.games++);
    if (!this.view) throw new Error('hockey_create: out of memory');
    if (e.hockey_status(this.view) !== 0) this.page.fail(`air hockey: ${this.engine.string(e.hockey_message(this.view))}`);
    const c = this.counters();
    this.table = { length: c.length, width: c.width, goal: c.goalWidth };
    this.scale = Math.min((this.canvas.width - 40) / c.length, (this.canvas.height - 40) / c.width);
    this.target = [-0.35 * c.length, 0];
    this.clock = c.time;
  }

  point(event) { this.target = pointerToWorld(this.canvas, event, this.scale); }

  counters() {
    const c = this.engine.doubles(this.engine.exports.hockey_counters(this.view), C.count);
    return Object.fromEntries(Object.entries(C).filter(([k]) => k !== 'count').map(([k, i]) => [k, c[i]]));
  }

  frame(seconds) {
    const e = this.engine.exports;
    if (e.hockey_status(this.view) !== 0) return;
    const [kx, ky] = keyDirection(this.held);
    this.target[0] += kx * KEY_SPEED * seconds;
    this.target[1] += ky * KEY_SPEED * seconds;
    const reach = [0.5 * this.table.length, 0.5 * this.table.width];
    this.target = [Math.max(-reach[0], Math.min(0, this.target[0])), Math.max(-reach[1], Math.min(reach[1], this.target[1]))];
    e.hockey_set_target(this.view, this.target[0], this.target[1]);
    this.clock += seconds;
    if (e.hockey_advance(this.view, this.clock, 50) !== 0)
      return this.page.fail(`air hockey: ${this.engine.string(e.hockey_message(this.view))}`);
    this.draw(this.engine.floats(e.hockey_bodies(this.view), 9));
    this.show(this.counters());
  }

  draw(b) {
    const g = this.context, w = this.canvas.width, h = this.canvas.height, s = this.scale, t = this.table;
    const px = (x) => w / 2 + x * s, py = (y) => h / 2 - y * s;
    g.fillStyle = '#f7f8fb';
    g.fillRect(0, 0, w, h);
    g.fillStyle = '#e8f1fb';
    g.fillRect(px(-t.length / 2), py(t.width / 2), t.length * s, t.width * s);
    g.strokeStyle = '#1d2330';
    g.lineWidth = 4;
    g.strokeRect(px(-t.length / 2), py(t.width / 2), t.length * s, t.width * s);
    g.lineWidth = 2;
    g.strokeStyle = '#c9d3e6';
    g.beginPath(); g.moveTo(px(0), py(t.width / 2)); g.lineTo(px(0), py(-t.width / 2)); g.stroke();
    g.beginPath(); g.arc(px(0), py(0), 0.15 * s, 0, 2 * Math.PI); g.stroke();
    g.lineWidth = 8;
    for (const [side, colour] of [[-1, '#2855c0'], [1, '#c62828']]) {
      g.strokeStyle = colour;
      g.beginPath(); g.moveTo(px(side * t.length / 2), py(t.goal / 2)); g.lineTo(px(side * t.length / 2), py(-t.goal / 2)); g.stroke();
    }
    const disk = (k, fill) => {
      g.beginPath();
      g.arc(px(b[3 * k]), py(b[3 * k + 1]), b[3 * k + 2] * s, 0, 2 * Math.PI);
      g.fillStyle = fill;
      g.fill();
    };
    disk(1, '#2855c0');
    disk(2, '#c62828');
    disk(0, '#1d2330');
    g.strokeStyle = '#2855c0';
    g.lineWidth = 1;
    g.beginPath(); g.arc(px(this.target[0]), py(this.target[1]), 6, 0, 2 * Math.PI); g.stroke();
  }

  show(c) {
    document.getElementById('hockey-score').textContent = `${c.player} : ${c.agent}`;
    document.getElementById('hockey-result').textContent =
      c.over ? (c.player > c.agent ? 'You win!' : 'The agent wins.') : 'first to 7';
    document.getElementById('hockey-counters').innerHTML = [
      ['time played (s)', c.time.toFixed(1)],
      ['puck hits', c.puckHits],
      ['fastest puck (m/s)', c.fastestPuck.toFixed(2)],
    ].map(([n, v]) => `<tr><td>${n}</td><td>${v}</td></tr>`).join('');
  }
}
