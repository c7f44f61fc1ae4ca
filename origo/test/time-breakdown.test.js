// A client record's timeBreakdown (docs/log-record.md) through POST /api/logs into the store and
// back, and the proxy record's inflightHeldMs; bad or oversized breakdowns are refused.
import assert from 'node:assert/strict';
import { computeTimeBreakdown } from '@mutp/protocol';
import { MAX_PROXIES_PER_DOWNLOAD } from '../src/limits.js';
import { clientRecord, postLogs, proxyRecord, startTestOrigo } from './helpers.js';

/** A record whose breakdown is computed from its own packet log, as the client does. */
function recordWithBreakdown() {
  /** @type {Array<[number, number, number, number]>} */
  const packetLog = [];
  for (let k = 0; k < 200; k++) packetLog.push([30 + k, k % 2, k % 10 === 9 ? 0 : 1, 0]);
  const r = clientRecord({ packetLog, packets: 200, durationMs: 260, perProxy: [
    { proxyId: 'p1', bytes: 100_000, packets: 100, duplicates: 10, error: null },
    { proxyId: 'p2', bytes: 100_000, packets: 100, duplicates: 10, error: null },
  ] });
  return { ...r, timeBreakdown: computeTimeBreakdown(r, [3, null]) };
}

describe('origo: the time breakdown in client and proxy records', () => {
  /** @type {Awaited<ReturnType<typeof startTestOrigo>>} */
  let origo;
  beforeEach(async () => { origo = await startTestOrigo(); });
  afterEach(async () => { await origo.close(); });

  it('stores a record\'s timeBreakdown and gives it back whole (list and dashboard reads)', async () => {
    const r = recordWithBreakdown();
    assert.equal(r.timeBreakdown.method, 'packets');
    assert.equal(r.timeBreakdown.perSource?.[0].heldMs, 3);
    const { status } = await postLogs(origo.url, [r]);
    assert.equal(status, 200);
    const [listed] = await origo.store.listClientRecords();
    assert.deepEqual(listed.timeBreakdown, r.timeBreakdown);
    const one = await origo.store.getClientRecord(r.id);
    assert.deepEqual(one?.timeBreakdown, r.timeBreakdown);
    // a typed column per part: grouped quantiles run on it like any metric
    const [q] = await origo.store.quantilesByGroup({ metric: 'tb_transfer_ms', groupBy: ['mode'], quantiles: [0.5] });
    assert.equal(q.quantiles[0], r.timeBreakdown.transferMs);
  });

  it('a record without one reads back timeBreakdown: null', async () => {
    const r = clientRecord();
    delete (/** @type {any} */ (r)).timeBreakdown;
    assert.equal((await postLogs(origo.url, [r])).status, 200);
    assert.equal((await origo.store.getClientRecord(r.id))?.timeBreakdown, null);
  });

  const good = recordWithBreakdown().timeBreakdown;
  for (const [why, tb] of /** @type {[string, any][]} */ ([
    ['an unknown method', { ...good, method: 'guess' }],
    ['an unknown key', { ...good, extra: 1 }],
    ['a missing part', { ...good, transferMs: undefined }],
    ['a negative request time', { ...good, requestMs: -1 }],
    ['a part beyond a day', { ...good, tailMs: 1e12 }],
    ['a string part', { ...good, rampMs: '5' }],
    ['an unknown per-source key', { ...good, perSource: [{ ...good.perSource[0], secret: 'x' }] }],
    ['more sources than a download may have', { ...good, perSource: Array.from({ length: MAX_PROXIES_PER_DOWNLOAD + 1 }, () => good.perSource[0]) }],
  ])) {
    it(`refuses a timeBreakdown with ${why}`, async () => {
      const r = { ...recordWithBreakdown(), timeBreakdown: JSON.parse(JSON.stringify(tb)) };
      const { status, body } = await postLogs(origo.url, [r]);
      assert.equal(status, 400);
      assert.deepEqual(body.stored, []);
      assert.match(body.rejected[0].reason, /timeBreakdown/);
    });
  }

  it('stores a record\'s requestSteps and the parts they split from the request, and gives them back', async () => {
    const base = recordWithBreakdown();
    const requestSteps = { lookupMs: 95.5, answerMs: 20, originMs: 9, prepareMs: 2.5, decidedMs: 25 };
    const r = { ...base, requestSteps, timeBreakdown: computeTimeBreakdown({ ...base, requestSteps }, [3, null]) };
    assert.deepEqual([r.timeBreakdown.originMs, r.timeBreakdown.prepareMs, r.timeBreakdown.voteMs], [9, 2.5, 5]);
    assert.equal((await postLogs(origo.url, [r])).status, 200);
    const one = await origo.store.getClientRecord(r.id);
    assert.deepEqual(one?.requestSteps, requestSteps);
    assert.deepEqual(one?.timeBreakdown, r.timeBreakdown);
    const [q] = await origo.store.quantilesByGroup({ metric: 'tb_origin_ms', groupBy: ['mode'], quantiles: [0.5] });
    assert.equal(q.quantiles[0], 9);
  });

  for (const [why, steps] of /** @type {[string, any][]} */ ([
    ['an unknown key', { answerMs: 1, secret: 2 }],
    ['a negative time', { answerMs: -1 }],
    ['a string time', { originMs: '5' }],
  ])) {
    it(`refuses requestSteps with ${why}`, async () => {
      const { status, body } = await postLogs(origo.url, [{ ...recordWithBreakdown(), requestSteps: steps }]);
      assert.equal(status, 400);
      assert.match(body.rejected[0].reason, /requestSteps/);
    });
  }

  it('stores a proxy record\'s inflightHeldMs and firstSendMs', async () => {
    const p = proxyRecord('px-1', { inflightHeldMs: 41.5, firstSendMs: 23.25 });
    await origo.store.insertProxyRecords([p]);
    const [got] = await origo.store.listProxyRecords({ proxyId: 'px-1' });
    assert.equal(got.inflightHeldMs, 41.5);
    assert.equal(got.firstSendMs, 23.25);
  });
});
