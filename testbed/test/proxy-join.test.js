// After a campaign, the proxies' own records are joined to each MUTP download: their in-flight
// holds (in the time breakdown) and each source's start (proxyStartMs, which sim:compare feeds
// the simulator).
import assert from 'node:assert/strict';
import { joinProxyRecords, proxyStartMs } from '../src/proxy-join.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (/** @type {number} */ ms) => new Date(T0 + ms).toISOString();

/** A store with one coded download over two proxies, and each proxy's records. @param {any[]} proxyRecords */
function fakeStore(proxyRecords) {
  const client = {
    id: 'c1', startedAt: at(0), mode: 'coded', n: 2, proxyIds: ['p0', 'p1'], durationMs: 500, firstPacketMs: 60,
    netBytes: 44_000, grossBytes: 44_000, params: { generationSize: 24, payloadSize: 1100 },
    packetLog: Array.from({ length: 40 }, (_, i) => [60 + i * 10, i % 2, 1, i + 1]),
    perProxy: [{ bytes: 22_000, packets: 20 }, { bytes: 22_000, packets: 20 }],
  };
  return {
    async listProxyRecords(/** @type {{offset: number}} */ q) { return q.offset === 0 ? proxyRecords : []; },
    async getClientRecord(/** @type {string} */ id) { return id === 'c1' ? client : null; },
  };
}

describe('testbed: joining the proxies\' records to the downloads', () => {
  it('each source\'s start is its proxy\'s firstSendMs; an older record gives its origin fetch, 0 from the cache', () => {
    assert.equal(proxyStartMs({ firstSendMs: 31.5, serverFetchMs: 20, fromCache: false }), 31.5);
    assert.equal(proxyStartMs({ firstSendMs: null, serverFetchMs: 20, fromCache: false }), 20);
    assert.equal(proxyStartMs({ serverFetchMs: 20, fromCache: true }), 0, 'a cached object\'s serverFetchMs is its first fetch\'s');
    assert.equal(proxyStartMs(undefined), null);
  });

  it('a download gets its proxies\' starts and holds, by proxy, source index, mode and time', async () => {
    const store = fakeStore([
      { proxyId: 'p0', sourceIndex: 0, mode: 'coded', startedAt: at(27), firstSendMs: 12, inflightHeldMs: 3 },
      { proxyId: 'p1', sourceIndex: 1, mode: 'coded', startedAt: at(29), firstSendMs: 41, inflightHeldMs: null },
      // another download of p1's, long before: not this one's
      { proxyId: 'p1', sourceIndex: 1, mode: 'coded', startedAt: at(-60_000), firstSendMs: 5, inflightHeldMs: 1 },
      { proxyId: 'p0', sourceIndex: 0, mode: 'range-http', startedAt: at(28), firstSendMs: null },
    ]);
    const rows = [{ recordId: 'c1', mode: 'coded', ok: true }, { recordId: 'h1', mode: 'range-http', ok: true }];
    const r = await joinProxyRecords(/** @type {any} */ (store), rows);
    assert.deepEqual(r, { joined: 1, sources: 2, heldFound: 1, startFound: 2 });
    assert.deepEqual(/** @type {any} */ (rows[0]).proxyStartMs, [12, 41]);
    assert.ok(/** @type {any} */ (rows[0]).timeBreakdown, 'the breakdown was recomputed');
    assert.equal(/** @type {any} */ (rows[1]).proxyStartMs, undefined, 'HTTP downloads are not joined');
  });
});
