import assert from 'node:assert/strict';
import { createLogQueue } from '@mutp/common/log-queue';

const rec = (/** @type {string} */ id, pad = 0) => ({ id, pad: 'x'.repeat(pad) });

describe('log queue (@mutp/common/log-queue)', () => {
  it('batches by count and JSON bytes, never twice in flight, and keeps what the ack does not name', () => {
    const q = createLogQueue({ batchMaxRecords: 3, batchMaxJsonBytes: 250 });
    for (const id of ['a', 'b', 'c', 'd']) q.push(rec(id, 100));
    const first = q.takeBatch().map((r) => r.id);
    assert.deepEqual(first, ['a', 'b'], '2 × ~120 B fit in 250 B, a third does not');
    assert.deepEqual(q.takeBatch().map((r) => r.id), ['c', 'd']);
    assert.deepEqual(q.takeBatch(), [], 'all in flight');
    const r = q.ack(first, { ok: true, stored: ['a'], duplicates: ['zz'] });
    assert.deepEqual([r.acked, r.stored, r.duplicates], [1, 1, 0], 'an id outside the batch counts for nothing');
    assert.deepEqual(q.records().map((x) => x.id), ['b', 'c', 'd']);
    assert.deepEqual(q.takeBatch().map((x) => x.id), ['b'], 'b was released by the ack, c and d are still in flight');
  });

  it('drops rejected records named by id or by batch index, and the oldest beyond the cap', () => {
    /** @type {string[]} */
    const dropped = [];
    /** @type {string[][]} */
    const done = [];
    const q = createLogQueue({ maxRecords: 3, onDrop: (r) => dropped.push(r.id), onDone: (ids) => done.push(ids) });
    for (const id of ['a', 'b', 'c', 'd']) q.push(rec(id));
    assert.deepEqual(dropped, ['a']);
    assert.equal(q.dropped, 1);
    const ids = q.takeBatch().map((r) => r.id);
    const r = q.ack(ids, { stored: [], duplicates: ['d'], rejected: [{ index: 0, reason: 'bad' }, { id: 'c', reason: 'worse' }, { index: 9 }] });
    assert.deepEqual(r.rejected, [{ id: 'b', reason: 'bad' }, { id: 'c', reason: 'worse' }]);
    assert.equal(q.size, 0);
    assert.deepEqual(done, [['a'], ['d', 'b', 'c']]);
  });

  it('a failed batch goes back to waiting; a stale ack still removes what it names', () => {
    const q = createLogQueue();
    q.push(rec('a'));
    q.push(rec('b'));
    const ids = q.takeBatch().map((r) => r.id);
    q.release(ids);
    assert.equal(q.inFlightCount, 0);
    const again = q.takeBatch().map((r) => r.id);
    q.ack(ids, { stored: ['a'], duplicates: [] }, { stale: true });
    assert.deepEqual(q.records().map((r) => r.id), ['b']);
    assert.equal(q.inFlightCount, 2, 'stale: the newer batch keeps its ids in flight');
    assert.deepEqual(again, ['a', 'b']);
  });
});
