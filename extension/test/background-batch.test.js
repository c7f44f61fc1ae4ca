import assert from 'node:assert/strict';
import { createBackgroundBatch, BACKGROUND_BATCH_MS } from '../src/frame/background-batch.js';
import { BACKGROUND_BATCH_MAX } from '../src/shared/page-messages.js';

/** A batcher on a hand-driven timer: `fire()` runs the pending timer. */
function rig() {
  /** @type {object[]} */
  const sent = [];
  /** @type {{fn: () => void, ms: number} | null} */
  let timer = null;
  const batch = createBackgroundBatch({
    send: (b) => sent.push(b),
    setTimer: (fn, ms) => (timer = { fn, ms }),
    clearTimer: () => { timer = null; },
  });
  return { batch, sent, timer: () => timer, fire: () => { const t = timer; timer = null; t?.fn(); } };
}

describe('extension: the frame batches what it tells the background', () => {
  it('messages within the window go in one runtime message, in order, when the window ends', () => {
    const r = rig();
    r.batch.add({ t: 'seen', kind: 'segment', how: 'manifest' });
    r.batch.add({ t: 'record', record: { id: 'a' } });
    assert.deepEqual(r.sent, [], 'sent before the window ended');
    assert.equal(r.timer()?.ms, BACKGROUND_BATCH_MS);
    r.fire();
    assert.deepEqual(r.sent, [{ t: 'batch', msgs: [{ t: 'seen', kind: 'segment', how: 'manifest' }, { t: 'record', record: { id: 'a' } }] }]);
    r.batch.add({ t: 'record', record: { id: 'b' } });
    r.fire();
    assert.equal(r.sent.length, 2, 'a message after a batch went starts the next one');
  });

  it('flush() sends what waits at once (the page goes away), and nothing when nothing waits', () => {
    const r = rig();
    r.batch.flush();
    assert.deepEqual(r.sent, []);
    r.batch.add({ t: 'record', record: { id: 'a' } });
    r.batch.flush();
    assert.deepEqual(r.sent, [{ t: 'batch', msgs: [{ t: 'record', record: { id: 'a' } }] }]);
    assert.equal(r.timer(), null, 'the window was cancelled');
    r.fire();
    assert.equal(r.sent.length, 1);
  });

  it(`a full batch (${BACKGROUND_BATCH_MAX} messages) goes at once, without waiting for the window`, () => {
    const r = rig();
    for (let i = 0; i < BACKGROUND_BATCH_MAX; i++) r.batch.add({ t: 'record', record: { id: `r${i}` } });
    assert.equal(r.sent.length, 1);
    assert.equal(/** @type {any} */ (r.sent[0]).msgs.length, BACKGROUND_BATCH_MAX);
    assert.equal(r.timer(), null);
  });
});
