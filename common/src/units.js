// Sizes and rates in one vocabulary, for every command line and configuration. Units are
// case-insensitive ("mb" is MB); a rate may end in "/s":
//   bytes: B (or no unit), KB/MB/GB = 10^3/10^6/10^9 B, KiB/MiB/GiB = 2^10/2^20/2^30 B
//   bits:  bit, kbit/Mbit/Gbit = 10^3/10^6/10^9 bit, Kibit/Mibit/Gibit = 2^10/2^20/2^30 bit
// Because case does not matter, "b" is always a byte; bits are spelled "bit". The paper's
// "896 KB/s" is 896 KiB/s. shaping/shape (bash) reads the same vocabulary; a test compares them.
import { codedError } from './errors.js';

const BITS_PER_BYTE = 8;
/** Bytes per unit, keyed by the lower-case unit. */
const BYTE_UNITS = Object.freeze({
  '': 1, b: 1,
  kb: 1e3, mb: 1e6, gb: 1e9,
  kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30,
});
/** Bits per unit, keyed by the lower-case unit. */
const BIT_UNITS = Object.freeze({
  bit: 1, kbit: 1e3, mbit: 1e6, gbit: 1e9,
  kibit: 2 ** 10, mibit: 2 ** 20, gibit: 2 ** 30,
});
const QUANTITY = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*(\/s)?\s*$/i;
const EXAMPLES = 'e.g. 1000, 1.5MB, 896KiB, 7Mbit';

/**
 * "896KiB/s" → {bytes: 917504, bits: false, perSecond: true}; null when it is not a quantity.
 * @param {string} text
 * @returns {{bytes: number, bits: boolean, perSecond: boolean} | null}
 */
export function parseQuantity(text) {
  const m = QUANTITY.exec(String(text));
  if (!m) return null;
  const unit = m[2].toLowerCase();
  const n = Number(m[1]);
  if (Object.hasOwn(BYTE_UNITS, unit)) return { bytes: n * BYTE_UNITS[/** @type {keyof typeof BYTE_UNITS} */ (unit)], bits: false, perSecond: m[3] !== undefined };
  if (Object.hasOwn(BIT_UNITS, unit)) return { bytes: (n * BIT_UNITS[/** @type {keyof typeof BIT_UNITS} */ (unit)]) / BITS_PER_BYTE, bits: true, perSecond: m[3] !== undefined };
  return null;
}

/**
 * A size ("64MiB", "1.5MB", "1000", or a number of bytes) → whole bytes, rounded.
 * @param {string | number} text
 * @param {{code?: string}} [opts]  the error code callers expect (default ERR_BAD_SIZE)
 * @returns {number}
 */
export function parseByteSize(text, { code = 'ERR_BAD_SIZE' } = {}) {
  const q = typeof text === 'number' ? { bytes: text, bits: false } : parseQuantity(text);
  const bytes = q && !q.bits ? Math.round(q.bytes) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw codedError(code, `bad size '${text}' (${EXAMPLES.replace(', 7Mbit', '')})`);
  return bytes;
}

/**
 * A rate ("896KiB", "7Mbit", "1.5MB/s", "1000") → bytes per second, > 0 (not rounded: 1bit is 0.125).
 * @param {string | number} text
 * @param {{code?: string}} [opts]  the error code callers expect (default ERR_BAD_RATE)
 * @returns {number}
 */
export function parseRate(text, { code = 'ERR_BAD_RATE' } = {}) {
  const q = typeof text === 'number' ? { bytes: text } : parseQuantity(text);
  if (!q || !(q.bytes > 0) || !Number.isFinite(q.bytes)) throw codedError(code, `bad rate '${text}' (${EXAMPLES}; per second)`);
  return q.bytes;
}

/**
 * A rate mix "4x896KiB,1x1792KiB" ("+" separates too) → one {text, bps} per source, in order.
 * @param {string} text
 * @param {{code?: string, maxSources?: number}} [opts]
 * @returns {{text: string, bps: number}[]}
 */
export function parseRateMix(text, { code = 'ERR_BAD_RATE', maxSources = 1000 } = {}) {
  /** @type {{text: string, bps: number}[]} */
  const out = [];
  for (const part of String(text).split(/[,+]/).map((p) => p.trim()).filter(Boolean)) {
    const m = /^(?:(\d+)x)?(.+)$/.exec(part);
    const count = m?.[1] === undefined ? 1 : Number(m[1]);
    if (!m || !Number.isInteger(count) || count < 1 || out.length + count > maxSources) {
      throw codedError(code, `bad rate group '${part}' (e.g. 4x896KiB; at most ${maxSources} sources)`);
    }
    const bps = parseRate(m[2], { code });
    for (let k = 0; k < count; k++) out.push({ text: m[2], bps });
  }
  if (out.length === 0) throw codedError(code, `no rates in '${text}' (e.g. 4x896KiB,1x1792KiB)`);
  return out;
}

/**
 * Human form of a byte rate in KiB/s (the paper's unit), e.g. "896 KiB/s".
 * @param {number} bps
 */
export function formatKiBps(bps) {
  return `${Math.round(bps / 1024)} KiB/s`;
}
