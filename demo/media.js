// Deterministic test media: the same name always yields the same bytes, so a download can be
// checked byte-exact (sha256) without shipping binary files.

export const MAX_DEMO_BYTES = 64 * 1024 * 1024; // 64 MiB: larger than any video chunk; bounds the demo's memory
const UNITS = /** @type {const} */ ({ B: 1, KB: 1024, MB: 1024 * 1024 });

/**
 * Size in bytes named by a demo path, e.g. "/media/demo-5MB.bin" → 5242880; null when not a demo name.
 * @param {string} pathname
 */
export function demoSize(pathname) {
  const m = /^\/media\/demo-(\d{1,6})(B|KB|MB)\.bin$/.exec(pathname);
  if (!m) return null;
  const size = Number(m[1]) * UNITS[/** @type {'B'|'KB'|'MB'} */ (m[2])];
  return size <= MAX_DEMO_BYTES ? size : null;
}

/**
 * The bytes of a demo object: a xorshift32 stream seeded by the size (cheap, and not a
 * repeating pattern that would hide offset bugs at period boundaries).
 * @param {number} size
 */
export function demoBytes(size) {
  const out = new Uint8Array(size);
  const words = new Uint32Array(out.buffer, 0, size >>> 2);
  let x = (size ^ 0x9e3779b9) >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    words[i] = x;
  }
  for (let i = words.length * 4; i < size; i++) {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}
