// Uncoded and Coded MUTP end to end over in-memory lossy links: byte-exact data for every
// mode, source count, loss rate and awkward size; the tail never stalls.
import assert from 'node:assert/strict';
import { runTransfer } from './lossy-link.js';

/** @param {Uint8Array} a @param {Uint8Array} b */
function assertSameBytes(a, b) {
  assert.ok(a, 'receiver has no data');
  assert.equal(a.length, b.length, 'length');
  assert.ok(Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length)), 'bytes differ');
}

/** @param {any} r result of runTransfer() */
function assertDelivered(r) {
  assert.ok(r.complete, `did not complete in simulated time (${r.durationMs} ms)`);
  assertSameBytes(r.receiver.data(), r.data);
  // pollDelivered() chunks reassemble the same object
  const again = new Uint8Array(r.data.length);
  let total = 0;
  for (const { offset, bytes } of r.deliveredChunks) { again.set(bytes, offset); total += bytes.length; }
  assert.equal(total, r.data.length, 'delivered byte count');
  assertSameBytes(again, r.data);
  assert.ok(r.senders.every((s) => s.finished), 'every sender finished after done');
}

for (const mode of /** @type {const} */ (['uncoded', 'coded'])) {
  describe(`${mode} MUTP over lossy links`, () => {
    for (const n of [1, 2, 4, 6]) {
      for (const loss of [0, 0.01, 0.05]) {
        it(`N=${n}, loss ${loss * 100}%: 100003 bytes byte-exact`, async () => {
          const r = await runTransfer({ mode, size: 100003, n, loss, seed: 11 * n + Math.round(loss * 100) });
          assertDelivered(r);
        });
      }
    }
    for (const size of [1, 1099, 1100, 1101, 24 * 1100, 24 * 1100 + 1, 240 * 1100 + 7]) {
      it(`size ${size} (N=2, loss 1%)`, async () => {
        assertDelivered(await runTransfer({ mode, size, n: 2, loss: 0.01, seed: size }));
      });
    }
    it('size 0 completes with no data packets', async () => {
      const r = await runTransfer({ mode, size: 0, n: 2, seed: 3 });
      assert.ok(r.complete);
      assert.equal(r.receiver.data().length, 0);
      assert.equal(r.receiver.counts().packets, 0);
    });
    it('5 MB, N=4, loss 5%', async () => {
      assertDelivered(await runTransfer({ mode, size: 5 * 1000 * 1000, n: 4, loss: 0.05, seed: 5 }));
    });
    it('tail: with 5% loss and 4 sources no download stalls > 3 feedback round trips', async () => {
      const delayMs = 25;
      const maxDelay = 20;
      const feedbackRtt = 2 * delayMs + maxDelay; // request for news out, news back, plus feedback pacing
      for (let seed = 1; seed <= 8; seed++) {
        const r = await runTransfer({ mode, size: 1500 * 1000, n: 4, loss: 0.05, seed, delayMs, params: { feedbackMaxDelayMs: maxDelay, minRtoMs: 2000 } }); // a long RTO: only the echo can recover in time
        assertDelivered(r);
        assert.ok(r.tailGapMs <= 3 * feedbackRtt, `seed ${seed}: tail stalled ${r.tailGapMs.toFixed(1)} ms > ${3 * feedbackRtt} ms`);
      }
    });
    if (mode === 'coded') it('end game: at 2% loss the last generations wait for no feedback round trip (median tail gap < half the delay)', async function () {
      this.timeout(30_000);
      const delayMs = 25;
      const gaps = [];
      for (let seed = 1; seed <= 12; seed++) {
        const r = await runTransfer({ mode, size: 1500 * 1000, n: 4, loss: 0.02, seed, delayMs, params: { feedbackMaxDelayMs: 20, minRtoMs: 2000 } });
        assertDelivered(r);
        gaps.push(r.tailGapMs);
      }
      gaps.sort((a, b) => a - b);
      const median = (gaps[5] + gaps[6]) / 2;
      // each lost packet of the last generations replaced by a spare already on its way, not re-sent a round trip later
      assert.ok(median < delayMs / 2, `median tail gap ${median.toFixed(1)} ms over 12 seeds: ${gaps.map((g) => g.toFixed(0)).join(' ')}`);
    });
    it('both schedulers complete with heterogeneous-looking loss (paper and share)', async () => {
      for (const scheduler of ['paper', 'share']) {
        assertDelivered(await runTransfer({ mode, size: 300000, n: 4, loss: 0.05, seed: 9, params: { scheduler } }));
      }
    });
  });
}
