import assert from 'node:assert/strict';
import { EventQueue } from '../src/event-queue.js';
import { createPrng } from '../src/prng.js';

describe('sim event queue', () => {
  it('runs events by time, ties in insertion order, also events scheduled while running', () => {
    const q = new EventQueue();
    const prng = createPrng(7);
    /** @type {Array<[number, number]>} (time, id) in the order they ran */
    const ran = [];
    /** @type {Array<[number, number]>} every event scheduled */
    const all = [];
    let id = 0;
    const schedule = (/** @type {number} */ t) => {
      const me = id++;
      const at = Math.max(t, q.now);
      all.push([at, me]);
      q.at(t, () => {
        ran.push([q.now, me]);
        // some events schedule more, at the same time too (ties with older events)
        if (id < 3000 && prng.next() < 0.6) schedule(q.now + Math.floor(prng.next() * 4));
      });
    };
    for (let k = 0; k < 1000; k++) schedule(Math.floor(prng.next() * 50)); // many equal times
    while (q.step());
    const expected = [...all].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    assert.equal(ran.length, all.length);
    assert.deepEqual(ran, expected);
    assert.equal(q.size, 0);
  });

  it('run() stops at the deadline and when done() says so', () => {
    const q = new EventQueue();
    const seen = /** @type {number[]} */ ([]);
    for (const t of [5, 1, 3, 9, 7]) q.at(t, () => seen.push(t));
    q.run(() => false, 6);
    assert.deepEqual(seen, [1, 3, 5]);
    q.run(() => seen.length >= 4, Infinity);
    assert.deepEqual(seen, [1, 3, 5, 7]);
    assert.equal(q.size, 1);
  });
});
