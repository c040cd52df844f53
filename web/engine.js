// engine.js — loads carom.wasm (the C engine built by scripts/web.sh) and
// gives the page and the tests typed views of its memory. The module is a
// WASI reactor whose library never prints or exits; the three WASI calls
// it links (fd_write, fd_seek, fd_close, from wasi-libc's stdio) are
// answered with "bad file descriptor", and any other import is refused.

const WASI_EBADF = 8;

function wasiImports() {
  const refuse = () => WASI_EBADF;
  return new Proxy({}, { get: () => refuse });
}

export class Engine {
  constructor(instance) {
    this.exports = instance.exports;
    this.memory = instance.exports.memory;
    if (this.exports._initialize) this.exports._initialize();
  }

  // bytes: an ArrayBuffer or typed array holding carom.wasm.
  static async fromBytes(bytes) {
    const { instance } = await WebAssembly.instantiate(bytes, { wasi_snapshot_preview1: wasiImports() });
    return new Engine(instance);
  }

  static async fromUrl(url) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    return Engine.fromBytes(await response.arrayBuffer());
  }

  // Views are made afresh on every call: the memory's buffer is replaced
  // whenever the heap grows.
  floats(pointer, count) { return new Float32Array(this.memory.buffer, pointer, count); }
  doubles(pointer, count) { return new Float64Array(this.memory.buffer, pointer, count); }
  bytes(pointer, count) { return new Uint8Array(this.memory.buffer, pointer, count); }

  string(pointer) {
    const all = new Uint8Array(this.memory.buffer);
    let end = pointer;
    while (end < all.length && all[end] !== 0) end++;
    return new TextDecoder().decode(all.subarray(pointer, end));
  }
}
