// Parses the testbed's proxy fleet description, e.g. "14x896KiB,4x1792KiB" (per second).
// KiB = 1024 bytes: the paper's "896 KB/s" is 896 × 1024 B/s (shaping/README.md).

const UNIT_BYTES = /** @type {const} */ ({ B: 1, KB: 1000, KiB: 1024, MB: 1e6, MiB: 1024 ** 2 });
const BITS_PER_BYTE = 8;
const UNIT_BITS = /** @type {const} */ ({ bit: 1, kbit: 1000, Kbit: 1000, mbit: 1e6, Mbit: 1e6 });
const MAX_PROXIES = 64; // one bridge, one /24 and two cores: more is a configuration mistake
const MIN_RATE_BPS = 1000; // below 1 KB/s htb cannot shape usefully (shaping/shape refuses too)

/**
 * A rate like "896KiB", "1.5MiB" or "7Mbit" → bytes per second.
 * @param {string} text
 * @returns {number}
 */
export function parseRate(text) {
  const m = /^(\d+(?:\.\d+)?)(B|KB|KiB|MB|MiB|bit|kbit|Kbit|mbit|Mbit)(?:\/s)?$/.exec(String(text).trim());
  if (!m) throw Object.assign(new Error(`bad rate "${text}" (e.g. 896KiB, 1792KiB, 7Mbit)`), { code: 'ERR_BAD_RATE' });
  const n = Number(m[1]);
  const unit = m[2];
  const bps = unit in UNIT_BYTES ? n * UNIT_BYTES[/** @type {keyof typeof UNIT_BYTES} */ (unit)] : (n * UNIT_BITS[/** @type {keyof typeof UNIT_BITS} */ (unit)]) / BITS_PER_BYTE;
  if (!(bps >= MIN_RATE_BPS)) throw Object.assign(new Error(`rate "${text}" is below 1 KB/s`), { code: 'ERR_BAD_RATE' });
  return Math.round(bps);
}

/**
 * "14x896KiB,4x1792KiB" → [{text: '896KiB', bps: 917504}, … 18 entries].
 * @param {string} text
 * @returns {{text: string, bps: number}[]}
 */
export function parseRates(text) {
  const out = [];
  for (const part of String(text).split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^(?:(\d+)x)?(.+)$/.exec(part);
    const count = m?.[1] === undefined ? 1 : Number(m[1]);
    if (!m || !Number.isInteger(count) || count < 1) throw Object.assign(new Error(`bad rate group "${part}" (e.g. 4x896KiB)`), { code: 'ERR_BAD_RATE' });
    const bps = parseRate(m[2]);
    for (let i = 0; i < count; i++) out.push({ text: m[2], bps });
  }
  if (out.length === 0) throw Object.assign(new Error('no proxies: give --rates like 4x896KiB'), { code: 'ERR_BAD_RATE' });
  if (out.length > MAX_PROXIES) throw Object.assign(new Error(`at most ${MAX_PROXIES} proxies, got ${out.length}`), { code: 'ERR_BAD_RATE' });
  return out;
}

/** @param {number} bps  bytes per second → "896 KiB/s" */
export function formatRate(bps) {
  return `${Math.round(bps / 1024)} KiB/s`;
}
