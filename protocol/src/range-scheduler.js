// Range-split HTTP scheduler (sans-IO): splits one object of `size` bytes into byte ranges
// and hands each source its next range, sized by that source's measured rate.
//
// Rate estimate: MSPlayer's harmonic mean of per-range measurements (Chen et al., eq. 2),
//   w = bytes / (done time - request time), so the request RTT is part of the measurement.
// Range size: MSPlayer Algorithm 1 generalised to N sources: before a source has a
//   measurement it gets INITIAL_RANGE_BYTES; the slowest measured source doubles/halves its
//   size when its last measurement leaves the ±delta band; every other source gets
//   (its rate / the slowest rate) × the slowest source's size. We use the plain ratio, not
//   its ceiling: with N > 2 nearly-equal sources the ceiling doubles ranges for no reason.
//   Near the end a range is clamped to the source's rate-proportional share of what is left,
//   so all sources finish together.
//   Two changes against MSPlayer's fixed request cost, which at RTT 50 ms and 896 KiB/s left a
//   source idle 50 ms before each 286 ms range (0.85 of its link):
//   - a source whose request latency is known (onFirstByte) gets ranges of at least
//     MIN_RANGE_RTTS latencies at its rate, so the idle round trip costs it ≤ 1/(1+MIN_RANGE_RTTS);
//   - a small object (an even share ≤ FIRST_RANGE_MAX_INITIALS initial ranges) is split at once
//     into shares by the sources' advertised rates (priorRates, equal when unknown): one request
//     per source, where initial ranges needed a second round trip for the last bytes.
// Tail: once no unassigned bytes remain, an idle source gets a copy of an outstanding range
//   if it would finish it earlier than the holder is expected to, or the holder is a
//   straggler (STRAGGLER_SLACK past its predicted duration; wakeAt() says when to look again).
//   The first copy to complete wins; onRangeDone returns the sources to cancel.
//
// Usage (the caller owns sockets and clock; `now` in ms):
//   const s = createRangeScheduler({ size, sourceCount });
//   const r = s.nextRange(i, now);      // {start, end, copy} (end exclusive) or null
//   s.assign(i, r, requestedAt);        // or: a range source i was asked for before (a first share)
//   s.onFirstByte(i, now);            // optional: keeps request latency apart from the rate
//   ... on the last byte of r from source i:
//   const { accepted, cancel } = s.onRangeDone(i, r, byteCount, now);
//   s.onSourceFailed(i, now);           // its range goes back to the pool
//   s.release(i);                       // so does an assigned range source i will not send; i stays live
//   s.wakeAt();                         // when an idle source should ask again (ms) or Infinity
//   s.isComplete();

import { BLOCK_BYTES } from './integrity/block-digests.js';
import { splitAll } from './first-shares.js';

const KIB = 1024;
/** MSPlayer's default initial chunk size, 256 KB (their Section 5 picked it over 1 MB). */
export const INITIAL_RANGE_BYTES = 256 * KIB;
/** MSPlayer Algorithm 1 floor on halving: 16 KB; below it request overhead dominates. */
export const MIN_RANGE_BYTES = 16 * KIB;
/** MSPlayer's throughput variation band delta (fraction); 0.2 is a mid value of their sweep. */
export const RATE_BAND = 0.2;
/**
 * A source with a known request latency gets ranges lasting at least this many latencies at its
 * rate (count): the idle round trip before each range then costs ≤ 1/17 of its time, where
 * MSPlayer's 256 KB ranges at 896 KiB/s and RTT 50 ms cost 0.15 (testbed: Range-split HTTP's
 * 8 MiB downloads ran at 0.83 of their links with 256 KiB ranges, 0.92 with 1 MiB ones).
 */
export const MIN_RANGE_RTTS = 16;
/**
 * A small object goes out at once, in one share per source, when an even share is at most this
 * many initial ranges (count), and no share is larger: a 1.5 MiB segment on 4 proxies then takes
 * one request each, not a 256 KiB range and a second round trip for the last 128 KiB. Larger
 * objects start with initial ranges, so a source's first measurement comes early. The cap also
 * bounds what a source that advertised a rate it does not have holds before the tail copies it.
 * 3, not 2: on the testbed (1×1792 + 3×896 KiB/s, RTT 50 ms, 1.5 MiB) the fast proxy's share is
 * 10 blocks; held to 8 the downloads ran at 2989 KiB/s (median), at 3600 with 12.
 */
export const FIRST_RANGE_MAX_INITIALS = 3;
/** A holder running this fraction past its predicted duration is a straggler: copy its range. */
export const STRAGGLER_SLACK = 0.25;
/** At most this many sources fetch the same range at once (original + one tail copy). */
export const MAX_COPIES = 2;

/**
 * @typedef {object} ByteRange
 * @property {number} start  first byte offset
 * @property {number} end    one past the last byte (exclusive)
 * @property {boolean} copy  true when this is a tail duplicate of a range another source holds
 */

/**
 * @typedef {object} RangeSchedulerOptions
 * @property {number} size                 object size in bytes (>= 0)
 * @property {number} sourceCount          number of sources (>= 1)
 * @property {number} [initialRangeBytes]  range size before a source has a measurement
 * @property {number} [minRangeBytes]      smallest range handed out (unless less is left)
 * @property {number} [rateBand]           delta of MSPlayer Algorithm 1
 * @property {number} [maxCopies]          sources that may hold the same range
 * @property {number} [minRangeRtts]       ranges last at least this many request latencies (MIN_RANGE_RTTS; 0: off)
 * @property {Array<number | null>} [priorRates]  each source's advertised rate (bytes/s; null: unknown), for the
 *                                         first ranges' shares only: equal shares when any is unknown
 */

/**
 * @param {number} value
 * @param {string} name
 * @param {number} min
 */
function checkInteger(value, name, min) {
  if (!Number.isInteger(value) || value < min) {
    const err = new RangeError(`${name} must be an integer >= ${min}, got ${value}`);
    /** @type {any} */ (err).code = 'ERR_INVALID_ARG';
    throw err;
  }
}

/**
 * Each source's first range when the object is small enough to split at once, an even share of
 * it at most FIRST_RANGE_MAX_INITIALS initial ranges (null: it is not): shares of `size` by the
 * advertised rates (equal when any is unknown), each at least 1 and at most that cap, every unit
 * handed out unless the cap leaves some (those go out as usual). A source asked for its first
 * share with its digest list (the proxy cut it) is assigned that instead.
 * @param {number} size @param {number} sourceCount @param {number} initialRangeBytes
 * @param {Array<number | null> | undefined} priorRates
 * @returns {number[] | null}
 */
function firstRangeShares(size, sourceCount, initialRangeBytes, priorRates) {
  const cap = FIRST_RANGE_MAX_INITIALS * initialRangeBytes;
  if (size / sourceCount > cap) return null;
  const known = priorRates?.length === sourceCount && priorRates.every((r) => typeof r === 'number' && Number.isFinite(r) && r > 0);
  return splitAll(size, known ? /** @type {number[]} */ (priorRates) : new Array(sourceCount).fill(1), cap);
}

/**
 * Create a range scheduler for one object.
 * @param {RangeSchedulerOptions} options
 */
export function createRangeScheduler(options) {
  const { size, sourceCount } = options;
  checkInteger(size, 'size', 0);
  checkInteger(sourceCount, 'sourceCount', 1);
  const initialRangeBytes = options.initialRangeBytes ?? INITIAL_RANGE_BYTES;
  const minRangeBytes = options.minRangeBytes ?? MIN_RANGE_BYTES;
  const rateBand = options.rateBand ?? RATE_BAND;
  const maxCopies = options.maxCopies ?? MAX_COPIES;
  const minRangeRtts = options.minRangeRtts ?? MIN_RANGE_RTTS;
  checkInteger(initialRangeBytes, 'initialRangeBytes', 1);
  checkInteger(minRangeBytes, 'minRangeBytes', 1);
  checkInteger(maxCopies, 'maxCopies', 1);
  checkInteger(minRangeRtts, 'minRangeRtts', 0);
  const firstShares = firstRangeShares(size, sourceCount, initialRangeBytes, options.priorRates);

  /** Unassigned byte intervals, sorted by start, disjoint. @type {Array<[number, number]>} */
  const pending = size > 0 ? [[0, size]] : [];
  /** Completed intervals (not merged), for coverage checks. @type {Array<[number, number]>} */
  const done = [];
  let doneBytes = 0;

  /**
   * @typedef {object} Outstanding
   * @property {number} start
   * @property {number} end
   * @property {Map<number, number>} holders  source index -> request time (ms)
   */
  /** @type {Set<Outstanding>} */
  const outstanding = new Set();

  const sources = Array.from({ length: sourceCount }, () => ({
    /** @type {Outstanding | null} */ current: null,
    failed: false,
    measurements: 0,
    /** harmonic-mean rate, bytes/s; 0 = no measurement yet */ estimate: 0,
    /** the size this source was last given, bytes */ lastSize: 0,
    /** smallest request -> first byte time seen, ms (0 until onFirstByte is used) */ latencyMs: 0,
    /** when the current range's first byte arrived, ms (NaN: not reported) */ firstByteAt: NaN,
  }));

  /** @param {number} i */
  function source(i) {
    if (!Number.isInteger(i) || i < 0 || i >= sourceCount) {
      const err = new RangeError(`no source ${i}`);
      /** @type {any} */ (err).code = 'ERR_UNKNOWN_SOURCE';
      throw err;
    }
    return sources[i];
  }

  function pendingBytes() {
    let n = 0;
    for (const [a, b] of pending) n += b - a;
    return n;
  }

  /** The slowest measured, live source (null when none is measured). */
  function slowest() {
    let best = null;
    for (const s of sources) if (!s.failed && s.estimate > 0 && (!best || s.estimate < best.estimate)) best = s;
    return best;
  }

  /** @param {number} i  Size for source i's next range, before clamping to what is left. */
  function rangeSizeFor(i) {
    const s = sources[i];
    if (s.estimate === 0) return initialRangeBytes;
    // a range's transfer lasts minRangeRtts request latencies at least
    const floor = Math.max(minRangeBytes, Math.ceil((s.estimate * s.latencyMs * minRangeRtts) / 1000));
    const slow = slowest();
    if (!slow || slow === s) return Math.max(floor, s.lastSize || initialRangeBytes);
    return Math.max(floor, Math.round((s.estimate / slow.estimate) * (slow.lastSize || initialRangeBytes)));
  }

  /**
   * Source i's share of the unassigned bytes: water-fill a common finish time T over the live
   * sources, each busy until its current range is expected to end, so all end together.
   * @param {number} i
   * @param {number} now
   */
  function tailShare(i, now) {
    const left = pendingBytes();
    const live = sources.filter((s) => !s.failed);
    const known = live.filter((s) => s.estimate > 0);
    if (sources[i].estimate === 0 || known.length === 0) return left;
    // Sources with no measurement yet are counted at the mean of the measured ones.
    const meanRate = known.reduce((a, s) => a + s.estimate, 0) / known.length;
    const lanes = live.map((s) => {
      const rate = s.estimate || meanRate;
      const o = s.current;
      const free = o ? Math.max(now, expectedFinishOf(o, sources.indexOf(s))) : now;
      return { rate, free: free + s.latencyMs };
    });
    lanes.sort((a, b) => a.free - b.free);
    // Find T with sum over lanes of rate * (T - free)+ = left (rates in bytes/s, times in ms).
    let rateSum = 0;
    let weighted = 0; // sum of rate * free
    let finish = Infinity;
    for (let k = 0; k < lanes.length; k++) {
      rateSum += lanes[k].rate;
      weighted += lanes[k].rate * lanes[k].free;
      const t = (left * 1000 + weighted) / rateSum;
      if (k + 1 === lanes.length || t <= lanes[k + 1].free) {
        finish = t;
        break;
      }
    }
    const mine = sources[i];
    // to the nearest unit: rounding up handed the first of equal sources to ask a unit more
    // (a whole 64 KiB block in the block scheduler), and the download ended that much later
    return Math.round((mine.estimate * Math.max(0, finish - now - mine.latencyMs)) / 1000);
  }

  /**
   * Expected completion time of an outstanding range for holder h (ms).
   * @param {Outstanding} o
   * @param {number} h
   */
  function expectedFinish(o, h) {
    const s = sources[h];
    const requestedAt = /** @type {number} */ (o.holders.get(h));
    const rate = rateOf(s);
    return rate > 0 ? requestedAt + s.latencyMs + ((o.end - o.start) / rate) * 1000 : Infinity;
  }

  /**
   * A source's rate for predictions: its estimate, or the mean of the measured live sources.
   * @param {{estimate: number}} s
   */
  function rateOf(s) {
    if (s.estimate > 0) return s.estimate;
    let sum = 0;
    let count = 0;
    for (const x of sources) if (!x.failed && x.estimate > 0) { sum += x.estimate; count++; }
    return count ? sum / count : 0;
  }
  const expectedFinishOf = expectedFinish;

  /** @param {Outstanding} o */
  function earliestFinish(o) {
    let t = Infinity;
    for (const h of o.holders.keys()) t = Math.min(t, expectedFinish(o, h));
    return t;
  }

  /**
   * When the range counts as late: every holder is STRAGGLER_SLACK past its prediction.
   * @param {Outstanding} o
   */
  function deadline(o) {
    let t = Infinity;
    for (const [h, requestedAt] of o.holders) {
      t = Math.min(t, requestedAt + (1 + STRAGGLER_SLACK) * (expectedFinish(o, h) - requestedAt));
    }
    return t;
  }

  /**
   * Next range for source i, or null when it should stay idle (see wakeAt()).
   * @param {number} i
   * @param {number} now
   * @returns {ByteRange | null}
   */
  function nextRange(i, now) {
    const s = source(i);
    if (s.failed) return null;
    if (s.current) {
      const err = new Error(`source ${i} already holds a range`);
      /** @type {any} */ (err).code = 'ERR_SOURCE_BUSY';
      throw err;
    }
    if (pending.length > 0) {
      const wholeShare = s.lastSize === 0 && s.estimate === 0 && firstShares !== null && firstShares[i] > 0;
      const want = wholeShare ? firstShares[i] : Math.max(1, Math.min(rangeSizeFor(i), Math.max(minRangeBytes, tailShare(i, now))));
      const first = pending[0];
      const start = first[0];
      const end = Math.min(first[1], start + want);
      if (end === first[1]) pending.shift();
      else first[0] = end;
      /** @type {Outstanding} */
      const o = { start, end, holders: new Map([[i, now]]) };
      outstanding.add(o);
      s.current = o;
      s.lastSize = end - start;
      return { start, end, copy: false };
    }
    // Tail: copy a straggler's range (the most overdue first), else the range expected to
    // finish last if this source would finish it sooner.
    let pick = null;
    let late = Infinity;
    let pickFinish = -Infinity;
    for (const o of outstanding) {
      if (o.holders.size >= maxCopies || o.holders.has(i)) continue;
      const d = deadline(o);
      if (now >= d && d < late) {
        pick = o;
        late = d;
      }
    }
    if (!pick) {
      for (const o of outstanding) {
        if (o.holders.size >= maxCopies || o.holders.has(i)) continue;
        const f = earliestFinish(o);
        if (f > pickFinish) {
          pick = o;
          pickFinish = f;
        }
      }
      if (!pick) return null;
      const mine = s.estimate > 0 ? now + s.latencyMs + ((pick.end - pick.start) / s.estimate) * 1000 : Infinity;
      if (!(mine < pickFinish)) return null;
    }
    pick.holders.set(i, now);
    s.current = pick;
    return { start: pick.start, end: pick.end, copy: true };
  }

  /**
   * Give source i a range it was asked for before the scheduler existed (a first share, asked
   * with the digest lists before the size was known): taken out of the unassigned bytes as
   * nextRange would hand it out. Refused (false) when the source is failed or busy, or any of
   * the range is not unassigned (another source took it meanwhile).
   * @param {number} i
   * @param {{start: number, end: number}} range  end exclusive
   * @param {number} requestedAt  when source i was asked for it (ms)
   * @returns {boolean}
   */
  function assign(i, range, requestedAt) {
    const s = source(i);
    const { start, end } = range;
    if (s.failed || s.current || !Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end <= start) return false;
    const k = pending.findIndex(([a, b]) => a <= start && end <= b);
    if (k < 0) return false;
    const [a, b] = pending[k];
    pending.splice(k, 1, ...(/** @type {Array<[number, number]>} */ ([[a, start], [end, b]]).filter(([x, y]) => y > x)));
    /** @type {Outstanding} */
    const o = { start, end, holders: new Map([[i, requestedAt]]) };
    outstanding.add(o);
    s.current = o;
    s.lastSize = end - start;
    return true;
  }

  /**
   * Source i delivered the last byte of `range`. The first copy of a range wins.
   * @param {number} i
   * @param {{start: number, end: number}} range
   * @param {number} bytes  bytes this source transferred for the range (for the rate estimate)
   * @param {number} now
   * @returns {{accepted: boolean, cancel: number[]}}  cancel: other sources fetching the same range
   */
  function onRangeDone(i, range, bytes, now) {
    const s = source(i);
    const o = s.current;
    if (!o || o.start !== range.start || o.end !== range.end) return { accepted: false, cancel: [] };
    const requestedAt = /** @type {number} */ (o.holders.get(i));
    s.current = null;
    // With first-byte reports the rate excludes the request latency (estimated apart);
    // without them it is MSPlayer's bytes / (done - request), latency included.
    const from = Number.isNaN(s.firstByteAt) ? requestedAt : s.firstByteAt;
    s.firstByteAt = NaN;
    const elapsedMs = now - from;
    if (bytes > 0 && elapsedMs > 0) {
      const w = (bytes * 1000) / elapsedMs;
      const before = s.estimate;
      // MSPlayer eq. 2: running harmonic mean without keeping the history.
      const n = s.measurements;
      s.estimate = n === 0 ? w : (n + 1) / (n / before + 1 / w);
      s.measurements += 1;
      // Algorithm 1 for the slowest source: double or halve on a measurement outside the band.
      if (before > 0 && slowest() === s) {
        if (w > (1 + rateBand) * before) s.lastSize *= 2;
        else if (w < (1 - rateBand) * before) s.lastSize = Math.max(minRangeBytes, Math.ceil(s.lastSize / 2));
      }
    }
    const cancel = [];
    for (const h of o.holders.keys()) {
      if (h === i) continue;
      cancel.push(h);
      sources[h].current = null;
      sources[h].firstByteAt = NaN;
    }
    outstanding.delete(o);
    done.push([o.start, o.end]);
    doneBytes += o.end - o.start;
    return { accepted: true, cancel };
  }

  /**
   * Optional: the first byte of source i's current range arrived. Lets the scheduler keep the
   * request latency apart from the rate, so small tail ranges are predicted well.
   * @param {number} i
   * @param {number} now
   */
  function onFirstByte(i, now) {
    const s = source(i);
    const o = s.current;
    if (!o || !Number.isNaN(s.firstByteAt)) return;
    s.firstByteAt = now;
    const latency = now - /** @type {number} */ (o.holders.get(i));
    s.latencyMs = s.latencyMs === 0 ? latency : Math.min(s.latencyMs, latency);
  }

  /**
   * Source i is gone (error, closed). Its range returns to the pool unless another copy runs.
   * @param {number} i
   * @param {number} _now
   */
  function onSourceFailed(i, _now) {
    source(i).failed = true;
    release(i);
  }

  /**
   * Source i no longer fetches its current range (an assigned share it did not send, or it
   * failed): the range returns to the pool unless another copy runs. The source stays live.
   * @param {number} i
   */
  function release(i) {
    const s = source(i);
    s.firstByteAt = NaN;
    const o = s.current;
    s.current = null;
    if (!o) return;
    o.holders.delete(i);
    if (o.holders.size > 0) return;
    outstanding.delete(o);
    let k = 0;
    while (k < pending.length && pending[k][0] < o.start) k++;
    pending.splice(k, 0, [o.start, o.end]);
  }

  /** Time (ms) at which a source that got null should ask again: when a range turns late. */
  function wakeAt() {
    let t = Infinity;
    for (const o of outstanding) if (o.holders.size < maxCopies) t = Math.min(t, deadline(o));
    return t;
  }

  return {
    nextRange,
    assign,
    onFirstByte,
    onRangeDone,
    onSourceFailed,
    release,
    wakeAt,
    /** True once every byte has been delivered by some source. */
    isComplete: () => doneBytes === size,
    /** True when every source has failed and bytes are still missing. */
    isStuck: () => doneBytes < size && sources.every((s) => s.failed),
    /** Completed ranges, in completion order: [[start, end), ...]. */
    completedRanges: () => done.map(([a, b]) => [a, b]),
    /** Harmonic-mean rate estimate of source i in bytes/s (0 before its first range). */
    estimate: (/** @type {number} */ i) => source(i).estimate,
  };
}

/**
 * The largest first share (blocks) of the block scheduler: FIRST_RANGE_MAX_INITIALS initial
 * ranges. A client asking for first shares before the size is known caps them so.
 * @param {number} [initialRangeBytes]
 */
export function firstShareCapBlocks(initialRangeBytes = INITIAL_RANGE_BYTES) {
  return FIRST_RANGE_MAX_INITIALS * Math.max(1, Math.ceil(initialRangeBytes / BLOCK_BYTES));
}

/**
 * The range scheduler as the live client runs it: in whole digest blocks (BLOCK_BYTES), so each range's
 * blocks are verified as they come. Byte sizes in `options` are rounded up to whole blocks, at least one.
 * @param {number} blocks  blocks of the part of the object to fetch
 * @param {number} sourceCount
 * @param {Partial<RangeSchedulerOptions>} [options]  sizes in bytes
 */
export function createBlockRangeScheduler(blocks, sourceCount, options = {}) {
  const toBlocks = (/** @type {number} */ bytes) => Math.max(1, Math.ceil(bytes / BLOCK_BYTES));
  return createRangeScheduler({
    ...options, size: blocks, sourceCount,
    initialRangeBytes: toBlocks(options.initialRangeBytes ?? INITIAL_RANGE_BYTES), minRangeBytes: toBlocks(options.minRangeBytes ?? MIN_RANGE_BYTES),
  });
}
