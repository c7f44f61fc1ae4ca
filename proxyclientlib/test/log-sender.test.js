import assert from 'node:assert/strict';
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { createLogSender } from '../index.js';

const quiet = { warn() {} };
const rec = (i) => ({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` });

/**
 * A fake Origo `POST /api/logs`: answers 503 while `down`, else stores ids idempotently.
 * `reject` ids are answered as rejected (status 400).
 */
async function fakeOrigo({ down = 0, reject = new Set() } = {}) {
  const stored = new Set();
  let posts = 0;
  /** @type {(string | undefined)[]} each post's Content-Encoding */
  const encodings = [];
  const server = http.createServer(async (req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks);
    encodings.push(req.headers['content-encoding']);
    const body = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
    posts += 1;
    if (posts <= down) { res.writeHead(503).end(); return; }
    const batch = JSON.parse(body);
    const out = { stored: [], duplicates: [], rejected: [] };
    batch.forEach((r, index) => {
      if (reject.has(r.id)) out.rejected.push({ index, id: r.id, reason: 'bad record' });
      else if (stored.has(r.id)) out.duplicates.push(r.id);
      else { stored.add(r.id); out.stored.push(r.id); }
    });
    res.writeHead(out.rejected.length ? 400 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  return { url, stored, encodings, posts: () => posts, close: () => new Promise((r) => { server.close(() => r(undefined)); server.closeAllConnections(); }) };
}

describe('log sender', () => {
  it('posts records in batches and empties the queue', async () => {
    const o = await fakeOrigo();
    const s = createLogSender({ origo: o.url, fetch, logger: quiet, batchMax: 4 });
    for (let i = 0; i < 10; i++) s.enqueue(rec(i));
    assert.equal(await s.flush(10_000), true);
    assert.equal(o.stored.size, 10);
    assert.equal(s.pending.length, 0);
    assert.ok(o.posts() >= 3, 'batches of at most 4');
    s.close();
    await o.close();
  });

  it('with batchDelayMs the records of a burst wait for one POST; flush() and a full batch send at once', async () => {
    const o = await fakeOrigo();
    const s = createLogSender({ origo: o.url, fetch, logger: quiet, batchMax: 4, batchDelayMs: 60_000 });
    for (let i = 0; i < 3; i++) s.enqueue(rec(i));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(o.posts(), 0, 'the batch waits');
    assert.equal(await s.flush(5000), true);
    assert.equal(o.posts(), 1, 'one POST for the burst');
    assert.equal(o.stored.size, 3);
    for (let i = 3; i < 7; i++) s.enqueue(rec(i)); // a whole batch
    for (let k = 0; k < 100 && o.stored.size < 7; k++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(o.stored.size, 7, 'a full batch does not wait');
    assert.equal(o.posts(), 2);
    s.close();
    await o.close();
  });

  it('a large batch goes gzipped (Origo inflates it), a small one as it is', async () => {
    const o = await fakeOrigo();
    const s = createLogSender({ origo: o.url, fetch, logger: quiet, batchMax: 4 });
    s.enqueue(rec(1));
    assert.equal(await s.flush(10_000), true);
    // a coded download's packet log: ~30 characters per packet
    s.enqueue(/** @type {any} */ ({ ...rec(2), packetLog: Array.from({ length: 2000 }, (_, k) => [k * 0.37, k % 4, 1, k]) }));
    assert.equal(await s.flush(10_000), true);
    assert.deepEqual(o.encodings, [undefined, 'gzip']);
    assert.equal(o.stored.size, 2);
    await o.close();
  });

  it('keeps records while Origo is down and delivers them later, none lost', async () => {
    const o = await fakeOrigo({ down: 3 });
    const s = createLogSender({ origo: o.url, fetch, logger: quiet, retryBaseMs: 5, retryMaxMs: 20 });
    for (let i = 0; i < 7; i++) s.enqueue(rec(i));
    assert.equal(await s.flush(10_000), true);
    assert.deepEqual([...o.stored].sort(), Array.from({ length: 7 }, (_, i) => rec(i).id).sort());
    assert.ok(s.counters.failures >= 3);
    s.close();
    await o.close();
  });

  it('keeps records while Origo is unreachable (connection refused)', async () => {
    const o = await fakeOrigo();
    const url = o.url;
    await o.close();
    const s = createLogSender({ origo: url, fetch, logger: quiet, retryBaseMs: 5, retryMaxMs: 20 });
    s.enqueue(rec(1));
    assert.equal(await s.flush(200), false, 'not delivered');
    assert.equal(s.pending.length, 1, 'still queued');
    s.close();
  });

  it('drops records Origo rejected as invalid (re-sending cannot succeed), keeps counting', async () => {
    const o = await fakeOrigo({ reject: new Set([rec(2).id]) });
    const s = createLogSender({ origo: o.url, fetch, logger: quiet });
    for (let i = 0; i < 4; i++) s.enqueue(rec(i));
    assert.equal(await s.flush(10_000), true);
    assert.equal(o.stored.size, 3);
    assert.equal(s.counters.rejected, 1);
    s.close();
    await o.close();
  });

  it('sendAll() begins a POST for every queued record with no timer between (a page being unloaded runs none)', async () => {
    /** @type {string[][]} each POST's ids */
    const posts = [];
    const fakeFetch = async (/** @type {string} */ _url, /** @type {RequestInit} */ init) => {
      const ids = JSON.parse(String(init.body)).map((/** @type {{id: string}} */ r) => r.id);
      posts.push(ids);
      return new Response(JSON.stringify({ stored: ids, duplicates: [] }), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const s = createLogSender({ origo: 'http://origo.test', fetch: /** @type {any} */ (fakeFetch), logger: quiet, batchMax: 4, batchDelayMs: 60_000 });
    for (let i = 0; i < 10; i++) s.enqueue(rec(i));
    const realSetTimeout = globalThis.setTimeout;
    let timers = 0;
    // as in an unloading page: a timer set now never fires
    globalThis.setTimeout = /** @type {any} */ (() => { timers += 1; return 0; });
    let done;
    try {
      done = s.sendAll();
      // only the microtasks of the caller's task: the POSTs must have begun in them
      for (let i = 0; i < 20; i++) await Promise.resolve();
    } finally {
      globalThis.setTimeout = realSetTimeout;
    }
    assert.deepEqual(posts.flat().sort(), Array.from({ length: 10 }, (_, i) => rec(i).id), 'every record in a POST begun at once');
    assert.ok(posts.every((p) => p.length <= 4), 'batches of at most batchMax');
    await done;
    assert.equal(s.pending.length, 0);
    assert.equal(s.counters.stored, 10);
    assert.equal(timers, 0, 'no timer set');
    s.close();
  });

  it('beaconAll() hands every queued record, also one in a POST now, to the beacon at once, as text for /api/logs/v2; they stay queued and go in POSTs if the page lives on', async () => {
    const o = await fakeOrigo();
    /** @type {{url: string, ids: string[]}[]} */
    const beacons = [];
    const sendBeacon = (/** @type {string} */ url, /** @type {string} */ body) => {
      assert.equal(typeof body, 'string', 'a string body: text/plain, no preflight');
      beacons.push({ url, ids: JSON.parse(body).map((/** @type {{id: string}} */ r) => r.id) });
      return true;
    };
    /** @type {(() => void) | null} */
    let unstall = null;
    let posts = 0;
    const stallingFetch = async (/** @type {any} */ url, /** @type {any} */ init) => {
      posts += 1;
      if (posts === 1) await new Promise((r) => { unstall = () => r(undefined); }); // the first POST hangs: in flight at pagehide
      return fetch(url, init);
    };
    const s = createLogSender({ origo: o.url, fetch: stallingFetch, logger: quiet, batchMax: 4, batchDelayMs: 50, sendBeacon });
    s.enqueue(rec(0));
    for (let t = 0; t < 100 && posts === 0; t++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(posts, 1, 'record 0 in a POST');
    for (let i = 1; i < 10; i++) s.enqueue(rec(i));
    const done = s.beaconAll();
    // before any await: as in a pagehide handler
    assert.deepEqual(beacons.map((b) => b.url), Array(3).fill(`${o.url}/api/logs/v2`));
    assert.deepEqual(beacons.map((b) => b.ids), [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]].map((ids) => ids.map((i) => rec(i).id)));
    assert.equal(s.counters.beacons, 3);
    await done;
    assert.equal(posts, 1, 'no POST begun');
    assert.equal(s.pending.length, 10, 'a beacon\'s records stay queued: its answer cannot be read');
    s.beaconAll();
    assert.equal(beacons.length, 6, 'nothing marked as sent: a handler stopped midway may call again');
    /** @type {any} */ (unstall)?.();
    for (let t = 0; t < 100 && s.pending.length > 0; t++) await new Promise((r) => setTimeout(r, 20)); // the page lived on
    assert.equal(o.stored.size, 10, 'they went in POSTs at the batch\'s time');
    s.close();
    await o.close();
  });

  it('beaconAll(): a beacon refused (the browser\'s quota) sends the records in POSTs begun at once', async () => {
    const o = await fakeOrigo();
    let calls = 0;
    const s = createLogSender({ origo: o.url, fetch, logger: quiet, batchMax: 2, batchDelayMs: 60_000, sendBeacon: () => ++calls === 1 });
    for (let i = 0; i < 4; i++) s.enqueue(rec(i));
    await s.beaconAll();
    assert.equal(calls, 2);
    assert.equal(s.counters.beacons, 1);
    assert.equal(o.stored.size, 4);
    assert.equal(s.pending.length, 0);
    s.close();
    await o.close();
  });

  it('beaconAll() with no sendBeacon sends as sendAll() does', async () => {
    const o = await fakeOrigo();
    const s = createLogSender({ origo: o.url, fetch, logger: quiet, batchMax: 20, batchDelayMs: 60_000 });
    for (let i = 0; i < 3; i++) s.enqueue(rec(i));
    await s.beaconAll();
    assert.equal(o.stored.size, 3);
    assert.equal(s.pending.length, 0);
    assert.equal(s.counters.beacons, 0);
    s.close();
    await o.close();
  });

  it('sendAll(): records of a failed POST stay queued and go again later', async () => {
    const o = await fakeOrigo({ down: 1 });
    const s = createLogSender({ origo: o.url, fetch, logger: quiet, batchMax: 20, batchDelayMs: 60_000, retryBaseMs: 10, retryMaxMs: 20 });
    for (let i = 0; i < 3; i++) s.enqueue(rec(i));
    await s.sendAll();
    assert.equal(s.pending.length, 3, 'kept after the 503');
    for (let t = 0; t < 100 && o.stored.size < 3; t++) await new Promise((r) => setTimeout(r, 50)); // the backoff's retry, nobody flushing
    assert.equal(o.stored.size, 3);
    assert.equal(s.pending.length, 0);
    s.close();
    await o.close();
  });
});
