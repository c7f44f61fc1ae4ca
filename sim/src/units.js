// Parse the CLI's human units. Rates are per second. Decimal prefixes (KB, MB, kbit,
// Mbit) are powers of 1000, binary ones (KiB, MiB, Kibit) powers of 1024, as in IEC 80000-13.

/** Bytes per unit, for sizes and byte rates. */
const BYTE_UNITS = {
  '': 1, B: 1,
  KB: 1e3, kB: 1e3, MB: 1e6, GB: 1e9,
  KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3,
};
/** Bytes per unit for bit rates (8 bits per byte). */
const BIT_UNITS = {
  bit: 1 / 8, kbit: 1e3 / 8, Kbit: 1e3 / 8, Mbit: 1e6 / 8, Gbit: 1e9 / 8,
  Kibit: 1024 / 8, Mibit: 1024 ** 2 / 8,
};

/**
 * @param {string} message
 * @returns {Error & {code: string}}
 */
export function badInput(message) {
  const err = /** @type {Error & {code: string}} */ (new Error(message));
  err.code = 'ERR_SIM_BAD_INPUT';
  return err;
}

const QUANTITY = /^([0-9]+(?:\.[0-9]+)?(?:e[0-9]+)?)([A-Za-z]*)(?:\/s)?$/;

/**
 * Parse a size like `1.5MB`, `64KiB` or `1000` into whole bytes.
 * @param {string} text
 * @returns {number}
 */
export function parseSize(text) {
  const m = QUANTITY.exec(String(text).trim());
  const unit = m && /** @type {Record<string, number>} */ (BYTE_UNITS)[m[2]];
  if (!m || unit === undefined) throw badInput(`bad size '${text}' (examples: 1500, 1.5MB, 64KiB)`);
  const bytes = Math.round(Number(m[1]) * unit);
  if (!Number.isSafeInteger(bytes)) throw badInput(`size '${text}' is too large`);
  return bytes;
}

/**
 * Parse a rate like `896KiB`, `7Mbit` or `1.2MB/s` into bytes per second.
 * @param {string} text
 * @returns {number}
 */
export function parseRate(text) {
  const m = QUANTITY.exec(String(text).trim());
  if (!m) throw badInput(`bad rate '${text}' (examples: 896KiB, 7Mbit, 1.5MB)`);
  const unit = /** @type {Record<string, number>} */ (BYTE_UNITS)[m[2]] ?? /** @type {Record<string, number>} */ (BIT_UNITS)[m[2]];
  if (unit === undefined || m[2] === '') throw badInput(`bad rate '${text}': give a unit (B, KiB, MB, kbit, Mbit, ...)`);
  const bps = Number(m[1]) * unit;
  if (!(bps > 0) || !Number.isFinite(bps)) throw badInput(`rate '${text}' must be positive`);
  return bps;
}

/**
 * Parse a rate mix like `4x896KiB,1x1792KiB` (or `+` as separator) into one rate per source.
 * @param {string} text
 * @returns {number[]} bytes per second, one entry per source
 */
export function parseRates(text) {
  const parts = String(text).split(/[,+]/).map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0) throw badInput(`bad --rates '${text}' (example: 4x896KiB,1x1792KiB)`);
  /** @type {number[]} */
  const rates = [];
  for (const part of parts) {
    const m = /^([0-9]+)x(.+)$/.exec(part);
    const count = m ? Number(m[1]) : 1;
    if (!Number.isInteger(count) || count < 1 || count > 1000) throw badInput(`bad source count in '${part}'`);
    const rate = parseRate(m ? m[2] : part);
    for (let k = 0; k < count; k++) rates.push(rate);
  }
  return rates;
}

/**
 * Human form of a byte rate, in KiB/s (the paper's unit).
 * @param {number} bps
 */
export function formatKiBps(bps) {
  return `${(bps / 1024).toFixed(0)} KiB/s`;
}
