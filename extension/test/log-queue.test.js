// The background's log queue: records survive in storage until Origo acks them.
import assert from 'node:assert/strict';
import { createLogQueue, RETRY_ALARM } from '../src/background/log-queue.js';

/** A storage area like browser.storage.local, in memory. */
function memoryStorage(initial = {}) {
  /** @type {Record<string, any>} */
  const data = structuredClone(initial);
  return {
    data,
    get: async (/** @type {string} */ k) => (k in data ? { [k]: structuredClone(data[k]) } : {}),
    set: async (/** @type {object} */ v) => { Object.assign(data, structuredClone(v)); },
  };
}

/** An Origo that answers each POST with `answer(batch)`, or fails while `down`. */
function fakeOrigo(answer = (/** @type {any[]} */ b) => ({ stored: b.map((r) => r.id), duplicates: [], rejected: [] })) {
  const o = { down: false, posts: /** @type {string[][]} */ ([]) };
  /** @type {typeof globalThis.fetch} */
  const post = async (_url, init) => {
    const batch = JSON.parse(String(init?.body));
    o.posts.push(batch.map((/** @type {any} */ r) => r.id));
    if (o.down) return new Response('down', { status: 503 });
    return Response.json(answer(batch));
  };
  return Object.assign(o, { fetch: post });
}

const quiet = { warn() {} };

describe('extension log queue (background)', () => {
  it('keeps records in storage while Origo is down, arms the retry alarm, and sends them later', async () => {
    const storage = memoryStorage({ logQueue: [{ id: 'old' }] });
    const origo = fakeOrigo();
    origo.down = true;
    /** @type {string[]} */
    const alarms = [];
    const q = createLogQueue({ storage, origoUrl: async () => 'http://origo.test', fetch: origo.fetch, armAlarm: (n) => alarms.push(n), logger: quiet });
    await q.add([{ id: 'r1' }]);
    await q.flush();
    assert.deepEqual(storage.data.logQueue.map((/** @type {any} */ r) => r.id), ['old', 'r1'], 'nothing lost while Origo is down');
    assert.ok(alarms.includes(RETRY_ALARM));
    assert.ok(q.counters.failures >= 1);
    origo.down = false;
    await q.flush();
    assert.deepEqual(storage.data.logQueue, []);
    assert.equal(await q.pending(), 0);
    assert.equal(q.counters.stored, 2);
  });

  it('an endless answer from Origo is a failed upload, read no further than the cap; the records stay', async () => {
    const storage = memoryStorage();
    let pulled = 0;
    /** @type {typeof globalThis.fetch} */
    const endless = async () => new Response(new ReadableStream({ pull(c) { pulled += 1; c.enqueue(new Uint8Array(64 * 1024).fill(0x20)); } }));
    const q = createLogQueue({ storage, origoUrl: async () => 'http://origo.test', fetch: endless, logger: quiet });
    await q.add([{ id: 'r1' }]);
    await q.flush();
    assert.equal(q.counters.failures, 1);
    assert.equal(q.counters.stored, 0);
    assert.deepEqual(storage.data.logQueue.map((/** @type {any} */ r) => r.id), ['r1']);
    assert.ok(pulled <= 32, `read ${pulled} chunks of 64 KiB`);
  });

  it('an answer that is not an ack (a 200 from something else at that URL) is a failed upload; the records stay', async () => {
    const storage = memoryStorage();
    const origo = fakeOrigo(() => /** @type {any} */ ({ ok: true }));
    const q = createLogQueue({ storage, origoUrl: async () => 'http://origo.test', fetch: origo.fetch, logger: quiet });
    await q.add([{ id: 'r1' }]);
    await q.flush();
    assert.equal(q.counters.failures, 1);
    assert.deepEqual(storage.data.logQueue.map((/** @type {any} */ r) => r.id), ['r1']);
  });

  it('an Origo URL that cannot be read is a failed upload too; the batch is sent once it can', async () => {
    const storage = memoryStorage();
    const origo = fakeOrigo();
    let broken = true;
    const q = createLogQueue({ storage, origoUrl: async () => (broken ? 'not a url' : 'http://origo.test'), fetch: origo.fetch, logger: quiet });
    await q.add([{ id: 'r1' }]);
    await q.flush();
    assert.equal(q.counters.failures, 1);
    broken = false;
    await q.flush();
    assert.deepEqual(origo.posts, [['r1']], 'the batch was released, not left in flight');
    assert.equal(await q.pending(), 0);
  });

  it('drops records Origo rejected (by batch index) and counts them', async () => {
    const storage = memoryStorage();
    const origo = fakeOrigo((b) => ({
      stored: b.filter((r) => r.id !== 'bad').map((r) => r.id), duplicates: [],
      rejected: b.flatMap((r, index) => (r.id === 'bad' ? [{ index, reason: 'bad record' }] : [])),
    }));
    const q = createLogQueue({ storage, origoUrl: async () => 'http://origo.test', fetch: origo.fetch, logger: quiet });
    await q.add([{ id: 'bad' }]);
    await q.flush();
    await q.add([{ id: 'good' }]);
    await q.flush();
    assert.equal(await q.pending(), 0);
    assert.deepEqual([q.counters.stored, q.counters.rejected], [1, 1]);
  });
});
