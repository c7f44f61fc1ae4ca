import assert from 'node:assert/strict';
import { createRangeScheduler, createBlockRangeScheduler, firstShareCapBlocks, INITIAL_RANGE_BYTES, MIN_RANGE_RTTS } from '../src/range-scheduler.js';
import { parseShareHeader, shareOf, shareWeights, splitAll, splitShares } from '../src/first-shares.js';

const KIB = 1024;

/**
 * Drive a scheduler with ideal sources: source i moves rates[i] bytes/s after latencyMs.
 * Returns the accepted ranges and the ranges each source was given.
 * @param {{size: number, rates: number[], latencyMs?: number, stallAfter?: {source: number, atRange: number}}} o
 */
function drive({ size, rates, latencyMs = 50, stallAfter }) {
  const s = createRangeScheduler({ size, sourceCount: rates.length });
  /** @type {Array<{t: number, i: number, range: any, dead?: boolean}>} */
  let running = [];
  const given = rates.map(() => /** @type {any[]} */ ([]));
  const accepted = [];
  const copies = [];
  let now = 0;
  const start = (/** @type {number} */ i) => {
    const r = s.nextRange(i, now);
    if (!r) return;
    given[i].push(r);
    if (r.copy) copies.push({ i, r });
    const dead = stallAfter && stallAfter.source === i && given[i].length > stallAfter.atRange;
    running.push({ t: now + latencyMs + ((r.end - r.start) / rates[i]) * 1000, i, range: r, dead });
  };
  for (let i = 0; i < rates.length; i++) start(i);
  for (let guard = 0; guard < 10_000 && !s.isComplete(); guard++) {
    const live = running.filter((x) => !x.dead);
    const nextDone = live.length ? Math.min(...live.map((x) => x.t)) : Infinity;
    const wake = s.wakeAt();
    const someoneIdle = rates.some((_, i) => !running.some((x) => x.i === i));
    if (wake < nextDone && someoneIdle) {
      assert.ok(wake > now, 'wakeAt lies ahead whenever a source is idle');
      now = wake;
      for (let i = 0; i < rates.length; i++) if (!running.some((x) => x.i === i)) start(i);
      continue;
    }
    const ev = live.find((x) => x.t === nextDone);
    assert.ok(ev, 'a range is always in progress until the object is complete');
    now = ev.t;
    running = running.filter((x) => x !== ev);
    const res = s.onRangeDone(ev.i, ev.range, ev.range.end - ev.range.start, now);
    if (res.accepted) accepted.push(ev.range);
    running = running.filter((x) => !res.cancel.includes(x.i));
    for (let i = 0; i < rates.length; i++) if (!running.some((x) => x.i === i)) start(i);
  }
  return { s, given, accepted, copies, now };
}

/** @param {Array<{start: number, end: number}>} ranges @param {number} size */
function assertExactCover(ranges, size) {
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  let at = 0;
  for (const r of sorted) {
    assert.equal(r.start, at, `gap or overlap at byte ${at}`);
    assert.ok(r.end > r.start, 'empty range');
    at = r.end;
  }
  assert.equal(at, size, 'the ranges end at the object size');
}

describe('range scheduler', () => {
  it('covers the object exactly once, with no gaps or overlaps, for many sizes and mixes', () => {
    for (const size of [1, 1000, 16 * KIB + 1, 1_500_000, 5_000_000]) {
      for (const rates of [[917504], [917504, 917504, 917504, 917504], [1835008, 917504, 917504, 917504], [200_000, 2_000_000]]) {
        const { s, accepted } = drive({ size, rates });
        assert.ok(s.isComplete(), `complete for size ${size}`);
        assertExactCover(accepted, size);
      }
    }
  });

  it('gives the faster source bigger ranges once rates are measured', () => {
    const { given } = drive({ size: 5_000_000, rates: [1835008, 917504] });
    // The first range of both is the unmeasured initial size.
    assert.equal(given[0][0].end - given[0][0].start, INITIAL_RANGE_BYTES);
    assert.equal(given[1][0].end - given[1][0].start, INITIAL_RANGE_BYTES);
    // Once both are measured (the slow one's second range), the fast one's next range is ~2x.
    const slowSecond = given[1][1];
    const fastAfter = given[0].find((/** @type {any} */ r) => r.start > slowSecond.start);
    const len = (/** @type {any} */ r) => r.end - r.start;
    assert.ok(len(fastAfter) > 1.5 * len(slowSecond), `fast ${len(fastAfter)} vs slow ${len(slowSecond)}`);
    const total = (/** @type {number} */ i) => given[i].reduce((/** @type {number} */ a, /** @type {any} */ r) => a + len(r), 0);
    assert.ok(total(0) > 1.6 * total(1), `fast source moved ${total(0)} bytes, slow ${total(1)}`);
  });

  it('estimates rates with the harmonic mean of the measurements', () => {
    const s = createRangeScheduler({ size: 3_000_000, sourceCount: 1 });
    const r1 = s.nextRange(0, 0);
    s.onRangeDone(0, /** @type {any} */ (r1), 100_000, 100); // 1 MB/s
    const r2 = s.nextRange(0, 100);
    s.onRangeDone(0, /** @type {any} */ (r2), 100_000, 600); // 0.2 MB/s
    // harmonic mean of 1e6 and 2e5 = 2 / (1e-6 + 5e-6)
    assert.ok(Math.abs(s.estimate(0) - 2 / (1 / 1e6 + 1 / 2e5)) < 1e-6);
  });

  it('duplicates a straggler\'s range onto an idle source at the tail; the first copy wins', () => {
    // Source 1 stops delivering after its first range (5 MB: initial ranges first), or sends
    // nothing of its first (1.5 MB: split at once): without a copy the download never ends.
    for (const [size, atRange] of [[5_000_000, 1], [1_500_000, 0]]) {
      const { s, accepted, copies } = drive({ size, rates: [917504, 917504, 917504], stallAfter: { source: 1, atRange } });
      assert.ok(s.isComplete());
      assert.ok(copies.length >= 1, 'a tail copy was made');
      assert.ok(copies.every((c) => c.i !== 1), 'copies go to live sources');
      assertExactCover(accepted, size);
    }
  });

  it('does not duplicate when equal sources would only race each other', () => {
    const { copies } = drive({ size: 1_500_000, rates: [917504, 917504, 917504, 917504] });
    assert.equal(copies.length, 0);
  });

  it('shares the last blocks evenly among equal sources a few ms apart: no source a block more by rounding up', () => {
    // 56 blocks over 4 equal sources, asked 1 ms apart (too large to split at once): 4 blocks
    // each, three times, then the last 8 shared, 2 each. Rounding each share up gave the first
    // finisher 3 and left one source a block's time (71 ms at 896 KiB/s) after the rest.
    const s = createBlockRangeScheduler(56, 4);
    /** @type {import('../src/range-scheduler.js').ByteRange[]} */
    let held = [0, 1, 2, 3].map((i) => /** @type {import('../src/range-scheduler.js').ByteRange} */ (s.nextRange(i, i)));
    const sizes = [held.map((r) => r.end - r.start)];
    for (const doneAt of [336, 672, 1008]) { // 4 blocks of 64 KiB at 896 KiB/s, plus a 50 ms round trip
      held = held.map((r, i) => {
        s.onRangeDone(i, r, r.end - r.start, doneAt + i);
        return /** @type {import('../src/range-scheduler.js').ByteRange} */ (s.nextRange(i, doneAt + i));
      });
      sizes.push(held.map((r) => r.end - r.start));
    }
    assert.deepEqual(sizes, [[4, 4, 4, 4], [4, 4, 4, 4], [4, 4, 4, 4], [2, 2, 2, 2]]);
  });

  it('splits a small object at once, by the advertised rates (equal when one is unknown)', () => {
    const sizes = (/** @type {any} */ s) => [0, 1, 2, 3].map((i) => { const r = s.nextRange(i, 0); return r.end - r.start; });
    // 1.5 MiB in 64 KiB blocks over 4 proxies: one request each, not 4 blocks then 2
    assert.deepEqual(sizes(createBlockRangeScheduler(24, 4)), [6, 6, 6, 6]);
    const KIBPS = 1024;
    assert.deepEqual(sizes(createBlockRangeScheduler(24, 4, { priorRates: [1792 * KIBPS, 896 * KIBPS, 896 * KIBPS, 896 * KIBPS] })), [10, 5, 5, 4]);
    assert.deepEqual(sizes(createBlockRangeScheduler(24, 4, { priorRates: [1792 * KIBPS, null, 896 * KIBPS, 896 * KIBPS] })), [6, 6, 6, 6]);
    // an even share above 3 initial ranges (12 blocks): initial ranges first, so rates are measured early
    assert.deepEqual(sizes(createBlockRangeScheduler(56, 4)), [4, 4, 4, 4]);
    // an advertised rate cannot buy a source more than 3 initial ranges at once
    assert.deepEqual(sizes(createBlockRangeScheduler(24, 4, { priorRates: [1e12, 1, 1, 1] })), [12, 1, 1, 1]);
  });

  it('makes a measured source\'s ranges last MIN_RANGE_RTTS request latencies at its rate', () => {
    const rate = 917504; // 896 KiB/s
    for (const minRangeRtts of [MIN_RANGE_RTTS, 0]) {
      const s = createRangeScheduler({ size: 20_000_000, sourceCount: 1, minRangeRtts });
      const r1 = /** @type {any} */ (s.nextRange(0, 0));
      assert.equal(r1.end - r1.start, INITIAL_RANGE_BYTES);
      s.onFirstByte(0, 50); // a 50 ms round trip
      s.onRangeDone(0, r1, r1.end - r1.start, 50 + ((r1.end - r1.start) / rate) * 1000);
      const r2 = /** @type {any} */ (s.nextRange(0, 400));
      const want = minRangeRtts === 0 ? INITIAL_RANGE_BYTES : Math.ceil(rate * 0.05 * MIN_RANGE_RTTS);
      assert.equal(r2.end - r2.start, want, `minRangeRtts ${minRangeRtts}`);
    }
  });

  it('returns a failed source\'s range to the pool', () => {
    const s = createRangeScheduler({ size: 100_000, sourceCount: 2, initialRangeBytes: 15_000 });
    const a = /** @type {any} */ (s.nextRange(0, 0));
    const b = /** @type {any} */ (s.nextRange(1, 0));
    assert.deepEqual([a.start, a.end, b.start, b.end], [0, 15_000, 15_000, 30_000]);
    s.onSourceFailed(0, 10);
    assert.equal(s.nextRange(0, 10), null, 'a failed source gets nothing');
    s.onRangeDone(1, b, 15_000, 50);
    let now = 50;
    const after = [];
    while (!s.isComplete()) {
      const r = /** @type {any} */ (s.nextRange(1, now));
      after.push(r);
      now += 10;
      s.onRangeDone(1, r, r.end - r.start, now);
    }
    assert.equal(after[0].start, 0, 'the failed range is handed out again, first');
    assertExactCover([b, ...after], 100_000);
    assert.equal(s.isStuck(), false);
  });

  it('ignores a done for a range the source does not hold (late or cancelled copy)', () => {
    const s = createRangeScheduler({ size: 1000, sourceCount: 2 });
    const r = /** @type {any} */ (s.nextRange(0, 0));
    assert.deepEqual(s.onRangeDone(1, r, 1000, 5), { accepted: false, cancel: [] });
    assert.deepEqual(s.onRangeDone(0, { start: 0, end: 10 }, 10, 5), { accepted: false, cancel: [] });
    assert.equal(s.isComplete(), false);
  });

  it('refuses bad arguments with codes', () => {
    assert.throws(() => createRangeScheduler({ size: -1, sourceCount: 1 }), { code: 'ERR_INVALID_ARG' });
    assert.throws(() => createRangeScheduler({ size: 10, sourceCount: 0 }), { code: 'ERR_INVALID_ARG' });
    const s = createRangeScheduler({ size: 10, sourceCount: 1 });
    assert.throws(() => s.nextRange(3, 0), { code: 'ERR_UNKNOWN_SOURCE' });
    s.nextRange(0, 0);
    assert.throws(() => s.nextRange(0, 0), { code: 'ERR_SOURCE_BUSY' });
  });

  it('is complete at once for an empty object', () => {
    const s = createRangeScheduler({ size: 0, sourceCount: 2 });
    assert.equal(s.isComplete(), true);
    assert.equal(s.nextRange(0, 0), null);
  });
});

describe('first shares', () => {
  it('cut the units from 0 by weight, each at most the cap, the last ones cut to what is left', () => {
    assert.deepEqual(splitShares(16, [2, 1, 1], 6), [6, 4, 4]);
    assert.deepEqual(splitShares(24, [1, 1, 1, 1], 12), [6, 6, 6, 6]);
    assert.deepEqual(splitShares(3, [1, 1, 1, 1], 12), [1, 1, 1, 0], 'fewer units than sources');
    assert.deepEqual(shareOf(16, [2, 1, 1], 6, 2), { start: 10, end: 14 });
    assert.deepEqual(shareOf(3, [1, 1, 1, 1], 12, 3), { start: 3, end: 3 });
  });

  it('weigh by the advertised rates in KiB/s, equally when any is unknown', () => {
    assert.deepEqual(shareWeights([1835008, 917504, 917504]), [1792, 896, 896]);
    assert.deepEqual(shareWeights([1835008, null, 917504]), [1, 1, 1]);
    assert.deepEqual(shareWeights([100, 917504]), [1, 896], 'at least 1');
  });

  it('read a share header strictly', () => {
    assert.deepEqual(parseShareHeader('3-7'), { start: 3, end: 7 });
    assert.deepEqual(parseShareHeader('4-4'), { start: 4, end: 4 });
    for (const bad of [null, '', '7-3', '-1-2', '1-2-3', 'a-b', '1234567890-1234567891']) assert.equal(parseShareHeader(bad), null, String(bad));
  });

  it('a split the client alone makes hands every unit out: rounding\'s remainder to the shares furthest below their part', () => {
    assert.deepEqual(splitAll(9, [1, 1, 1, 1], 12), [3, 2, 2, 2], 'splitShares leaves the ninth for later');
    assert.deepEqual(splitAll(5, [1, 1, 1, 1], 12), [2, 1, 1, 1]);
    assert.deepEqual(splitAll(11, [1, 1, 1, 1], 12), [3, 3, 3, 2], 'as splitShares when it hands out all');
    assert.deepEqual(splitAll(3, [1, 1, 1, 1], 12), [1, 1, 1, 0], 'fewer units than sources');
    assert.deepEqual(splitAll(16, [2, 1, 1], 6), [6, 4, 4], 'the cap still leaves units for later: not piled on slower sources');
    for (const [units, weights] of /** @type {[number, number[]][]} */ ([[9, [3, 1, 1, 1]], [13, [5, 2, 2]], [30, [1, 1, 1, 1, 1, 1, 1]]])) {
      const shares = splitAll(units, weights, 12);
      assert.equal(shares.reduce((a, b) => a + b, 0), units, `${units} on ${weights}: ${shares}`);
    }
  });

  it('the block scheduler splits a small object whole at once: no block waits for a request in series', () => {
    // a ~500 KB byte range spans 9 blocks; 4 equal sources each ask once and nothing is left
    const s = createBlockRangeScheduler(9, 4);
    const got = [0, 1, 2, 3].map((i) => { const r = s.nextRange(i, 0); return r && [r.start, r.end]; });
    assert.deepEqual(got, [[0, 3], [3, 5], [5, 7], [7, 9]]);
    s.onRangeDone(1, { start: 3, end: 5 }, 2, 10);
    assert.equal(s.nextRange(1, 10), null, 'nothing left but copies, and none would end sooner');
    const w = createBlockRangeScheduler(16, 3, { priorRates: [2, 1, 1] });
    assert.deepEqual([0, 1, 2].map((i) => { const r = w.nextRange(i, 0); return r && r.end - r.start; }), splitAll(16, [2, 1, 1], firstShareCapBlocks()));
  });

  it('a share asked before the size was known is assigned as the source\'s range; taken or busy, refused', () => {
    const s = createBlockRangeScheduler(40, 3);
    assert.equal(s.assign(1, { start: 12, end: 24 }, 0), true);
    assert.equal(s.assign(1, { start: 24, end: 30 }, 0), false, 'busy');
    assert.equal(s.assign(2, { start: 20, end: 26 }, 0), false, 'part of it is taken');
    assert.equal(s.assign(2, { start: 24, end: 24 }, 0), false, 'empty');
    // the others are handed what is left around it, in order
    const r0 = s.nextRange(0, 0);
    assert.deepEqual([r0?.start, r0?.end], [0, 4]);
    assert.deepEqual(s.onRangeDone(1, { start: 12, end: 24 }, 12, 100), { accepted: true, cancel: [] });
    // a share its source did not send goes back to the pool, and the source stays live
    assert.equal(s.assign(2, { start: 24, end: 36 }, 0), true);
    s.release(2);
    const r2 = s.nextRange(2, 10);
    assert.ok(r2 && !r2.copy && r2.start === 4, JSON.stringify(r2));
    s.onRangeDone(0, /** @type {any} */ (r0), 4, 100);
    s.onRangeDone(2, r2, 4, 100);
    const seen = [];
    for (let k = 0; k < 20 && !s.isComplete(); k++) {
      for (const i of [0, 1, 2]) {
        const r = s.nextRange(i, 200 + k);
        if (r) { seen.push([r.start, r.end]); s.onRangeDone(i, r, r.end - r.start, 300 + k); }
      }
    }
    assert.ok(s.isComplete(), 'the released share was fetched again');
    assert.ok(seen.some(([a, b]) => a <= 24 && b >= 25), 'block 24 handed out again');
  });
});
