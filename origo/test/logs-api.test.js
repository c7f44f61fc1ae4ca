import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { packetLogColumns } from '@mutp/protocol/packet-log-columns';
import { LOGS_BODY_LIMIT_BYTES } from '../src/limits.js';
import { clientRecord, postLogs, startTestOrigo } from './helpers.js';

describe('origo: POST /api/logs', () => {
  /** @type {Awaited<ReturnType<typeof startTestOrigo>>} */
  let origo;
  beforeEach(async () => { origo = await startTestOrigo(); });
  afterEach(async () => { await origo.close(); });

  it('stores a valid batch and gives every field back, with the derived metrics', async () => {
    const a = clientRecord({ extensionVersion: '1.2.3' });
    const b = clientRecord({ mode: 'parallel-http', params: null, packetLog: null, feedbackLog: null, perProxy: null, error: { code: 'ERR_ALL_PROXIES_FAILED', message: 'x' } });
    const { status, body } = await postLogs(origo.url, [a, b]);
    assert.equal(status, 200);
    assert.deepEqual(body, { stored: [a.id, b.id], duplicates: [], rejected: [] });
    const rows = await origo.store.listClientRecords();
    const gotA = rows.find((r) => r.id === a.id);
    const gotB = rows.find((r) => r.id === b.id);
    assert.deepEqual(gotA, { ...a, throughputBps: 2500, goodputBps: 2000, normalizedGoodput: 0.8,
      perProxy: a.perProxy.map((p) => ({ ...p, uploadRateBps: null })) });
    assert.deepEqual(gotB, { ...b, throughputBps: 2500, goodputBps: 2000, normalizedGoodput: 0.8 });
  });

  it('one bad record: 400 with its index, id and reason; the rest of the batch is stored', async () => {
    const good1 = clientRecord();
    const bad = clientRecord({ durationMs: -1 });
    const good2 = clientRecord();
    const { status, body } = await postLogs(origo.url, [good1, bad, good2, 'not a record']);
    assert.equal(status, 400);
    assert.deepEqual(body.stored, [good1.id, good2.id]);
    assert.equal(body.rejected.length, 2);
    assert.deepEqual(body.rejected[0], { index: 1, id: bad.id, reason: '/durationMs must be >= 0' });
    assert.equal(body.rejected[1].index, 3);
    assert.equal(body.rejected[1].id, null);
    const ids = (await origo.store.listClientRecords()).map((r) => r.id).sort();
    assert.deepEqual(ids, [good1.id, good2.id].sort());
  });

  for (const [why, over] of [
    ['a bad mode', { mode: 'carrier-pigeon' }],
    ['a non-uuid id', { id: 'abc' }],
    ['a bad time', { startedAt: 'yesterday' }],
    ['n = 0', { n: 0 }],
    ['a fractional byte count', { netBytes: 1.5 }],
    ['a malformed packet log entry', { packetLog: [[1, 0, 2, 1]] }],
    ['a loss estimate above 1', { lossEstimate: 1.5 }],
  ]) {
    it(`rejects ${why}`, async () => {
      const { status, body } = await postLogs(origo.url, [clientRecord(over)]);
      assert.equal(status, 400);
      assert.deepEqual(body.stored, []);
      assert.equal(body.rejected.length, 1);
      assert.match(body.rejected[0].reason, /\S/);
    });
  }

  it('is idempotent by id: within a batch and across requests a record is stored once', async () => {
    const r = clientRecord();
    const first = await postLogs(origo.url, [r, r]);
    assert.deepEqual(first.body, { stored: [r.id], duplicates: [r.id], rejected: [] });
    const again = await postLogs(origo.url, [{ ...r, id: r.id.toUpperCase() }]);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.stored, []);
    assert.equal(again.body.duplicates.length, 1);
    assert.equal((await origo.store.counts()).clientRecords, 1);
  });

  it('refuses bodies that are not a JSON array, not JSON, or too large', async () => {
    const notArray = await postLogs(origo.url, clientRecord());
    assert.equal(notArray.status, 400);
    assert.equal(notArray.body.error.code, 'ERR_BAD_BODY');

    const badJson = await fetch(`${origo.url}/api/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[{' });
    assert.equal(badJson.status, 400);
    assert.equal((await badJson.json()).error.code, 'ERR_BAD_JSON');

    const html = await fetch(`${origo.url}/api/logs`, { method: 'POST', headers: { 'content-type': 'text/html' }, body: '[]' });
    assert.equal(html.status, 415);
    assert.equal((await html.json()).error.code, 'ERR_BAD_CONTENT_TYPE');

    const badText = await fetch(`${origo.url}/api/logs/v2`, { method: 'POST', headers: { 'content-type': 'text/plain;charset=UTF-8' }, body: 'not json' });
    assert.equal(badText.status, 400);
    assert.equal((await badText.json()).error.code, 'ERR_BAD_JSON');

    const huge = JSON.stringify([clientRecord({ url: 'x'.repeat(LOGS_BODY_LIMIT_BYTES) })]);
    const tooLarge = await fetch(`${origo.url}/api/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: huge });
    assert.equal(tooLarge.status, 413);
    assert.equal((await tooLarge.json()).error.code, 'ERR_BODY_TOO_LARGE');
    assert.equal((await origo.store.counts()).clientRecords, 0);
  });

  it('takes a batch as text/plain, as a page\'s beacon (navigator.sendBeacon with a string) sends it, on both routes', async () => {
    const a = clientRecord();
    const b = clientRecord();
    for (const [route, r] of [['/api/logs', a], ['/api/logs/v2', b]]) {
      const res = await fetch(`${origo.url}${route}`, { method: 'POST', headers: { 'content-type': 'text/plain;charset=UTF-8' }, body: JSON.stringify([r]) });
      assert.equal(res.status, 200, route);
      assert.deepEqual((await res.json()).stored, [r.id], route);
    }
    assert.equal((await origo.store.counts()).clientRecords, 2);
  });

  it('takes a gzipped batch (Content-Encoding: gzip, as ProxyClientLib sends a large one); the body cap counts the inflated bytes', async () => {
    const a = clientRecord();
    const res = await fetch(`${origo.url}/api/logs`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(JSON.stringify([a])) });
    assert.equal(res.status, 200);
    assert.deepEqual((await res.json()).stored, [a.id]);
    // a small compressed body that inflates past the cap is refused like a large plain one
    const bomb = gzipSync(JSON.stringify([clientRecord({ url: 'x'.repeat(LOGS_BODY_LIMIT_BYTES) })]));
    assert.ok(bomb.length < LOGS_BODY_LIMIT_BYTES / 100);
    const refused = await fetch(`${origo.url}/api/logs`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: bomb });
    assert.equal(refused.status, 413);
    assert.equal((await origo.store.counts()).clientRecords, 1);
  });

  it('POST /api/logs/v2 reads packet logs in columns: the record stored is the one sent as arrays; arrays still go', async () => {
    /** @type {Array<[number, number, number, number | null]>} */
    const log = [[10.5, 0, 1, 1], [12, 1, 0, 1], [12, 3, 1, null], [40.01, 2, 1, 3]];
    const viaColumns = clientRecord({ packetLog: null });
    const { packetLog: _, ...bare } = viaColumns;
    const asArrays = clientRecord({ packetLog: log });
    const res = await fetch(`${origo.url}/api/logs/v2`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ ...bare, packetLogColumns: packetLogColumns(log) }, asArrays]) });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { stored: [viaColumns.id, asArrays.id], duplicates: [], rejected: [] });
    const [a, b] = await Promise.all([viaColumns.id, asArrays.id].map((id) => origo.store.getClientRecord(id)));
    assert.deepEqual(a?.packetLog, log);
    assert.deepEqual(b?.packetLog, log);
    assert.equal(a && 'packetLogColumns' in a, false);
  });

  it('POST /api/logs/v2 rejects a record whose columns cannot be read, or that sends both forms, saying why; the rest is stored', async () => {
    const good = clientRecord();
    const both = { ...clientRecord(), packetLogColumns: packetLogColumns([[1, 0, 1, 1]]) };
    const { packetLog: _, ...bare } = clientRecord();
    const uneven = { ...bare, packetLogColumns: { dt: [1, 2], source: '0', useful: '11', ddof: [1, 1] } };
    const res = await fetch(`${origo.url}/api/logs/v2`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([both, good, uneven]) });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.deepEqual(body.stored, [good.id]);
    assert.deepEqual(body.rejected.map((/** @type {{index: number}} */ r) => r.index), [0, 2]);
    assert.match(body.rejected[0].reason, /send one/);
    assert.match(body.rejected[1].reason, /differ in length/);
    assert.equal((await origo.store.counts()).clientRecords, 1);
  });

  it('GET /healthz answers ok, unknown paths a JSON 404', async () => {
    const ok = await fetch(`${origo.url}/healthz`);
    assert.deepEqual([ok.status, await ok.json()], [200, { ok: true }]);
    const missing = await fetch(`${origo.url}/api/nope`);
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.code, 'ERR_NOT_FOUND');
  });
});

describe('origo: rate limit and trust proxy', () => {
  it('limits /api per client address; X-Forwarded-For is not trusted by default', async () => {
    const origo = await startTestOrigo({ rateLimitPerMinute: 3 });
    try {
      const statuses = [];
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${origo.url}/api/proxies`, { headers: { 'x-forwarded-for': `10.0.0.${i}` } });
        statuses.push(res.status);
        if (res.status === 429) assert.equal((await res.json()).error.code, 'ERR_RATE_LIMITED');
        else await res.arrayBuffer();
      }
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      assert.equal((await fetch(`${origo.url}/healthz`)).status, 200, 'health checks are not limited');
    } finally {
      await origo.close();
    }
  });
});
