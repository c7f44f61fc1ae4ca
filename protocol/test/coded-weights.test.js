// The 'share' scheduler splits each generation entering the window among the sources by their
// recent rates (echo deltas over the last window of generations), the same at every source.
import assert from 'node:assert/strict';
import { createSender } from '../index.js';

const N = 2;
const WINDOW = 240; // g = 24: 10 generations in the window
const GENERATIONS = 40;

/** @param {number} sourceIndex */
async function sender(sourceIndex) {
  const data = new Uint8Array(24 * 1100 * GENERATIONS);
  return /** @type {any} */ (await createSender({ mode: 'coded', data, sourceIndex, sourceCount: N, seed: 1, params: { window: WINDOW } }));
}

/**
 * The feedback that moves the window to `base`, echoing each source's highest seq.
 * @param {number} seq @param {number} base @param {number[]} echo
 */
function feedback(seq, base, echo) {
  const count = Math.min(10, GENERATIONS - base);
  return { type: 'feedback', downloadId: 0, mode: 'coded', seq, echo, base, dof: new Array(count).fill(0), contrib: new Uint8Array(count * N) };
}

/** @param {any} s @param {number} k */
const quotasOf = (s, k) => Array.from(s.quotas.subarray((k % s.layout.windowGenerations) * N, (k % s.layout.windowGenerations + 1) * N));

describe('coded sender weights (share scheduler)', () => {
  it('a source that led early (kept connection) and then ran level gets an equal split, at every source alike', async () => {
    const senders = [await sender(0), await sender(1)];
    const echo = [0, 0];
    let seq = 0;
    // feedback that does not move the window goes to one source: each hears a different one first
    senders[0].applyFeedback(feedback(++seq, 0, [30, 1]));
    senders[1].applyFeedback(feedback(++seq, 0, [5, 20]));
    /** @type {number[]} */
    let early = [];
    for (let base = 1; base <= 22; base++) {
      // generations 1–10: source 0 sends 5× as fast as source 1 (still in slow start); then both alike
      if (base <= 10) { echo[0] += 40; echo[1] += 8; } else { echo[0] += 24; echo[1] += 24; }
      for (const s of senders) s.applyFeedback(feedback(++seq, base, echo.slice()));
      if (base === 10) { // generation 19 entered now
        early = quotasOf(senders[0], 19);
        assert.deepEqual(early, quotasOf(senders[1], 19), 'both sources split generation 19 alike');
      }
    }
    // generation 31 entered with the window's move to base 22: the last 10 generations ran level
    const k = 22 + 10 - 1;
    const q0 = quotasOf(senders[0], k);
    assert.deepEqual(q0, quotasOf(senders[1], k), 'both sources split the generation alike');
    assert.deepEqual(q0.slice().sort(), [12, 12], `split ${q0}: totals since the start (688 vs 368 packets) would give 16:8`);
    // while source 0 led, the split followed it
    assert.ok(early[0] >= 18, `split ${early} while source 0 sent 5× as fast`);
    for (const s of senders) s.close();
  });

  it('a source that falls silent gets almost nothing of the next generations', async () => {
    const s = await sender(0);
    const echo = [0, 0];
    for (let base = 1; base <= 22; base++) {
      echo[0] += 24;
      if (base <= 10) echo[1] += 24; // source 1 stops after generation 10
      s.applyFeedback(feedback(base, base, echo.slice()));
    }
    const q = quotasOf(s, 31);
    assert.ok(q[1] <= 1, `split ${q}: the silent source still owns part of generation 31`);
    s.close();
  });
});
