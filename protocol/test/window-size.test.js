import assert from 'node:assert/strict';
import {
  windowFromPaths, maxWindowPackets, normalizeParams, encodeMessage, decodeMessage,
  WINDOW_BDP_MARGIN, DEFAULT_RTT_ESTIMATE_MS, MIN_DEFAULT_WINDOW_PACKETS, MAX_DATAGRAM_BYTES,
} from '../index.js';

const KIB896 = 896 * 1024; // bytes/s

describe('window from the paths (windowFromPaths)', () => {
  it('is the bandwidth-delay product × the margin, in whole generations (known answers)', () => {
    assert.equal(WINDOW_BDP_MARGIN, 5);
    assert.equal(DEFAULT_RTT_ESTIMATE_MS, 50);
    // 6 × 917504 B/s × 50 ms = 275251 B = 241.4 coded datagrams of 1140 B; × 5 = 1207.1 → 51 generations of 24
    assert.equal(windowFromPaths({ mode: 'coded', ratesBps: new Array(6).fill(KIB896), rttMs: 50 }), 1224);
    assert.equal(windowFromPaths({ mode: 'coded', ratesBps: new Array(6).fill(KIB896) }), 1224, 'RTT defaults to 50 ms');
    // 4 × 896 KiB/s: 161.0 × 5 = 804.8 → 34 generations
    assert.equal(windowFromPaths({ mode: 'coded', ratesBps: new Array(4).fill(KIB896), rttMs: 50 }), 816);
    // uncoded datagrams are 1114 B, no generations: 247.1 × 5 = 1235.5 → 1236
    assert.equal(windowFromPaths({ mode: 'uncoded', ratesBps: new Array(6).fill(KIB896), rttMs: 50 }), 1236);
    // g = 16 rounds to 16s: 6 × 896 KiB/s over 1132 B datagrams: 243.2 × 5 = 1215.9 → 1216
    assert.equal(windowFromPaths({ mode: 'coded', ratesBps: new Array(6).fill(KIB896), rttMs: 50, params: { generationSize: 16 } }), 1216);
  });

  it('never goes below the paper window (in whole generations) nor above what the wire carries', () => {
    assert.equal(MIN_DEFAULT_WINDOW_PACKETS, 240);
    assert.equal(windowFromPaths({ mode: 'coded', ratesBps: [KIB896], rttMs: 50 }), 240);
    assert.equal(windowFromPaths({ mode: 'coded', ratesBps: [KIB896, KIB896], rttMs: 0 }), 240);
    assert.equal(windowFromPaths({ mode: 'coded', ratesBps: [KIB896], params: { generationSize: 7 } }), 245, 'whole generations of 7');
    const huge = new Array(6).fill(1e12);
    assert.equal(windowFromPaths({ mode: 'coded', ratesBps: huge }), maxWindowPackets('coded', 6, 24));
    assert.equal(windowFromPaths({ mode: 'uncoded', ratesBps: huge }), 8192, 'MAX_WINDOW_PACKETS');
  });

  it('the largest window is the largest whose feedback fits one datagram', () => {
    for (const n of [1, 6, 32]) {
      const w = maxWindowPackets('coded', n, 24);
      assert.equal(w % 24, 0);
      normalizeParams({ window: w }, 'coded');
      const feedback = (/** @type {number} */ gens) => encodeMessage({
        type: 'feedback', downloadId: 1, mode: 'coded', seq: 1, echo: new Array(n).fill(0), base: 0, bits: 0, bitmap: null,
        dof: new Array(gens).fill(0), contrib: new Uint8Array(gens * n),
      });
      const b = feedback(w / 24);
      assert.ok(b.length <= MAX_DATAGRAM_BYTES);
      assert.ok(decodeMessage(b).ok);
      if (w / 24 < Math.floor(8192 / 24)) assert.throws(() => feedback(w / 24 + 1), `n=${n}: one more generation would not fit`);
    }
    assert.equal(maxWindowPackets('coded', 32, 24), 744);
  });

  it('refuses rates and RTTs that are not measurements', () => {
    for (const ratesBps of [[], [0], [-1], [Infinity], [NaN], /** @type {any} */ (['1000'])]) {
      assert.throws(() => windowFromPaths({ mode: 'coded', ratesBps }), { code: 'ERR_BAD_PARAMS' }, String(ratesBps));
    }
    for (const rttMs of [-1, NaN, Infinity]) {
      assert.throws(() => windowFromPaths({ mode: 'coded', ratesBps: [KIB896], rttMs }), { code: 'ERR_BAD_PARAMS' });
    }
  });
});
