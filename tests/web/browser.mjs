// browser.mjs — the page's tests in a real browser: Debian's Chromium,
// headless, driven by puppeteer-core (npm), against the page served on
// 127.0.0.1 (tests/test_browser.sh serves it and installs puppeteer-core).
// Usage: node browser.mjs BASE_URL SCREENSHOT_DIR NODE_MODULES_DIR
// Each check prints "ok NAME" or "FAIL NAME: why"; the last line is
// "N passed, N failed". A missing browser or package is a failure.
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [base, shots, modules] = process.argv.slice(2);
const chromium = process.env.CAROM_CHROMIUM || '/usr/bin/chromium';
let passed = 0, failed = 0;

function check(name, ok, why) {
  if (ok) { passed++; console.log(`ok ${name}`); } else { failed++; console.log(`FAIL ${name}: ${why}`); }
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Polls read() every 250 ms until done(value) or ms have passed; returns the
// last value (a slow machine runs the page slower, never differently).
async function until(read, done, ms) {
  let value = await read();
  for (let waited = 0; !done(value) && waited < ms; waited += 250) {
    await sleep(250);
    value = await read();
  }
  return value;
}

async function openPage(browser, address, errors) {
  const page = await browser.newPage();
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`${address}: console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`${address}: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`${address}: request failed: ${r.url()}`));
  await page.setViewport({ width: 1400, height: 1000 });
  await page.goto(base + address);
  await page.waitForFunction(() => window.carom && window.carom.timing.frames > 20, { timeout: 30000 });
  return page;
}

// A screenshot of the header and the view shown, saved as name.
async function still(page, name) {
  const bottom = await page.evaluate(() => {
    const view = [...document.querySelectorAll('.view')].find((v) => !v.hidden);
    return Math.ceil(view.getBoundingClientRect().bottom + 12);
  });
  await page.screenshot({ path: join(shots, name), clip: { x: 0, y: 0, width: 1400, height: Math.min(bottom, 1000) } });
}

async function canvasHash(page, id) {
  return page.evaluate((canvasId) => {
    const data = document.getElementById(canvasId).toDataURL();
    let h = 0;
    for (let k = 0; k < data.length; k++) h = (h * 31 + data.charCodeAt(k)) | 0;
    return h;
  }, id);
}

// Seed 002's view: the canvas changes, the exact engine's energy stays
// constant to round-off with no overlap, and the frame stepper overlaps
// and misses collisions.
async function testBox(browser, errors) {
  const page = await openPage(browser, '?n=2000&speed=0.3&radius=0.7&dt=0.03#box', errors);
  const first = await canvasHash(page, 'box-exact');
  const shotA = await page.screenshot();
  await sleep(700);
  const second = await canvasHash(page, 'box-exact');
  const shotB = await page.screenshot();
  check('box: the exact canvas changes between two frames', first !== second, 'same pixels twice');
  check('box: the page changes between two screenshots', !Buffer.from(shotA).equals(Buffer.from(shotB)),
    'same screenshot twice');
  let worstDrift = 0, exactOverlaps = 0;
  for (let k = 0; k < 12; k++) {
    const c = await page.evaluate(() => window.carom.views.box.counters());
    worstDrift = Math.max(worstDrift, Math.abs(c.energyExact / c.energyStart - 1));
    exactOverlaps = Math.max(exactOverlaps, c.overlapsExact);
    await sleep(250);
  }
  const c = await page.evaluate(() => window.carom.views.box.counters());
  check('box: the exact engine collides', c.collisionsExact > 1000, `${c.collisionsExact} collisions`);
  check('box: the exact energy is constant to round-off', worstDrift < 1e-12, `|E/E0 - 1| reached ${worstDrift}`);
  check('box: the exact engine never overlaps', exactOverlaps === 0, `${exactOverlaps} overlapping pairs`);
  check('box: the frame stepper reports overlaps', c.overlapsMost > 0, 'no overlap seen');
  check('box: the frame stepper misses collisions', c.missed > 0, 'none missed');
  check('box: the counters show the stepper\'s overlaps',
    (await page.$eval('#box-frame-counters', (t) => t.textContent)).includes(`(${c.overlapsMost})`) ||
    (await page.evaluate(() => window.carom.views.box.counters().overlapsMost)) > c.overlapsMost, 'not shown');
  await still(page, 'page_box.png');
  await page.close();
}

// The other two drawers (WebGL2 instancing, used where there is a GPU, here
// on SwiftShader; one canvas path per colour band) draw too, without errors.
async function testDrawers(browser, errors) {
  for (const kind of ['webgl', 'path']) {
    const page = await openPage(browser, `?draw=${kind}&n=500&speed=0.5#box`, errors);
    const drawer = await page.evaluate(() => window.carom.views.box.exactDrawer.kind);
    // what the page shows (a screenshot of the canvas, decoded in the page):
    // reading a WebGL canvas back directly gives nothing once it is presented
    const coloured = (png) => page.evaluate(async (b64) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const g = Object.assign(document.createElement('canvas'), { width: img.width, height: img.height }).getContext('2d');
      g.drawImage(img, 0, 0);
      const data = g.getImageData(0, 0, img.width, img.height).data;
      let count = 0;
      for (let k = 0; k < data.length; k += 4) count += data[k] < 200 || data[k + 1] < 200 || data[k + 2] < 200;
      return count;
    }, png.toString('base64'));
    const canvas = await page.$('#box-exact');
    const shotA = Buffer.from(await canvas.screenshot());
    await sleep(700);
    const shotB = Buffer.from(await canvas.screenshot());
    const drawn = await coloured(shotA);
    check(`drawer ${kind}: chosen`, drawer === (kind === 'webgl' ? 'webgl2' : 'path'), `got ${drawer}`);
    check(`drawer ${kind}: disks drawn`, drawn > 1000 && drawn < 0.9 * 640 * 400, `${drawn} coloured pixels`);
    check(`drawer ${kind}: the picture changes`, !shotA.equals(shotB), 'the same screenshot twice');
    await page.close();
  }
}

async function steerState(page) { return page.evaluate(() => window.carom.views.steer.counters()); }

async function hold(page, key, ms) {
  await page.keyboard.down(key);
  await sleep(ms);
  await page.keyboard.up(key);
}

// Seed 003's view: keys move the ball; with the filter on it never touches
// the wall under a long adversarial sequence; with it off it does.
async function testSteer(browser, errors) {
  const page = await openPage(browser, '#steer', errors);
  await page.focus('#steer-canvas');
  const start = await steerState(page);
  await hold(page, 'ArrowRight', 400);
  const right = await steerState(page);
  check('steer: ArrowRight moves the ball right', right.x > start.x + 0.01, `x ${start.x} -> ${right.x}`);
  await hold(page, 'ArrowUp', 400);
  const up = await steerState(page);
  check('steer: ArrowUp moves the ball up', up.vy > right.vy, `vy ${right.vy} -> ${up.vy}`);
  const keys = ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'];
  for (const shape of ['0', '1', '2', '3']) {
    await page.select('#steer-shape', shape);
    let seed = 7 + Number(shape);
    for (let k = 0; k < 14; k++) { // straight at the walls and into the corners, ~6 s per shape
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const a = keys[seed % 4], b = keys[(seed >> 8) % 4];
      await page.keyboard.down(a);
      if (b !== a) await page.keyboard.down(b);
      await sleep(250 + (seed >> 16) % 400);
      await page.keyboard.up(a);
      if (b !== a) await page.keyboard.up(b);
    }
    const s = await steerState(page);
    const name = ['box', 'circle', 'rounded box', 'stadium'][Number(shape)];
    check(`steer: filter on, ${name}: the ball moved`, s.time > 1 && Math.hypot(s.x, s.y) > 0.05, `t ${s.time}, at ${s.x}, ${s.y}`);
    check(`steer: filter on, ${name}: no wall hit`, s.wallHits === 0, `${s.wallHits} wall hits`);
    check(`steer: filter on, ${name}: least clearance on the whole path > 0`, s.leastClearance > 0,
      `least clearance ${s.leastClearance}`);
  }
  await still(page, 'page_steer.png');
  await page.click('#steer-on');
  await page.focus('#steer-canvas');
  await page.keyboard.down('ArrowLeft');
  const off = await until(() => steerState(page), (s) => s.wallHits > 0, 20000);
  await page.keyboard.up('ArrowLeft');
  check('steer: filter off: the ball hits the wall', off.wallHits > 0, 'no wall hit');
  await page.close();
}

// Air hockey: the mouse moves the player's mallet, and a goal is scored.
async function testHockey(browser, errors) {
  const page = await openPage(browser, '#hockey', errors);
  const box = await (await page.$('#hockey-canvas')).boundingBox();
  const mallet = () => page.evaluate(() => {
    const v = window.carom.views.hockey, e = v.engine;
    return Array.from(e.floats(e.exports.hockey_bodies(v.view), 9));
  });
  const before = await mallet();
  await page.mouse.move(box.x + 0.12 * box.width, box.y + 0.15 * box.height);
  const moved = (b) => Math.hypot(b[3] - before[3], b[4] - before[4]) > 0.1;
  const after = await until(mallet, moved, 10000);
  check('hockey: the mouse moves the player\'s mallet', moved(after),
    `mallet from ${before.slice(3, 5)} to ${after.slice(3, 5)}`);
  const c = await until(() => page.evaluate(() => window.carom.views.hockey.counters()),
    (v) => v.player + v.agent > 0, 120000);
  check('hockey: a goal is scored', c.player + c.agent > 0, `no goal in ${c.time} s of play`);
  const shown = await page.$eval('#hockey-score', (s) => s.textContent);
  check('hockey: the score is shown', shown === `${c.player} : ${c.agent}` || shown.includes(':'), `shows "${shown}"`);
  await still(page, 'page_hockey.png');
  await page.close();
}

// Seed 002's exact view at 10,000 disks: frame timing (printed, not asserted).
async function measure(browser, errors) {
  const page = await openPage(browser, '?n=10000&stepper=0#box', errors);
  await sleep(6000);
  const m = await page.evaluate(() => ({
    interval: window.carom.timing.intervalMs, work: window.carom.timing.workMs,
    engine: window.carom.views.box.profile.engine, draw: window.carom.views.box.profile.draw,
    rate: window.carom.views.box.collisionsPerSecond, drawer: window.carom.views.box.exactDrawer.kind,
  }));
  console.log(`measure: 10,000 disks, exact view only (${m.drawer}): a frame every ${m.interval.toFixed(1)} ms ` +
    `(${(1000 / m.interval).toFixed(1)} frames/s); engine ${m.engine.toFixed(1)} ms, drawing ${m.draw.toFixed(1)} ms ` +
    `a frame; ${Math.round(m.rate)} collisions per second`);
  await page.close();
}

async function main() {
  check('the browser is installed', existsSync(chromium), `${chromium} is missing (Debian package chromium)`);
  let puppeteer = null;
  try {
    puppeteer = createRequire(join(modules, 'x.js'))('puppeteer-core');
  } catch (error) {
    check('puppeteer-core is installed', false, error.message);
  }
  if (!puppeteer || !existsSync(chromium)) return;
  const profile = mkdtempSync(join(tmpdir(), 'carom-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: chromium, headless: true, userDataDir: profile,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--enable-unsafe-swiftshader'],
  });
  const errors = [];
  try {
    for (const test of [testBox, testDrawers, testSteer, testHockey]) {
      try { await test(browser, errors); } catch (error) { check(test.name, false, error.message); }
    }
    if (process.env.CAROM_BROWSER_MEASURE !== '0') await measure(browser, errors);
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
  check('no console error or failed request on any page', errors.length === 0, errors.join('; '));
}

await main().catch((error) => check('the browser tests ran', false, error.stack));
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
