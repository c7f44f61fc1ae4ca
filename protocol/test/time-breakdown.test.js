import assert from 'node:assert/strict';
import { computeTimeBreakdown, TIME_BREAKDOWN_PARTS } from '../index.js';

const BYTES = 1000; // payload bytes per packet in every synthetic log

/**
 * A record from per-source packet times; `nonUseful(source, k)` marks packets that added nothing.
 * @param {number[][]} times per source, ms
 * @param {{durationMs: number, nonUseful?: (i: number, k: number) => boolean, generationSize?: number}} o
 */
function record(times, { durationMs, nonUseful = () => false, generationSize = 24 }) {
  /** @type {Array<[number, number, number, number]>} */
  const packetLog = [];
  times.forEach((ts, i) => ts.forEach((t, k) => packetLog.push([t, i, nonUseful(i, k) ? 0 : 1, 0])));
  packetLog.sort((a, b) => a[0] - b[0]);
  let dof = 0;
  for (const e of packetLog) e[3] = dof += e[2];
  const perProxy = times.map((ts) => ({ bytes: ts.length * BYTES, packets: ts.length }));
  const gross = packetLog.length * BYTES;
  return {
    mode: 'coded', n: times.length, durationMs, firstPacketMs: packetLog[0][0], grossBytes: gross, netBytes: dof * BYTES,
    params: { generationSize, payloadSize: BYTES }, perProxy, packetLog,
  };
}
/** @param {number} from @param {number} count @param {number} step */
const every = (from, count, step = 1) => Array.from({ length: count }, (_, k) => from + k * step);
/** @param {any} b */
const partsSum = (b) => TIME_BREAKDOWN_PARTS.reduce((a, k) => a + (b[k] ?? 0), 0);
/** @param {number} actual @param {number} expected @param {string} what */
const near = (actual, expected, what, tol = 0.6) => assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual}, expected ${expected}`);

describe('computeTimeBreakdown', () => {
  it('steady sources: the request, then the useful bytes at Σ rates, nothing lost', () => {
    // two sources at 1 packet/ms each (1000 B/ms), first packets at 50 and 50.5 ms, 200 packets each
    const b = computeTimeBreakdown(record([every(50, 200), every(50.5, 200)], { durationMs: 250 }));
    assert.equal(b.method, 'packets');
    assert.equal(b.requestMs, 50);
    assert.equal(b.steadyRateBps, 2_000_000);
    assert.deepEqual(b.perSource?.map((s) => s.steadyRateBps), [1_000_000, 1_000_000]);
    near(b.transferMs, 200, 'transfer: 400 packets × 1000 B / 2000 B/ms');
    near(/** @type {number} */ (b.rampMs), 0, 'ramp');
    near(/** @type {number} */ (b.tailMs), 0, 'tail');
    assert.equal(b.nonUsefulMs, 0);
    // the last 24 useful packets (g) are the tail: useful packet #376 of 400 arrived at 50 + 375 × 0.5
    assert.equal(b.tailStartMs, 237.5);
    assert.equal(b.inflightHeldMs, null);
    near(partsSum(b), 250, 'sum of the parts');
  });

  it('a shaper\'s token-bucket burst at the start does not set the steady rate: no stall is invented', () => {
    // 1 packet/ms from 50 ms for 400 ms, plus 10 extra packets in the first 10 ms (htb's burst after idle time)
    const ts = [...every(50, 10, 0.5), ...every(55, 395)].sort((a, b) => a - b);
    const b = computeTimeBreakdown(record([ts], { durationMs: 450 }));
    // the spans' quantile leaves the burst out; the rate is floored at what the source delivered
    // over its steady phase (405 packets in 400 ms), so the burst shows as no stall, positive or negative
    const rate = /** @type {number} */ (b.perSource?.[0].steadyRateBps);
    assert.ok(rate >= 1_000_000 && rate <= 1_015_000, `steady rate ${rate}`);
    const stall = /** @type {number} */ (b.stallMs);
    assert.ok(stall >= 0 && stall <= 1, `stall ${stall}`);
    near(partsSum(b), 450, 'sum of the parts');
  });

  it('a source that starts at 10 packets per 50 ms bin and doubles: ramp ends at the first 100 ms span at ≥ 90% of its steady rate', () => {
    // bins of 50 ms from 100 ms: 10, 20, 40 packets, then 50 per bin (1 packet/ms) until 600 ms
    const ts = [...every(100, 10, 5), ...every(150, 20, 2.5), ...every(200, 40, 1.25), ...every(250, 350)];
    const b = computeTimeBreakdown(record([ts], { durationMs: 600 }));
    const s = b.perSource?.[0];
    assert.equal(s?.steadyRateBps, 1_000_000);
    assert.equal(s?.firstPacketMs, 100);
    assert.equal(s?.rampEndMs, 200); // [200, 300) holds 40 + 50 = 90 packets of the steady 100
    assert.equal(b.rampMs, 70); // 100 ms of ramp carried 30 packets = 30 ms at the steady rate
    assert.equal(b.stallMs, 10); // the third bin's 10 missing packets, after the ramp's end
    assert.equal(b.requestMs, 100);
    assert.equal(b.transferMs, 420);
    near(/** @type {number} */ (b.tailMs), 0, 'tail');
    near(partsSum(b), 600, 'sum of the parts');
  });

  it('non-useful packets before the tail count as their time at the steady rate; those in the tail belong to the tail', () => {
    // 1 packet/ms from 20 ms, every 10th packet a duplicate; 300 packets, 270 useful
    const b = computeTimeBreakdown(record([every(20, 300)], { durationMs: 320, nonUseful: (_i, k) => k % 10 === 9 }));
    assert.equal(b.tailStartMs, 292); // useful packet #246 of 270 (k = 245 + 27)
    assert.equal(b.nonUsefulMs, 27); // duplicates at k = 9, 19, …, 269
    assert.equal(b.tailMs, 3); // 28 ms from the tail start, 25 useful packets in it
    assert.equal(b.transferMs, 270);
    assert.equal(b.perSource?.[0].nonUsefulPackets, 30);
    near(partsSum(b), 320, 'sum of the parts');
  });

  it('a slow tail: the last generation\'s packets straggling in shows as tail time', () => {
    // 200 packets at 1/ms from 10 ms, then the last 10 useful ones every 10 ms from 300; done at 400
    const b = computeTimeBreakdown(record([[...every(10, 200), ...every(300, 10, 10)]], { durationMs: 400 }));
    assert.equal(b.tailStartMs, 195); // useful packet #186 of 210
    assert.equal(b.tailMs, 180); // 205 ms of tail carried 25 packets = 25 ms at the steady rate
    near(partsSum(b), 400, 'sum of the parts');
  });

  it('a late source and an idle gap the proxy reported as held by its in-flight cap', () => {
    // source 0: 1/ms from 10 ms; source 1 starts 50 ms later and is silent for 40 ms mid-way, 30 ms of it held by the cap
    const s1 = [...every(60.5, 100), ...every(200.5, 120)];
    const b = computeTimeBreakdown(record([every(10, 300), s1], { durationMs: 330 }), [0, 30]);
    near(/** @type {number} */ (b.sourceStartMs), 25, 'late start (50 ms × half the capacity)');
    near(/** @type {number} */ (b.inflightHeldMs), 15, 'held (30 ms × half the capacity)');
    near(/** @type {number} */ (b.stallMs), 5, 'the rest of the gap (10 ms × half)', 1);
    assert.equal(b.perSource?.[1].heldMs, 30);
    near(partsSum(b), 330, 'sum of the parts');
  });

  it('parts always add up to the duration, on a random log', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const times = [0, 1, 2, 3].map((i) => {
      let t = 40 + i * 7;
      return Array.from({ length: 300 }, () => (t += rnd() * 3));
    });
    const b = computeTimeBreakdown(record(times, { durationMs: 1200, nonUseful: () => rnd() < 0.1 }), [5, null, 12, 0]);
    near(partsSum(b), 1200, 'sum of the parts', 1);
    assert.equal(b.perSource?.length, 4);
  });

  it('no part is negative: a burst above the steady span rate, a tail faster than the rest', () => {
    // two sources at 1 packet/ms for 2 s; source 0 also delivers 50 packets at once mid-way (its
    // 90th-percentile span does not see it: it ran above r_0); then the last generation's 24
    // packets all arrive within 1 ms (faster than R)
    const s0 = [...every(50, 2000), ...every(1000.01, 50, 0.01)].sort((x, y) => x - y);
    const s1 = every(50.5, 2000);
    const b = computeTimeBreakdown(record([[...s0, ...every(2051, 12, 0.05)], [...s1, ...every(2051.02, 12, 0.05)]], { durationMs: 2052 }));
    for (const k of TIME_BREAKDOWN_PARTS) {
      const v = /** @type {number | null} */ (b[k]);
      assert.ok(v === null || v >= 0, `${k} = ${v}`);
    }
    for (const src of b.perSource ?? []) assert.ok(src.rampMs === null || src.rampMs >= 0, `a source's ramp ${src.rampMs}`);
    near(partsSum(b), 2052, 'sum of the parts', 1);
  });

  it('the time to the first packet splits into the connections\' set-up (connectMs) and the request after it; the parts still add up', () => {
    const r = record([every(300, 200), every(300.5, 200)], { durationMs: 500 });
    const split = computeTimeBreakdown({ ...r, connectMs: 240 });
    assert.deepEqual([split.connectMs, split.requestMs], [240, 60]);
    near(partsSum(split), 500, 'parts');
    const whole = computeTimeBreakdown(r);
    assert.deepEqual([whole.connectMs, whole.requestMs], [null, 300], 'no connectMs recorded: all of it is request');
    // a set-up longer than the time to the first packet (a clock read late) is cut to it, never negative
    assert.deepEqual([computeTimeBreakdown({ ...r, connectMs: 900 }).connectMs, computeTimeBreakdown({ ...r, connectMs: 900 }).requestMs], [300, 0]);
    assert.deepEqual([computeTimeBreakdown({ ...r, connectMs: -5 }).connectMs, computeTimeBreakdown({ ...r, connectMs: -5 }).requestMs], [0, 300]);
    const http = computeTimeBreakdown({ n: 2, durationMs: 400, firstPacketMs: 100, connectMs: 0.2, grossBytes: 1000, netBytes: 1000 });
    assert.deepEqual([http.method, http.connectMs, http.requestMs], ['bytes', 0.2, 99.8]);
    near(partsSum(http), 400, 'HTTP parts');
  });

  it('with its request steps, the request splits into the round trips, the proxy\'s origin fetch and preparation, and the vote; none below 0', () => {
    const r = { ...record([every(300, 200), every(300.5, 200)], { durationMs: 500 }), connectMs: 100 };
    // the first meta at 250 ms; its proxy waited 90 ms for the origin and 10 to hash; the vote at 280 ms
    const b = computeTimeBreakdown({ ...r, requestSteps: { answerMs: 250, originMs: 90, prepareMs: 10, decidedMs: 280 } });
    assert.deepEqual([b.connectMs, b.requestMs, b.originMs, b.prepareMs, b.voteMs], [100, 70, 90, 10, 30]);
    near(partsSum(b), 500, 'parts');
    // a proxy that claims more wait than the client saw between its request and the answer is cut to it
    const liar = computeTimeBreakdown({ ...r, requestSteps: { answerMs: 250, originMs: 5000, prepareMs: 7, decidedMs: 250 } });
    assert.deepEqual([liar.requestMs, liar.originMs, liar.prepareMs, liar.voteMs], [50, 150, 0, 0]);
    near(partsSum(liar), 500, 'parts');
    // an answer time before the connect, or a vote after the first packet, stay inside the request's time
    const odd = computeTimeBreakdown({ ...r, requestSteps: { answerMs: 20, originMs: 3, prepareMs: 3, decidedMs: 900 } });
    assert.deepEqual([odd.connectMs, odd.requestMs, odd.originMs, odd.prepareMs, odd.voteMs], [100, 0, 0, 0, 200]);
    // the proxy said nothing (one that predates it): its steps stay in the request
    const quiet = computeTimeBreakdown({ ...r, requestSteps: { answerMs: 250, originMs: null, prepareMs: null, decidedMs: 280 } });
    assert.deepEqual([quiet.requestMs, quiet.originMs, quiet.prepareMs, quiet.voteMs], [170, null, null, 30]);
    for (const x of [b, liar, odd, quiet]) for (const k of TIME_BREAKDOWN_PARTS) assert.ok(x[k] === null || x[k] >= 0, `${k} = ${x[k]}`);
    const old = computeTimeBreakdown(r);
    assert.deepEqual([old.requestMs, old.originMs, old.prepareMs, old.voteMs], [200, null, null, null], 'a record without steps, as before');
  });

  it('without a packet log (HTTP modes): request, then the rest split by useful and non-useful bytes', () => {
    const b = computeTimeBreakdown({ durationMs: 1000, firstPacketMs: 100, grossBytes: 4000, netBytes: 1000, packetLog: null });
    assert.equal(b.method, 'bytes');
    assert.equal(b.requestMs, 100);
    assert.equal(b.nonUsefulMs, 675);
    assert.equal(b.transferMs, 225);
    assert.equal(b.rampMs, null);
    assert.equal(b.perSource, null);
    near(partsSum(b), 1000, 'sum of the parts');
  });

  it('a failed download with nothing received is all request time', () => {
    const b = computeTimeBreakdown({ durationMs: 500, firstPacketMs: null, grossBytes: 0, netBytes: 0, packetLog: [] });
    assert.equal(b.requestMs, 500);
    assert.equal(b.transferMs, 0);
  });
});
