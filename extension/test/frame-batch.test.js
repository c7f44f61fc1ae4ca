import assert from 'node:assert/strict';
import { createFrameBatch, FRAME_BATCH_MS, FRAME_BATCH_MAX } from '../src/background/frame-batch.js';

/** A batcher on a hand-driven timer: `fire()` runs the pending timer. */
function rig() {
  /** @type {object[]} */
  const sent = [];
  /** @type {{fn: () => void, ms: number} | null} */
  let timer = null;
  const batch = createFrameBatch({
    take: (b) => sent.push(b),
    setTimer: (fn, ms) => (timer = { fn, ms }),
    clearTimer: () => { timer = null; },
  });
  return { batch, sent, timer: () => timer, fire: () => { const t = timer; timer = null; t?.fn(); } };
}

describe('extension: the background takes the frames\' reports in batches', () => {
  it('reports within the window are taken together, in order, when the window ends', () => {
    const r = rig();
    r.batch.add({ t: 'seen', kind: 'manifest', url: 'http://origin.test/a.mpd', segments: 3, templates: 0 });
    r.batch.add({ t: 'record', record: { id: 'a' } });
    assert.deepEqual(r.sent, [], 'sent before the window ended');
    assert.equal(r.timer()?.ms, FRAME_BATCH_MS);
    r.fire();
    assert.deepEqual(r.sent, [[{ t: 'seen', kind: 'manifest', url: 'http://origin.test/a.mpd', segments: 3, templates: 0 }, { t: 'record', record: { id: 'a' } }]]);
    r.batch.add({ t: 'record', record: { id: 'b' } });
    r.fire();
    assert.equal(r.sent.length, 2, 'a report after a batch went starts the next one');
  });

  it('flush() takes what waits at once (the popup asks), and nothing when nothing waits', () => {
    const r = rig();
    r.batch.flush();
    assert.deepEqual(r.sent, []);
    r.batch.add({ t: 'record', record: { id: 'a' } });
    r.batch.flush();
    assert.deepEqual(r.sent, [[{ t: 'record', record: { id: 'a' } }]]);
    assert.equal(r.timer(), null, 'the window was cancelled');
    r.fire();
    assert.equal(r.sent.length, 1);
  });

  it(`a full batch (${FRAME_BATCH_MAX} reports) is taken at once, without waiting for the window`, () => {
    const r = rig();
    for (let i = 0; i < FRAME_BATCH_MAX; i++) r.batch.add({ t: 'record', record: { id: `r${i}` } });
    assert.equal(r.sent.length, 1);
    assert.equal(/** @type {any} */ (r.sent[0]).length, FRAME_BATCH_MAX);
    assert.equal(r.timer(), null);
  });
});
