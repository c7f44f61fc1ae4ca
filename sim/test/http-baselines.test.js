import assert from 'node:assert/strict';
import { simulateOnce, simulateConfig } from '../src/simulate.js';
import { TCP_MSS_BYTES, TCP_INITIAL_CWND_SEGMENTS } from '../src/tcp-stream.js';

const KIB = 1024;
const RATE = 896 * KIB;

/** @returns {import('../src/simulate.js').SimConfig} */
function config(over = {}) {
  return {
    mode: 'parallel-http', rates: [RATE, RATE, RATE, RATE], delayMs: 25, loss: 0, startDelayMs: 0,
    downCapBps: Infinity, size: 1_500_000, params: {}, seeds: 3, overheadBytes: 0, ...over,
  };
}

/**
 * Time slow start leaves the link idle (ms): the window starts at the initial window and doubles
 * each round; while a window's segments take less than a round to send, the rest idles.
 * @param {number} rate bytes/s @param {number} rttMs
 */
function slowStartIdleMs(rate, rttMs) {
  const segMs = (TCP_MSS_BYTES / rate) * 1000;
  let idle = 0;
  // a round lasts one segment's sending plus the round trip until its ACK is back
  for (let w = TCP_INITIAL_CWND_SEGMENTS; w * segMs < rttMs + segMs; w *= 2) idle += rttMs + segMs - w * segMs;
  return idle;
}

describe('parallel-http baseline', () => {
  it('matches the closed form: one RTT + start delay + slow start + size / rate (+ one segment)', async () => {
    const r = await simulateOnce(config({ startDelayMs: 30 }), 1);
    const expected = 2 * 25 + 30 + slowStartIdleMs(RATE, 50) + (1_500_000 / RATE) * 1000;
    assert.ok(r.ok && r.verified);
    assert.ok(Math.abs(r.durationMs - expected) <= (TCP_MSS_BYTES / RATE) * 1000 + 1e-6, `${r.durationMs} vs ${expected}`);
    assert.equal(r.netBytes, 1_500_000);
    assert.ok(Math.abs(r.grossBytes - 4 * 1_500_000) <= 3 * TCP_MSS_BYTES, 'the losers were aborted at the same moment');
  });

  it('goodput is about one source rate and normalized goodput about 1/N', async () => {
    const s = await simulateConfig(config());
    const rttShare = 1 - (1_500_000 / RATE) / ((1_500_000 / RATE) + 0.05 + slowStartIdleMs(RATE, 50) / 1000);
    assert.ok(Math.abs(s.goodputBps / RATE - (1 - rttShare)) < 0.01, `goodput ${s.goodputBps}`);
    assert.ok(Math.abs(s.normalizedGoodput - 0.25) < 0.01);
    assert.equal(s.runs, 3);
  });

  it('the fastest source wins a heterogeneous race', async () => {
    const r = await simulateOnce(config({ rates: [RATE, 2 * RATE, RATE] }), 1);
    assert.equal(r.winner, 1);
  });

  it('a download cap shared by the sources slows everyone', async () => {
    const r = await simulateOnce(config({ downCapBps: 2 * RATE }), 1);
    // 4 streams share 2 x RATE: each gets RATE/2, so the download takes about twice as long.
    assert.ok(r.durationMs > 1.9 * (1_500_000 / RATE) * 1000, `${r.durationMs}`);
  });

});

describe('range-http baseline', () => {
  it('delivers the object byte-exact, each byte written once, for awkward sizes and mixes', async () => {
    for (const size of [1, 1099, 1_500_000, 5_000_001]) {
      for (const rates of [[RATE], [RATE, RATE, RATE, RATE], [2 * RATE, RATE, RATE, RATE]]) {
        const r = await simulateOnce(config({ mode: 'range-http', size, rates }), 1);
        assert.ok(r.ok && r.verified, `size ${size} rates ${rates.length}`);
        const sorted = [...(r.ranges ?? [])].sort((a, b) => a[0] - b[0]);
        let at = 0;
        for (const [a, b] of sorted) {
          assert.equal(a, at);
          at = b;
        }
        assert.equal(at, size);
      }
    }
  });

  it('beats one source: goodput above the single-source rate with 4 sources', async () => {
    const s = await simulateConfig(config({ mode: 'range-http' }));
    assert.ok(s.goodputBps > 2 * RATE, `range-http goodput ${s.goodputBps}`);
    assert.ok(s.goodputBps < 4 * RATE, 'and below the sum of the rates');
  });

  it('a straggler does not hold the end: a slow source gets a tail copy beaten', async () => {
    // Source 3 is 20x slower than the others; without duplication its range would end last.
    // 5 MB: ranges of 256 KiB first (a smaller object goes out in shares by the rates, and the
    // slow source's share would be small enough to need no copy).
    const rates = [RATE, RATE, RATE, RATE / 20];
    const r = await simulateOnce(config({ mode: 'range-http', rates, size: 5_000_000 }), 1);
    assert.ok(r.ok && r.verified);
    const slowAlone = ((256 * KIB) / (RATE / 20)) * 1000; // its first range alone takes this long
    assert.ok(r.durationMs < slowAlone, `${r.durationMs} ms vs ${slowAlone} ms`);
    assert.ok(r.duplicates >= 1, 'the slow range was copied and the slow copy cancelled');
  });
});

describe('new TCP connections', () => {
  for (const mode of /** @type {const} */ (['parallel-http', 'range-http'])) {
    it(`${mode}: a new connection pays the handshake's round trip before the request, nothing else changes`, async () => {
      const kept = await simulateOnce(config({ mode }), 1);
      const fresh = await simulateOnce(config({ mode, newTcp: true }), 1);
      assert.ok(fresh.ok && fresh.verified);
      assert.ok(Math.abs(fresh.durationMs - kept.durationMs - 50) < 1e-6, `${fresh.durationMs} vs ${kept.durationMs}: not one RTT (50 ms) more`);
      // one source of four new: the others start at once (range-http hands its share to them)
      const one = await simulateOnce(config({ mode, newTcp: [true, false, false, false] }), 1);
      assert.ok(one.durationMs < fresh.durationMs, `one new connection ${one.durationMs} vs all new ${fresh.durationMs}`);
    });
  }
});

describe('kept digest lists (Range-split)', () => {
  it('no list request: the first byte a round trip sooner, the download a round trip shorter, byte-exact; a new connection still pays its handshake', async () => {
    const asked = await simulateOnce(config({ mode: 'range-http' }), 1);
    const kept = await simulateOnce(config({ mode: 'range-http', keptLists: true }), 1);
    assert.ok(kept.ok && kept.verified);
    assert.ok(Math.abs(asked.ttfbMs - kept.ttfbMs - 50) < 0.1, `first byte at ${kept.ttfbMs} vs ${asked.ttfbMs}: not one RTT (50 ms) sooner`);
    assert.ok(Math.abs(asked.durationMs - kept.durationMs - 50) < 0.1, `${kept.durationMs} vs ${asked.durationMs}`);
    const fresh = await simulateOnce(config({ mode: 'range-http', keptLists: true, newTcp: true }), 1);
    assert.ok(Math.abs(fresh.durationMs - kept.durationMs - 50) < 0.1, `new connections ${fresh.durationMs} vs kept ${kept.durationMs}: not the handshake's 50 ms more`);
  });
});

describe('determinism', () => {
  it('the same flags give the same numbers', async () => {
    for (const mode of /** @type {const} */ (['parallel-http', 'range-http'])) {
      const a = await simulateConfig(config({ mode, loss: 0.01, rates: [RATE, 2 * RATE] }));
      const b = await simulateConfig(config({ mode, loss: 0.01, rates: [RATE, 2 * RATE] }));
      assert.deepEqual(a, b);
    }
  });
});
