// draw.js — draws thousands of disks in one call, straight from the
// engine's memory: WebGL2 instancing (one quad per disk, the circle cut out
// in the fragment shader), or, where WebGL2 is missing, one canvas path per
// colour band. A disk is 4 floats (x, y, radius, colour): colour in [0, 2]
// runs blue → green → yellow; a negative colour is red (an overlap).

const VERTEX = `#version 300 es
in vec2 corner;
in vec4 disk;
uniform vec2 scale;
out vec2 local;
out float shade;
void main() {
  local = corner;
  shade = disk.w;
  gl_Position = vec4((disk.xy + corner * disk.z) * scale, 0.0, 1.0);
}`;

const FRAGMENT = `#version 300 es
precision mediump float;
in vec2 local;
in float shade;
out vec4 colour;
vec3 ramp(float t) {
  t = clamp(t, 0.0, 1.0);
  vec3 low = mix(vec3(0.16, 0.33, 0.75), vec3(0.13, 0.70, 0.55), smoothstep(0.0, 0.5, t));
  return mix(low, vec3(0.98, 0.78, 0.15), smoothstep(0.5, 1.0, t));
}
void main() {
  float d = dot(local, local);
  if (d > 1.0) discard;
  vec3 c = shade < 0.0 ? vec3(0.86, 0.10, 0.10) : ramp(0.5 * shade);
  colour = vec4(c * (1.0 - 0.3 * smoothstep(0.55, 1.0, d)), 1.0);
}`;

// The same ramp for the canvas path (8 bands).
const BANDS = 8;
function bandColour(band) {
  if (band < 0) return 'rgb(219,26,26)';
  const t = (band + 0.5) / BANDS;
  const smooth = (a, b, x) => { const u = Math.min(Math.max((x - a) / (b - a), 0), 1); return u * u * (3 - 2 * u); };
  const mix = (p, q, u) => p.map((v, i) => v + (q[i] - v) * u);
  const low = mix([0.16, 0.33, 0.75], [0.13, 0.70, 0.55], smooth(0, 0.5, t));
  const c = mix(low, [0.98, 0.78, 0.15], smooth(0.5, 1, t));
  return `rgb(${c.map((v) => Math.round(255 * v)).join(',')})`;
}

function compile(gl, type, source) {
  const shader = gl.createShader(type);
  gl.shaderSource(shader, source);
  gl.compileShader(shader);
  if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(shader));
  return shader;
}

class GlDisks {
  constructor(canvas, gl) {
    this.gl = gl;
    const program = gl.createProgram();
    gl.attachShader(program, compile(gl, gl.VERTEX_SHADER, VERTEX));
    gl.attachShader(program, compile(gl, gl.FRAGMENT_SHADER, FRAGMENT));
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(program));
    this.program = program;
    this.scale = gl.getUniformLocation(program, 'scale');
    this.vao = gl.createVertexArray();
    gl.bindVertexArray(this.vao);
    const corners = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, corners);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 1, -1, -1, 1, 1, 1]), gl.STATIC_DRAW);
    const corner = gl.getAttribLocation(program, 'corner');
    gl.enableVertexAttribArray(corner);
    gl.vertexAttribPointer(corner, 2, gl.FLOAT, false, 0, 0);
    this.disks = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, this.disks);
    const disk = gl.getAttribLocation(program, 'disk');
    gl.enableVertexAttribArray(disk);
    gl.vertexAttribPointer(disk, 4, gl.FLOAT, false, 0, 0);
    gl.vertexAttribDivisor(disk, 1);
  }

  draw(disks, count, width, height) {
    const gl = this.gl;
    gl.viewport(0, 0, gl.drawingBufferWidth, gl.drawingBufferHeight);
    gl.clearColor(1, 1, 1, 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    gl.useProgram(this.program);
    gl.bindVertexArray(this.vao);
    gl.uniform2f(this.scale, 2 / width, 2 / height);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.disks);
    gl.bufferData(gl.ARRAY_BUFFER, disks, gl.STREAM_DRAW);
    gl.drawArraysInstanced(gl.TRIANGLE_STRIP, 0, 4, count);
  }
}

class PathDisks {
  constructor(canvas) {
    this.canvas = canvas;
    this.context = canvas.getContext('2d');
  }

  draw(disks, count, width, height) {
    const c = this.context, w = this.canvas.width, h = this.canvas.height;
    c.fillStyle = '#fff';
    c.fillRect(0, 0, w, h);
    const sx = w / width, sy = h / height;
    if (!this.bands || this.bands.length < count) this.bands = new Int8Array(count);
    for (let k = 0; k < count; k++) {
      const shade = disks[4 * k + 3];
      this.bands[k] = shade < 0 ? -1 : Math.min(BANDS - 1, Math.floor(0.5 * shade * BANDS));
    }
    for (let band = -1; band < BANDS; band++) {
      c.beginPath();
      for (let k = 0; k < count; k++) {
        if (this.bands[k] !== band) continue;
        const x = (disks[4 * k] + 0.5 * width) * sx, y = (0.5 * height - disks[4 * k + 1]) * sy;
        const r = disks[4 * k + 2] * sx;
        c.moveTo(x + r, y);
        c.arc(x, y, r, 0, 2 * Math.PI);
      }
      c.fillStyle = bandColour(band);
      c.fill();
    }
  }
}

// Pixels painted by the engine (web/src/paint.c) put on the canvas in one
// call, straight from wasm memory.
class PixelDisks {
  constructor(canvas) {
    this.canvas = canvas;
    this.context = canvas.getContext('2d');
  }

  put(memory, pointer) {
    const w = this.canvas.width, h = this.canvas.height;
    const pixels = new Uint8ClampedArray(memory.buffer, pointer, 4 * w * h);
    this.context.putImageData(new ImageData(pixels, w, h), 0, 0);
  }
}

// Whether WebGL2 runs on a GPU here: a software rasteriser (SwiftShader,
// llvmpipe: headless browsers, machines without a GPU) draws the instanced
// quads slower than the canvas path, so the page takes the path there.
function hardwareWebgl2() {
  const gl = document.createElement('canvas').getContext('webgl2');
  if (!gl) return false;
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  const renderer = info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : '';
  gl.getExtension('WEBGL_lose_context')?.loseContext();
  return !/swiftshader|llvmpipe|software/i.test(renderer);
}

// A drawer for canvas: WebGL2 on a GPU; without one, pixels painted by the
// engine (web/src/paint.c), which a software compositor takes fastest. The
// page's ?draw=webgl, ?draw=path (one canvas path per colour band) or
// ?draw=pixels overrides. .kind says which.
export function diskDrawer(canvas) {
  const wanted = new URLSearchParams(location.search).get('draw');
  const webgl = wanted === 'webgl' || (!wanted && hardwareWebgl2());
  const gl = webgl ? canvas.getContext('webgl2', { antialias: true }) : null;
  let drawer;
  if (gl) drawer = Object.assign(new GlDisks(canvas, gl), { kind: 'webgl2' });
  else if (wanted === 'path') drawer = Object.assign(new PathDisks(canvas), { kind: 'path' });
  else drawer = Object.assign(new PixelDisks(canvas), { kind: 'pixels' });
  return drawer;
}
