// One source with the default 'share' scheduler sends its window lowest first, so the oldest
// generation (coded) or packet (uncoded) completes first and the window keeps moving; a random
// pick over the window would complete everything at once and idle a round trip per window.
import assert from 'node:assert/strict';
import { createSender } from '../src/create.js';

const SIZE = 1100 * 24 * 12; // 12 generations of 24 packets
const data = new Uint8Array(SIZE).map((_, i) => (i * 31) & 0xff);

/** @param {'coded'|'uncoded'} mode @param {'share'|'paper'} scheduler @param {number} count @returns {Promise<number[]>} */
async function firstUnits(mode, scheduler, count) {
  const s = await createSender({ mode, data, params: { window: 240, generationSize: 24, scheduler }, sourceIndex: 0, sourceCount: 1, seed: 5 });
  const out = [];
  for (let i = 0; i < count; i++) {
    const m = s.nextPacket(0);
    assert.ok(m, `packet ${i}`);
    out.push(/** @type {any} */ (m)[mode === 'coded' ? 'generation' : 'index']);
  }
  s.close();
  return out;
}

describe('one source: lowest first', () => {
  it('coded: generation 0 gets its 24 packets before generation 1 gets any', async () => {
    const gens = await firstUnits('coded', 'share', 48);
    assert.deepEqual(gens, [...Array(24).fill(0), ...Array(24).fill(1)]);
    const paper = await firstUnits('coded', 'paper', 48);
    assert.ok(new Set(paper.slice(0, 24)).size > 1, 'paper: rarest first spreads over the window');
  });

  it('uncoded: packets go in index order', async () => {
    assert.deepEqual(await firstUnits('uncoded', 'share', 40), [...Array(40).keys()]);
    const paper = await firstUnits('uncoded', 'paper', 40);
    assert.notDeepEqual(paper, [...Array(40).keys()], 'paper: a random pick');
  });
});
