// The testbed's proxy fleet description, e.g. "14x896KiB,4x1792KiB" (per second), in the
// units of @mutp/common/units, with the testbed's own limits.
import { codedError } from '@mutp/common/errors';
import { formatKiBps, parseRateMix, parseRate as parseRateUnits } from '@mutp/common/units';

const BAD_RATE = { code: 'ERR_BAD_RATE' };
const MAX_PROXIES = 64; // one bridge, one /24 and two cores: more is a configuration mistake
const MIN_RATE_BPS = 1000; // below 1 KB/s htb cannot shape usefully (shaping/shape refuses too)

/**
 * A rate like "896KiB", "1.5MiB" or "7Mbit" → whole bytes per second, at least 1 KB/s.
 * @param {string} text
 * @returns {number}
 */
export function parseRate(text) {
  const bps = Math.round(parseRateUnits(text, BAD_RATE));
  if (!(bps >= MIN_RATE_BPS)) throw codedError(BAD_RATE.code, `rate "${text}" is below 1 KB/s`);
  return bps;
}

/**
 * "14x896KiB,4x1792KiB" → [{text: '896KiB', bps: 917504}, … 18 entries].
 * @param {string} text
 * @returns {{text: string, bps: number}[]}
 */
export function parseRates(text) {
  const out = parseRateMix(text, BAD_RATE).map((r) => ({ text: r.text, bps: parseRate(r.text) }));
  if (out.length > MAX_PROXIES) throw codedError(BAD_RATE.code, `at most ${MAX_PROXIES} proxies, got ${out.length}`);
  return out;
}

/** @param {number} bps  bytes per second → "896 KiB/s" */
export const formatRate = formatKiBps;
