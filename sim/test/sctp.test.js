// The SCTP association model (src/sctp.js) against what the testbed's packet logs show for
// stock usrsctp: a kept idle association restarts from maxBurst packets and slow start about
// doubles each round trip (first two 50 ms bins: 10 then 21 packets per proxy).
import assert from 'node:assert/strict';
import { EventQueue } from '../src/event-queue.js';
import { readFileSync } from 'node:fs';
import { Network, shaperQueuePackets } from '../src/network.js';
import { TESTBED_QUEUE_MS } from '../src/compare.js';
import { createPrng } from '../src/prng.js';
import { createSctpPath, keptCwnd } from '../src/sctp.js';

const RATE = 896 * 1024;

/**
 * Packets arriving at the client per 50 ms bin from the first one, one source with much to send.
 * Two downloads on one association: the first grows the window, the second starts 1 s later
 * on the idle association (a kept connection), and its bins are counted.
 * @param {number} maxBurst
 * @param {import('../src/sctp.js').SctpSender} [sender]
 */
function bins(maxBurst, loss = 0, queuePackets = Infinity, sender = 'usrsctp') {
  const q = new EventQueue();
  const net = new Network(q, { sources: [{ rateBps: RATE, delayMs: 25, loss, startDelayMs: 0, queuePackets }], downCapBps: Infinity, prng: createPrng(3) });
  /** @type {number[]} */
  const at = [];
  const path = createSctpPath({ net, source: 0, maxBurst, sender, startCwnd: Infinity, overheadBytes: 40, deliver: () => at.push(q.now), over: () => false });
  for (let k = 0; k < 400; k++) path.send(new Uint8Array(1140));
  q.run(() => false, 30_000);
  const first = at.length;
  let dropsBefore = 0;
  q.at(q.now + 1000, () => {
    dropsBefore = path.stats.queueDrops;
    for (let k = 0; k < 400; k++) path.send(new Uint8Array(1140));
  });
  q.run(() => false, 60_000);
  const second = at.slice(first);
  const out = [0, 0, 0, 0];
  for (const t of second) if (t - second[0] < 200) out[Math.floor((t - second[0]) / 50)]++;
  return { out, arrived: at.length, path, secondDrops: path.stats.queueDrops - dropsBefore };
}

describe('sim SCTP path model', () => {
  it('stock max burst (10): a kept association starts at 10 packets, then about doubles per round trip', () => {
    const { out, arrived } = bins(10);
    assert.equal(out[0], 10);
    assert.ok(out[1] >= 19 && out[1] <= 22, `second bin ${out[1]}`);
    assert.equal(arrived, 800, 'nothing lost at loss 0');
  });

  it('max burst off (0): the kept association\'s grown window is used at once, up to the link rate', () => {
    const { out } = bins(0);
    const linkPer50Ms = Math.floor((RATE * 0.05) / (1140 + 28 + 37 + 40));
    assert.ok(out[0] >= linkPer50Ms - 1, `first bin ${out[0]}, the link carries ${linkPer50Ms}`);
  });

  it('loss halves the window; lost chunks are abandoned, not resent', () => {
    const { arrived, path } = bins(10, 0.05);
    assert.equal(bins(10, 0.05, Infinity, 'loss-tolerant').path.stats.halvings, 0, 'the loss-tolerant sender does not halve');
    assert.ok(path.stats.halvings >= 1, 'the window was halved');
    assert.equal(arrived + path.stats.lost, 800);
  });

  it('a burst larger than the shaper\'s queue loses its excess there (max burst off on the testbed\'s 50 ms queue)', () => {
    const limit = shaperQueuePackets(RATE, TESTBED_QUEUE_MS);
    assert.equal(limit, 30, '50 ms of 896 KiB/s in 1514-byte frames');
    const full = bins(0, 0, limit);
    assert.ok(full.secondDrops > 0, 'the kept window, sent at once, overflowed the queue');
    assert.ok(full.path.stats.halvings >= 1, 'and SCTP halved its window');
    assert.equal(full.arrived + full.path.stats.lost, 800);
    const paced = bins(limit, 0, limit);
    assert.equal(paced.secondDrops, 0, 'a max burst the size of the queue fits it');
    assert.equal(bins(0).path.stats.queueDrops, 0, 'an unbounded queue drops nothing');
  });

  it('the testbed\'s queue is the one shaping/shape sets (QUEUE_MS)', () => {
    const shape = readFileSync(new URL('../../shaping/shape', import.meta.url), 'utf8');
    assert.equal(Number(/^QUEUE_MS=(\d+)/m.exec(shape)?.[1]), TESTBED_QUEUE_MS);
    assert.equal(Number(/^MIN_QUEUE_PACKETS=(\d+)/m.exec(shape)?.[1]), shaperQueuePackets(1, TESTBED_QUEUE_MS));
    assert.equal(Number(/^FRAME_BYTES=(\d+)/m.exec(shape)?.[1]), 1514);
  });
});

/**
 * One association with `start` packets of cwnd (congestion avoidance) sending `count` packets
 * over a link whose n-th loss draw (1, 2, …) is lost when lose(n) says so; cwnd is sampled at
 * every arrival and every 5 ms.
 * @param {import('../src/sctp.js').SctpSender} sender @param {(n: number) => boolean} lose
 */
function run(sender, lose, { start = 40, count = 600, untilMs = 30_000 } = {}) {
  const q = new EventQueue();
  let draws = 0;
  const prng = { next: () => (lose(++draws) ? 0 : 0.999) };
  const net = new Network(q, { sources: [{ rateBps: RATE, delayMs: 25, loss: 0.5, startDelayMs: 0 }], downCapBps: Infinity, prng });
  /** @type {Array<[number, number, number]>} time, cwnd, timeouts */
  const trace = [];
  const path = createSctpPath({ net, source: 0, maxBurst: 0, sender, startCwnd: start, overheadBytes: 40, over: () => false,
    deliver: () => trace.push([q.now, path.cwnd, path.stats.timeouts]) });
  for (let k = 0; k < count; k++) path.send(new Uint8Array(1140));
  const tick = () => {
    trace.push([q.now, path.cwnd, path.stats.timeouts]);
    if (q.now < untilMs) q.at(q.now + 5, tick);
  };
  tick();
  q.run(() => false, untilMs);
  return { path, trace };
}

describe('sim SCTP senders: stock usrsctp against the loss-tolerant one', () => {
  // every 50th loss draw (data and SACKs alike) is a loss: 2% random loss, made deterministic
  const twoPercent = (/** @type {number} */ n) => n % 50 === 0;

  it('usrsctp halves its window on a loss a SACK shows (ssthresh = cwnd/2), once per window, and does not grow in recovery', () => {
    const { path, trace } = run('usrsctp', twoPercent);
    assert.ok(path.stats.halvings >= 2, `halvings ${path.stats.halvings}`);
    /** @type {number[]} */
    const cuts = [];
    for (let k = 1; k < trace.length; k++) if (trace[k][1] < trace[k - 1][1]) cuts.push(k);
    assert.ok(cuts.length >= 2);
    for (const k of cuts) {
      const [t, after] = trace[k];
      const before = trace[k - 1][1];
      assert.ok(Math.abs(after - Math.max(before / 2, 2)) < 1e-9, `a cut from ${before} to ${after}, not a halving`);
      // fast recovery lasts until what was in flight is settled, about a round trip: no growth
      const next = cuts.find((c) => c > k) ?? trace.length;
      for (const [u, w] of trace.slice(k, next)) if (u <= t + 40) assert.equal(w, after, `cwnd grew ${u - t} ms into recovery`);
    }
    assert.equal(path.stats.timeouts, 0);
  });

  it('the loss-tolerant sender keeps its window on random loss: no halving, no growth lost', () => {
    const { path, trace } = run('loss-tolerant', twoPercent);
    assert.equal(path.stats.halvings, 0);
    assert.equal(path.stats.timeouts, 0);
    assert.ok(path.stats.lost > 5, `lost ${path.stats.lost}`);
    assert.ok(trace.every((t) => t[1] >= 40), 'cwnd never fell below its start');
  });

  it('the loss-tolerant sender still backs off on a T3 timeout: cwnd 1, the RTO doubled at each one in a row', () => {
    // the path dies after 100 draws: no DATA nor SACK gets through, the timer is all that is left
    const { path, trace } = run('loss-tolerant', (n) => n > 100, { count: 200, untilMs: 5000 });
    assert.ok(path.stats.timeouts >= 3, `timeouts ${path.stats.timeouts}`);
    const at = [];
    for (let k = 1; k < trace.length; k++) if (trace[k][2] > trace[k - 1][2]) at.push(trace[k][0]);
    assert.equal(trace.find((t) => t[2] === 1)?.[1], 1, 'cwnd 1 after the first timeout');
    const gaps = at.slice(1).map((t, k) => t - at[k]);
    assert.ok(Math.abs(gaps[0] - 400) <= 5 && Math.abs(gaps[1] - 800) <= 5, `gaps between timeouts ${gaps.map((g) => g.toFixed(0))} ms, not 400, 800`);
  });

  it('a kept stock association starts where random loss left its window (the sawtooth\'s mean), a loss-tolerant one unlimited', () => {
    const link = { rateBps: RATE, delayMs: 25, loss: 0.01, startDelayMs: 0, queuePackets: 30 };
    assert.ok(Math.abs(keptCwnd(link) - Math.sqrt(150)) < 1e-9);
    assert.equal(keptCwnd({ ...link, loss: 0 }), Infinity);
    const q = new EventQueue();
    const net = new Network(q, { sources: [link], downCapBps: Infinity, prng: createPrng(1) });
    const make = (/** @type {any} */ sender) => createSctpPath({ net, source: 0, maxBurst: 0, sender, startCwnd: Infinity, overheadBytes: 0, deliver: () => {}, over: () => true });
    assert.equal(make('usrsctp').cwnd, keptCwnd(link));
    assert.equal(make('loss-tolerant').cwnd, Infinity);
  });
});
