// Uncoded 'share' scheduler: every source deals the packets to the same owners although each
// hears feedback at its own times, and a source helps a silent owner but not a busy one.
import assert from 'node:assert/strict';
import { createSender, epochPackets } from '../index.js';

const WINDOW = 240;
const PACKETS = 1200;

/** @param {number} sourceIndex @param {number} sourceCount */
async function sender(sourceIndex, sourceCount) {
  return /** @type {any} */ (await createSender({ mode: 'uncoded', data: new Uint8Array(1100 * PACKETS), sourceIndex, sourceCount, seed: 1, params: { window: WINDOW } }));
}

/** Feedback with the window base at `base` and nothing received above it. @param {number} seq @param {number} base @param {number[]} echo */
const feedback = (seq, base, echo) => ({ type: 'feedback', downloadId: 0, mode: 'uncoded', seq, echo, base, bits: 0, bitmap: new Uint8Array(0) });

/** @param {any} s @param {any} msg */
function apply(s, msg) {
  s.applyFeedback(msg);
  s.afterFeedback(msg);
}

describe('uncoded sender (share scheduler)', () => {
  it('two sources that hear different feedback between epochs deal every packet to the same owner', async () => {
    const a = await sender(0, 2);
    const b = await sender(1, 2);
    const epoch = epochPackets(WINDOW);
    const echo = [0, 0];
    let seq = 0;
    for (let base = 10; base <= 900; base += 10) {
      // source 0 runs 3× as fast as source 1 in the first 300 packets, then they run level
      if (base <= 300) { echo[0] += 15; echo[1] += 5; } else { echo[0] += 10; echo[1] += 10; }
      const msg = feedback(++seq, base, echo.slice());
      const newEpoch = Math.floor(base / epoch) > Math.floor((base - 10) / epoch);
      // the receiver sends the feedback that enters a new epoch to all; the others to one source each, in turn
      if (newEpoch || seq % 2 === 0) apply(a, msg);
      if (newEpoch || seq % 2 === 1) apply(b, msg);
    }
    let differ = 0;
    let ownedBy1 = 0;
    for (let i = 0; i < Math.min(a.wend, b.wend); i++) {
      if (a.own.has(i) === b.own.has(i)) differ++; // owned by both, or by neither
      if (i >= 600 && b.own.has(i)) ownedBy1++;
    }
    assert.equal(differ, 0, `${differ} packets have two owners or none`);
    // the split follows the recent rates: level by then, so about half each
    const share = ownedBy1 / (Math.min(a.wend, b.wend) - 600);
    assert.ok(share > 0.4 && share < 0.6, `source 1 owns ${share.toFixed(2)} of the later packets`);
  });

  for (const [name, otherEcho, helps] of /** @type {const} */ ([['silent', 0, true], ['busy', 120, false]])) {
    it(`a source with nothing of its own left ${helps ? 'helps a silent owner' : 'leaves a busy owner alone'}`, async () => {
      const s = await sender(0, 2);
      let own = 0;
      while (s.nextPacket(0) !== null) own++;
      assert.equal(own, WINDOW / 2, 'source 0 sent its half of the window');
      // feedback: nothing received yet; source 0's echo as many packets, the other's as `otherEcho`
      apply(s, feedback(1, 0, [own, otherEcho]));
      const next = s.nextPacket(1);
      if (!helps) return assert.equal(next, null, `helped a ${name} owner`);
      assert.ok(next && next.index >= 0, `did not help a ${name} owner`);
      assert.ok(!s.own.has(next.index), 'helped with its own packet');
      assert.equal(next.index, WINDOW - 1, 'help starts at the top of the window');
    });
  }
});
