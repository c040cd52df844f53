// input.js — the player's keys and pointer, shared by the steering and the
// air-hockey views.

// Arrow keys and WASD as directions (x right, y up).
export const KEYS = {
  ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1],
  KeyA: [-1, 0], KeyD: [1, 0], KeyW: [0, 1], KeyS: [0, -1],
};

// The set of direction keys held while view is the one shown (cleared when
// the window loses focus).
export function heldKeys(page, view) {
  const held = new Set();
  const key = (event, down) => {
    if (!page.showing(view) || !(event.code in KEYS)) return;
    event.preventDefault();
    if (down) held.add(event.code);
    else held.delete(event.code);
  };
  addEventListener('keydown', (event) => key(event, true));
  addEventListener('keyup', (event) => key(event, false));
  addEventListener('blur', () => held.clear());
  return held;
}

// The sum of the held keys' directions.
export function keyDirection(held) {
  let x = 0, y = 0;
  for (const code of held) { x += KEYS[code][0]; y += KEYS[code][1]; }
  return [x, y];
}

// A pointer event's place in world units: the canvas's centre is the
// origin, scale pixels a unit, y up.
export function pointerToWorld(canvas, event, scale) {
  const r = canvas.getBoundingClientRect();
  const px = (event.clientX - r.left) * canvas.width / r.width;
  const py = (event.clientY - r.top) * canvas.height / r.height;
  return [(px - canvas.width / 2) / scale, (canvas.height / 2 - py) / scale];
}
