// Input mutators: byte-level (for the binary wire format and raw HTTP text) and structure-aware
// (for JSON bodies), all driven by the deterministic PRNG.

/** Values that tend to break parsers: boundaries, wrong types, huge and odd strings. */
const INTERESTING_NUMBERS = [0, -1, 1, 255, 256, 65535, 65536, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53, -(2 ** 53), 1e308, -1e-308, 0.5];
const INTERESTING_BYTES = [0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff];
const MAX_GROWTH_BYTES = 4096; // one mutation adds at most this much: inputs stay small, runs stay fast

/** @param {import('./prng.js').Rng} rng */
function interestingValue(rng) {
  switch (rng.int(12)) {
    case 0: return null;
    case 1: return rng.pick(INTERESTING_NUMBERS);
    case 2: return '';
    case 3: return 'x'.repeat(rng.pick([1, 64, 129, 2049, 8193, 70_000]));
    case 4: return [];
    case 5: return {};
    case 6: return true;
    case 7: return '__proto__';
    case 8: return { constructor: { prototype: { polluted: 1 } } };
    case 9: return '\u0000\ud800\uffff%00%ff../../etc/passwd';
    case 10: { let v = []; for (let i = 0; i < rng.pick([10, 100, 1000]); i++) v = [v]; return v; }
    default: return rng.bytes(rng.int(16)).toString('latin1');
  }
}

/**
 * One byte-level mutation.
 * @param {Buffer} input @param {import('./prng.js').Rng} rng @param {Buffer[]} corpus for splicing
 */
export function mutateBytes(input, rng, corpus) {
  const b = Buffer.from(input);
  const at = () => rng.int(b.length + 1);
  switch (rng.int(9)) {
    case 0: if (b.length) { const i = rng.int(b.length); b[i] ^= 1 << rng.int(8); } return b;
    case 1: if (b.length) b[rng.int(b.length)] = rng.u32() & 0xff; return b;
    case 2: if (b.length) b[rng.int(b.length)] = rng.pick(INTERESTING_BYTES); return b;
    case 3: { const i = at(); return Buffer.concat([b.subarray(0, i), rng.bytes(1 + rng.int(16)), b.subarray(i)]); }
    case 4: { const i = at(); const n = rng.int(Math.max(1, b.length - i)); return Buffer.concat([b.subarray(0, i), b.subarray(i + n)]); }
    case 5: return b.subarray(0, at()); // truncate
    case 6: { const i = at(); const n = Math.min(MAX_GROWTH_BYTES, rng.int(b.length - i + 1)); return Buffer.concat([b.subarray(0, i + n), b.subarray(i, i + n), b.subarray(i + n)]); }
    case 7: { const other = rng.pick(corpus); const j = rng.int(other.length + 1); return Buffer.concat([b.subarray(0, at()), other.subarray(j)]); }
    default: { // overwrite a 16/32-bit field with a boundary value, big-endian as on the wire
      if (b.length < 4) return b;
      const i = rng.int(b.length - 3);
      b.writeUInt32BE(rng.pick([0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xffff, 0x10000]) >>> 0, i);
      return b;
    }
  }
}

/**
 * One structure-aware mutation of a JSON value (replace, delete or add at a random node).
 * @param {unknown} value @param {import('./prng.js').Rng} rng
 * @returns {unknown}
 */
export function mutateJson(value, rng) {
  if (value === null || typeof value !== 'object' || rng.chance(0.15)) return interestingValue(rng);
  const copy = Array.isArray(value) ? [...value] : { ...value };
  const keys = Object.keys(copy);
  const op = rng.int(4);
  if (keys.length === 0 || op === 0) {
    const key = Array.isArray(copy) ? copy.length : rng.pick(['x', 'id', 'type', '__proto__', 'constructor', 'sdp', 'proxyId']);
    copy[key] = interestingValue(rng);
  } else if (op === 1) {
    const k = rng.pick(keys);
    if (Array.isArray(copy)) copy.splice(Number(k), 1);
    else delete copy[k];
  } else {
    const k = rng.pick(keys);
    copy[k] = mutateJson(copy[k], rng);
  }
  return copy;
}

/**
 * A mutated JSON text: mostly structure-aware, sometimes byte-level (broken JSON).
 * @param {Buffer} seedText @param {import('./prng.js').Rng} rng @param {Buffer[]} corpus
 */
export function mutateJsonText(seedText, rng, corpus) {
  let parsed;
  try { parsed = JSON.parse(seedText.toString('utf8')); } catch { parsed = undefined; }
  if (parsed === undefined || rng.chance(0.2)) return mutateBytes(seedText, rng, corpus);
  let v = parsed;
  for (let i = 1 + rng.int(3); i > 0; i--) v = mutateJson(v, rng);
  return Buffer.from(JSON.stringify(v) ?? 'null');
}
