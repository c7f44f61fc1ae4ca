// The simulator's command-line errors; sizes and rates are read by @mutp/common/units.
import { codedError } from '@mutp/common/errors';
import { parseByteSize, parseRate as parseRateUnits, parseRateMix } from '@mutp/common/units';

const BAD_INPUT = { code: 'ERR_SIM_BAD_INPUT' };

/**
 * @param {string} message
 * @returns {Error & {code: string}}
 */
export function badInput(message) {
  return codedError(BAD_INPUT.code, message);
}

/**
 * A size like `1.5MB`, `64KiB` or `1000` → whole bytes.
 * @param {string} text
 * @returns {number}
 */
export function parseSize(text) {
  return parseByteSize(text, BAD_INPUT);
}

/**
 * A rate like `896KiB`, `7Mbit` or `1.2MB/s` → bytes per second.
 * @param {string} text
 * @returns {number}
 */
export function parseRate(text) {
  return parseRateUnits(text, BAD_INPUT);
}

/**
 * A rate mix like `4x896KiB,1x1792KiB` (or `+` as separator) → one rate per source.
 * @param {string} text
 * @returns {number[]} bytes per second, one entry per source
 */
export function parseRates(text) {
  return parseRateMix(text, BAD_INPUT).map((r) => r.bps);
}

/**
 * Source i's value of a setting given for all sources or per source (the list repeats cyclically).
 * @template T
 * @param {T | T[]} v
 * @param {number} i
 * @returns {T}
 */
export const perSource = (v, i) => (Array.isArray(v) ? v[i % v.length] : v);
