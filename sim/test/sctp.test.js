// The SCTP association model (src/sctp.js) against what the testbed's packet logs show for
// stock usrsctp: a kept idle association restarts from maxBurst packets and slow start about
// doubles each round trip (first two 50 ms bins: 10 then 21 packets per proxy).
import assert from 'node:assert/strict';
import { EventQueue } from '../src/event-queue.js';
import { readFileSync } from 'node:fs';
import { Network, shaperQueuePackets } from '../src/network.js';
import { TESTBED_QUEUE_MS } from '../src/compare.js';
import { createPrng } from '../src/prng.js';
import { createSctpPath } from '../src/sctp.js';

const RATE = 896 * 1024;

/**
 * Packets arriving at the client per 50 ms bin from the first one, one source with much to send.
 * Two downloads on one association: the first grows the window, the second starts 1 s later
 * on the idle association (a kept connection), and its bins are counted.
 * @param {number} maxBurst
 */
function bins(maxBurst, loss = 0, queuePackets = Infinity) {
  const q = new EventQueue();
  const net = new Network(q, { sources: [{ rateBps: RATE, delayMs: 25, loss, startDelayMs: 0, queuePackets }], downCapBps: Infinity, prng: createPrng(3) });
  /** @type {number[]} */
  const at = [];
  const path = createSctpPath({ net, source: 0, maxBurst, startCwnd: Infinity, overheadBytes: 40, deliver: () => at.push(q.now), over: () => false });
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
