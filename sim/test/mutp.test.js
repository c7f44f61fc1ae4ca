import assert from 'node:assert/strict';
import { simulateOnce, simulateConfig, withWindow } from '../src/simulate.js';
import { windowFromPaths } from '@mutp/protocol';

const RATE = 896 * 1024;

/** @returns {import('../src/simulate.js').SimConfig} */
function config(over = {}) {
  return {
    mode: 'coded', rates: [RATE, RATE, RATE, RATE], delayMs: 25, loss: 0, startDelayMs: 0,
    downCapBps: Infinity, size: 200_000, params: { window: 240, generationSize: 24 }, seeds: 2, overheadBytes: 0, ...over,
  };
}

describe('sim drives the real MUTP sender/receiver', function () {
  this.timeout(60_000);

  for (const mode of /** @type {const} */ (['uncoded', 'coded'])) {
    it(`${mode}: byte-exact for N in {1, 2, 4, 6}, loss in {0, 1%, 5%}, awkward sizes`, async () => {
      for (const n of [1, 2, 4, 6]) {
        for (const loss of [0, 0.01, 0.05]) {
          for (const size of [1, 1101, 60_001]) {
            // coded: the real codec here; the rank codec is held to it below
            const r = await simulateOnce(config({ mode, rates: new Array(n).fill(RATE), loss, size, codec: 'exact' }), n * 100 + size);
            assert.ok(r.ok, `${mode} n=${n} loss=${loss} size=${size}: ${r.error}`);
            assert.ok(r.verified, `${mode} n=${n} loss=${loss} size=${size}: not byte-exact`);
            assert.ok(r.grossBytes >= size);
          }
        }
      }
    });
  }

  it('a meta datagram lost at a full shaper queue: the client asks again and the proxy sends its meta again, as live', async () => {
    // a 200 KiB/s link's 10-packet queue overflows with the meta and the first window
    const r = await simulateOnce(config({ mode: 'uncoded', rates: [1792 * 1024, 200 * 1024], size: 1_500_000, queueMs: 50, kept: true, maxBurst: 0 }), 1);
    assert.ok(r.transport?.queueDrops > 0, 'nothing was dropped: the test misses the case');
    assert.ok(r.ok && r.verified, `the download did not complete: ${r.error}`);
  });

  it('is deterministic under loss: same seed, same run; another seed, another run', async () => {
    const c = config({ loss: 0.05, size: 100_000 });
    const a = await simulateOnce(c, 5);
    const b = await simulateOnce(c, 5);
    const d = await simulateOnce(c, 6);
    assert.deepEqual(a, b);
    assert.notDeepEqual([a.durationMs, a.grossBytes], [d.durationMs, d.grossBytes]);
  });

  it("coded: the rank codec (no payload arithmetic) makes the same run as the real codec, to the last field", async () => {
    const cases = [
      config({ size: 300_000 }),
      config({ loss: 0.03, size: 150_001 }),
      config({ rates: [2 * RATE, RATE, RATE], loss: 0.01, params: { window: 96, generationSize: 16 } }),
      config({ rates: [RATE, RATE], params: { window: 240, generationSize: 24, scheduler: 'paper' }, size: 100_000 }),
    ];
    let duplicates = 0;
    for (const [i, c] of cases.entries()) {
      for (const seed of [1, 2]) {
        const exact = await simulateOnce({ ...c, codec: 'exact' }, seed);
        const rank = await simulateOnce({ ...c, codec: 'rank' }, seed);
        assert.ok(exact.verified && rank.verified, `case ${i} seed ${seed}`);
        assert.deepEqual(rank, exact, `case ${i} seed ${seed}`);
        duplicates += exact.duplicates;
      }
    }
    assert.ok(duplicates > 0, 'some runs had non-innovative packets, so the rank decisions were exercised');
  });

  it('without a window it takes the client\'s from the paths; a given window wins', async () => {
    const six = new Array(6).fill(RATE);
    const c = config({ rates: six, params: { generationSize: 24 } });
    assert.equal(withWindow(c).params.window, 1224);
    assert.equal(withWindow(c).params.window, windowFromPaths({ mode: 'coded', ratesBps: six, rttMs: 50 }));
    assert.equal(withWindow(config({ rates: six, delayMs: [25, 50], params: {} })).params.window, windowFromPaths({ mode: 'coded', ratesBps: six, rttMs: 100 }));
    assert.equal(withWindow(config({ rates: six })).params.window, 240, 'given');
    const s = await simulateConfig({ ...c, size: 100_000, seeds: 1 });
    assert.equal(s.params.window, 1224, 'the summary names the window used');
  });

  it('coded goodput grows with N (more sources, faster download)', async () => {
    const one = await simulateConfig(config({ rates: [RATE], size: 300_000 }));
    const four = await simulateConfig(config({ size: 300_000 }));
    assert.ok(four.goodputBps > 1.5 * one.goodputBps, `N=1 ${one.goodputBps}, N=4 ${four.goodputBps}`);
    assert.ok(one.goodputBps <= RATE, 'one source cannot beat its own link');
  });
});
