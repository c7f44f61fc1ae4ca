// A batch of records to Origo: to POST /api/logs/v2 with each packet log in columns, or, for an
// Origo that predates v2 (404), to /api/logs as they are, in the same call and from then on.
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createLogQueue } from '@mutp/common/log-queue';
import { packetLogFromColumns } from '@mutp/protocol/packet-log-columns';
import { logsEndpoint, postLogBatch } from '../src/log-post.js';

const rec = (/** @type {number} */ i, /** @type {object} */ over = {}) => ({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, ...over });
/** A coded download's log: on the 0.01 ms grid, as ReceivedLog writes it. */
const codedLog = Array.from({ length: 3000 }, (_, k) => [Math.round(k * 37.3) / 100, k % 4, k % 9 ? 1 : 0, k - Math.floor(k / 9)]);

/**
 * A fetch that answers as an Origo would, and keeps what each request carried.
 * @param {{v2: boolean}} o  v2: false answers /api/logs/v2 with 404, as an Origo that predates it
 */
function fakeOrigoFetch({ v2 }) {
  /** @type {{url: string, records: any[]}[]} */
  const posts = [];
  /** @type {typeof globalThis.fetch} */
  const fetch = async (input, init = {}) => {
    const url = String(input);
    if (url.endsWith('/v2') && !v2) return new Response(JSON.stringify({ error: { code: 'ERR_NOT_FOUND' } }), { status: 404 });
    const raw = init.body;
    const enc = /** @type {Record<string, string>} */ (init.headers)['content-encoding'];
    const bytes = typeof raw === 'string' ? Buffer.from(raw) : Buffer.from(/** @type {Uint8Array} */ (raw));
    const text = (enc === 'gzip' ? gunzipSync(bytes) : enc === 'br' ? brotliDecompressSync(bytes) : bytes).toString('utf8');
    const records = JSON.parse(text);
    posts.push({ url, records });
    return Response.json({ stored: records.map((/** @type {{id: string}} */ r) => r.id), duplicates: [] });
  };
  return { fetch, posts };
}

/** @param {typeof fetch} fetch @param {string} endpoint @param {any[]} records */
async function post(fetch, endpoint, records) {
  const queue = createLogQueue();
  for (const r of records) queue.push(r);
  const counters = { stored: 0, duplicates: 0, rejected: 0 };
  await postLogBatch({ fetch, endpoint, queue, batch: queue.takeBatch(), counters });
  return { counters, left: queue.size };
}

describe('log batch to Origo', () => {
  it('goes to /api/logs/v2 with each packet log in columns that read back to it; a log columns cannot say goes as it is', async () => {
    const o = fakeOrigoFetch({ v2: true });
    const offGrid = [[0.001, 0, 1, 1]];
    const records = [rec(1, { packetLog: codedLog }), rec(2, { packetLog: offGrid }), rec(3, { packetLog: null })];
    const { counters, left } = await post(o.fetch, logsEndpoint('http://origo.test:8080'), records);
    assert.deepEqual({ stored: counters.stored, left }, { stored: 3, left: 0 });
    assert.deepEqual(o.posts.map((p) => p.url), ['http://origo.test:8080/api/logs/v2']);
    const [a, b, c] = o.posts[0].records;
    assert.equal('packetLog' in a, false);
    assert.deepEqual(packetLogFromColumns(a.packetLogColumns, 100_000), codedLog);
    assert.deepEqual(b, records[1]);
    assert.deepEqual(c, records[2]);
    assert.deepEqual(records[0].packetLog, codedLog, 'the queued record is left as it was');
  });

  it('an Origo that predates v2 gets the batch at /api/logs, as arrays, in the same call; the next batch goes there at once', async () => {
    const o = fakeOrigoFetch({ v2: false });
    const endpoint = logsEndpoint('http://old-origo.test:8080');
    const first = await post(o.fetch, endpoint, [rec(4, { packetLog: codedLog })]);
    assert.deepEqual({ stored: first.counters.stored, left: first.left }, { stored: 1, left: 0 });
    assert.deepEqual(o.posts.map((p) => p.url), [endpoint]);
    assert.deepEqual(o.posts[0].records[0].packetLog, codedLog);
    let asked = 0;
    await post((input, init) => { asked++; return o.fetch(input, init); }, endpoint, [rec(5, { packetLog: codedLog })]);
    assert.equal(asked, 1, 'no second try of v2');
    assert.deepEqual(o.posts.map((p) => p.url), [endpoint, endpoint]);
  });
});
