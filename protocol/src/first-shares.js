// First shares (sans-IO): how a Range-split HTTP download's first ranges are cut, said once for the
// client's scheduler and the proxy. A client that does not know the object's size yet asks each
// proxy for its digest list and, in the same request, for "share i of these weights": the proxy,
// which knows the size, cuts the same shares and sends its list in the head and its share as the
// body. The ranges then need no round trip of their own after the lists.
import { BLOCK_BYTES } from './integrity/block-digests.js';

/** The response header naming the blocks a share response carries: `a-b` (blocks [a, b), object block indices). */
export const SHARE_HEADER = 'X-MUTP-Share';

/** The largest weight a share request may give (a rate in KiB/s, or 1s for equal shares). */
export const MAX_SHARE_WEIGHT = 1_000_000_000;

/** The largest share cap a proxy accepts (blocks): 1 GiB of 64 KiB blocks, the largest object. */
export const MAX_SHARE_CAP_BLOCKS = 16_384;

/**
 * Cut `units` into contiguous shares from unit 0, one per weight: each its part of `units` by
 * weight, rounded, at least 1 and at most `cap`; the last ones cut so they add up to at most
 * `units` (what is left is scheduled as usual).
 * @param {number} units  whole units (blocks, or bytes) to share
 * @param {number[]} weights  positive, one per source
 * @param {number} cap  the largest share (units)
 * @returns {number[]} units per source
 */
export function splitShares(units, weights, cap) {
  const total = weights.reduce((a, w) => a + w, 0);
  let left = units;
  return weights.map((w) => {
    const mine = Math.min(left, cap, Math.max(1, Math.round((units * w) / total)));
    left -= mine;
    return mine;
  });
}

/**
 * splitShares for a split the client alone makes (no proxy cuts it): the units its rounding
 * leaves over go out at once too, one each to the shares furthest below their part by weight
 * (the first of equal ones) that are under `cap`. 9 blocks on 4 equal sources: 2, 2, 2, 2 and a
 * ninth for a request in series there, 3, 2, 2, 2 here. What the cap leaves is scheduled as usual.
 * @param {number} units @param {number[]} weights  positive, one per source @param {number} cap
 * @returns {number[]} units per source
 */
export function splitAll(units, weights, cap) {
  const shares = splitShares(units, weights, cap);
  const total = weights.reduce((a, w) => a + w, 0);
  const owed = weights.map((w, i) => (units * w) / total - shares[i]);
  let left = units - shares.reduce((a, s) => a + s, 0);
  const order = owed.map((_, i) => i).sort((a, b) => owed[b] - owed[a] || a - b);
  for (const i of order) {
    if (left === 0 || owed[i] <= 0) break;
    if (shares[i] < cap) {
      shares[i] += 1;
      left -= 1;
    }
  }
  return shares;
}

/**
 * Source i's share of `units`: [start, end) (empty when start === end).
 * @param {number} units @param {number[]} weights @param {number} cap @param {number} i
 * @returns {{start: number, end: number}}
 */
export function shareOf(units, weights, cap, i) {
  const shares = splitShares(units, weights, cap);
  let start = 0;
  for (let k = 0; k < i; k++) start += shares[k];
  return { start, end: start + shares[i] };
}

/**
 * The bytes of blocks [start, end) of an object of `objectBytes` (64 KiB blocks, the last one
 * short): {start, end} with end exclusive; empty (start === end) for an empty share.
 * @param {{start: number, end: number}} blocks @param {number} objectBytes
 */
export function shareBytes(blocks, objectBytes) {
  const start = blocks.start * BLOCK_BYTES;
  return { start, end: Math.max(start, Math.min(blocks.end * BLOCK_BYTES, objectBytes)) };
}

/**
 * Weights for a share request from the sources' advertised rates (bytes/s): KiB/s, at least 1;
 * equal (all 1) when any rate is unknown.
 * @param {Array<number | null | undefined>} rates
 * @returns {number[]}
 */
export function shareWeights(rates) {
  const known = rates.every((r) => typeof r === 'number' && Number.isFinite(r) && r > 0);
  return rates.map((r) => (known ? Math.min(MAX_SHARE_WEIGHT, Math.max(1, Math.round(/** @type {number} */ (r) / 1024))) : 1));
}

/**
 * The blocks a share response says it carries (SHARE_HEADER `a-b`), checked; null when absent or malformed.
 * @param {string | null} header
 * @returns {{start: number, end: number} | null}
 */
export function parseShareHeader(header) {
  const m = header ? /^(\d{1,9})-(\d{1,9})$/.exec(header.trim()) : null;
  if (!m) return null;
  const start = Number(m[1]);
  const end = Number(m[2]);
  return start <= end ? { start, end } : null;
}
