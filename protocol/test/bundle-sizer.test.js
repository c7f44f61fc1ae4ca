// The bundle sizer: a sender bundles on a clean path and sends one datagram per message on a
// lossy one, judged from the echoes and loss counts the sender's feedback gives it.
import assert from 'node:assert/strict';
import { createBundleSizer, createRng } from '@mutp/protocol';

const PARTS_PER_BUNDLE = 3; // what MAX_BUNDLE_BYTES holds of full-size datagrams
const FEEDBACK_EVERY = 8; // datagrams between feedbacks, as the client sends them

/**
 * Send `datagrams` over a path losing each SCTP packet with probability `lossAt(i)`; a bundle is
 * lost whole when any of its packets is. Feedback every FEEDBACK_EVERY datagrams echoes the
 * highest seq and the running loss count, as a sender's does.
 * @param {ReturnType<typeof createBundleSizer>} sizer
 * @param {number} datagrams
 * @param {(i: number) => number} lossAt
 * @param {number} seed
 * @returns {{ bundled: number }}  datagrams sent in bundles
 */
function run(sizer, datagrams, lossAt, seed) {
  const rng = createRng(seed);
  sizer.startDownload();
  let seq = 0;
  let lost = 0;
  let bundled = 0;
  let sinceFeedback = 0;
  while (seq < datagrams) {
    const parts = sizer.bundling ? PARTS_PER_BUNDLE : 1;
    let gone = false;
    for (let k = 0; k < parts; k++) gone = rng() < lossAt(seq) || gone;
    seq += parts;
    if (gone) lost += parts;
    if (parts > 1) bundled += parts;
    sinceFeedback += parts;
    if (sinceFeedback >= FEEDBACK_EVERY) {
      sinceFeedback = 0;
      sizer.onEcho(seq);
      sizer.onLost(lost);
    }
  }
  return { bundled };
}

describe('bundle sizer', () => {
  it('bundles on a path that loses nothing, and keeps bundling', () => {
    const sizer = createBundleSizer();
    assert.equal(sizer.bundling, true, 'a new channel starts bundling');
    const { bundled } = run(sizer, 50_000, () => 0, 1);
    assert.equal(bundled, 50_001);
    assert.equal(sizer.switches, 0);
  });

  for (const pct of [1, 2, 5]) {
    it(`stops bundling within a few hundred datagrams at ${pct}% random loss, and does not resume`, () => {
      for (const seed of [1, 2, 3, 4, 5]) {
        const sizer = createBundleSizer();
        const { bundled } = run(sizer, 20_000, () => pct / 100, seed);
        assert.equal(sizer.bundling, false, `seed ${seed}`);
        assert.ok(bundled < 400, `seed ${seed}: ${bundled} datagrams bundled`);
        assert.equal(sizer.switches, 1, `seed ${seed}: it flipped back`);
      }
    });
  }

  it('keeps bundling at a loss too rare to cost what the messages save (0.1%)', () => {
    const sizer = createBundleSizer();
    const { bundled } = run(sizer, 50_000, () => 0.001, 7);
    assert.ok(bundled > 0.95 * 50_000, `${bundled} datagrams bundled`);
  });

  it('resumes bundling once a lossy path turns clean, and counts each download from its own seq 1', () => {
    const sizer = createBundleSizer();
    run(sizer, 5000, () => 0.05, 9);
    assert.equal(sizer.bundling, false);
    // the next download's seqs start again at 1: its echoes count as new datagrams
    const { bundled } = run(sizer, 8000, () => 0, 10);
    assert.equal(sizer.bundling, true);
    assert.ok(bundled > 4000, `${bundled} datagrams bundled after the loss ended`);
  });

  it('ignores echoes and loss counts that are not new integers', () => {
    const sizer = createBundleSizer();
    sizer.startDownload();
    sizer.onEcho(100);
    for (const bad of [NaN, -5, 1.5, 50, Infinity]) sizer.onEcho(bad);
    for (const bad of [NaN, -5, 1.5, Infinity]) sizer.onLost(bad);
    sizer.onLost(2); // 2 of 100: fewer losses than it takes to judge
    assert.equal(sizer.bundling, true);
    sizer.onLost(3);
    assert.equal(sizer.bundling, false, '3 of 100 lost stops it');
  });
});
