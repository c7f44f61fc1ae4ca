// The Store interface's contract (src/store/store-interface.js), run against every backend: the embedded
// DuckDB and PostgreSQL (a real server started by the test; skipped when not installed, failing under CI=true).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDuckDbStore, openDuckDbStoreOnThread, openPostgresStore } from '../index.js';
import { parseFilter } from '../src/admin/dashboard-filter.js';
import { clientRecord, proxyRecord, proxyStatus } from './helpers.js';
import { usePostgres } from '@mutp/testkit/postgres';

/** @type {{ name: string, setup: () => { open: () => Promise<any> } }[]} */
const BACKENDS = [
  { name: 'DuckDB', setup: () => ({ open: () => openDuckDbStore() }) },
  { name: 'DuckDB on its own thread', setup: () => ({ open: () => openDuckDbStoreOnThread() }) },
  {
    name: 'PostgreSQL',
    setup() {
      const server = usePostgres();
      return { open: async () => openPostgresStore({ url: await server.freshDatabase() }) };
    },
  },
];

const ALL = parseFilter({ errors: 'include' });

for (const backend of BACKENDS) {
  describe(`origo store contract: ${backend.name}`, function () {
    this.timeout(30_000);
    const { open } = backend.setup();
    /** @type {any} */
    let store;
    beforeEach(async () => { store = await open(); });
    afterEach(async () => { await store.close(); });

    it('stores a record once by id: a repeat (also within one batch, any case) is reported as a duplicate', async () => {
      const a = clientRecord();
      const b = clientRecord();
      assert.deepEqual(await store.insertClientRecords([a]), { stored: [a.id], duplicates: [] });
      const again = await store.insertClientRecords([{ ...a, id: a.id.toUpperCase() }, b, b]);
      assert.deepEqual(again, { stored: [b.id], duplicates: [a.id.toUpperCase(), b.id] });
      const p = proxyRecord('p1');
      assert.deepEqual(await store.insertProxyRecords([p, p]), { stored: [p.id], duplicates: [p.id] });
      assert.deepEqual(await store.counts(), { clientRecords: 2, proxyRecords: 1, proxyStatus: 0 });
    });

    it('reads records back as they were sent (per-proxy rows, logs, params, request steps, unknown keys)', async () => {
      const c = clientRecord({ futureField: { x: [1, 2] }, requestSteps: { lookupMs: 40.5, answerMs: 12, originMs: 3, prepareMs: null, decidedMs: 12.5 } });
      const p = proxyRecord('p1', { error: { code: 'ERR_ORIGIN', message: 'boom' } });
      await store.insertClientRecords([c]);
      await store.insertProxyRecords([p]);
      assert.deepEqual((await store.listProxyRecords({ proxyId: 'p1' }))[0], p);
      assert.deepEqual(await store.listProxyRecords({ proxyId: 'other' }), []);
      const [back] = await store.listClientRecords();
      for (const key of ['id', 'startedAt', 'mode', 'n', 'proxyIds', 'objectBytes', 'params', 'packetLog', 'feedbackLog', 'futureField', 'verified']) {
        assert.deepEqual(back[key], c[key], key);
      }
      assert.deepEqual(back.perProxy.map((/** @type {any} */ x) => [x.proxyId, x.bytes, x.error?.code ?? null]),
        [['p1', 750, null], ['p2', 500, 'ERR_PEER_GONE']]);
      const detail = await store.getClientRecord(c.id);
      assert.deepEqual(detail.packetLog, c.packetLog);
      assert.equal(detail.rateMix, '2x?');
      assert.equal(await store.getClientRecord('00000000-0000-4000-8000-000000000000'), null);
    });

    it('a batch is atomic: a row failing in the database stores nothing of its batch (ERR_STORE_WRITE)', async () => {
      const good = clientRecord();
      const bad = clientRecord({ perProxy: [{ proxyId: 'p1', bytes: 'not a number', packets: 1, duplicates: 0, error: null }] });
      await assert.rejects(store.insertClientRecords([good, bad]), { code: 'ERR_STORE_WRITE' });
      assert.deepEqual(await store.counts(), { clientRecords: 0, proxyRecords: 0, proxyStatus: 0 });
      assert.deepEqual(await store.insertClientRecords([good]), { stored: [good.id], duplicates: [] });
    });

    it('answers grouped quantiles of a metric, leaving out failed downloads', async () => {
      const recs = [1, 2, 3, 4].map((s) => clientRecord({ mode: 'coded', n: 2, netBytes: 1000 * s, durationMs: 1000 }));
      recs.push(clientRecord({ mode: 'uncoded', n: 4, netBytes: 500, durationMs: 1000 }));
      recs.push(clientRecord({ mode: 'coded', n: 2, netBytes: 1e9, durationMs: 1000, error: { code: 'ERR_X' } }));
      await store.insertClientRecords(recs);
      const rows = await store.quantilesByGroup({ metric: 'goodput_bps', groupBy: ['mode', 'n'], quantiles: [0, 0.5, 1] });
      assert.deepEqual(rows, [
        { mode: 'coded', n: 2, count: 4, quantiles: [1000, 2500, 4000] },
        { mode: 'uncoded', n: 4, count: 1, quantiles: [500, 500, 500] },
      ]);
      await assert.rejects(store.quantilesByGroup({ metric: 'goodput_bps; DROP TABLE client_records', groupBy: [] }), { code: 'ERR_BAD_QUERY' });
      await assert.rejects(store.quantilesByGroup({ metric: 'goodput_bps', groupBy: ['mode', '1=1'] }), { code: 'ERR_BAD_QUERY' });
    });

    it('boxplot: quartiles, whiskers at 1.5·IQR and outliers computed in the database; chunk groups by log2 KiB', async () => {
      const MiB = 1024 * 1024;
      const recs = [1000, 2000, 3000, 4000, 5000, 1e6].map((goodput) =>
        clientRecord({ n: 2, objectBytes: MiB, netBytes: goodput, grossBytes: goodput, durationMs: 1000 }));
      await store.insertClientRecords(recs);
      for (const groupBy of ['n', 'chunk']) {
        const boxes = await store.boxplot({ metric: 'goodput', groupBy, filter: parseFilter({}) });
        assert.deepEqual(boxes, [{
          mode: 'coded', group: groupBy === 'n' ? '2' : '10', order: groupBy === 'n' ? 2 : 10, count: 6,
          q1: 2250, median: 3500, q3: 4750, whiskerLow: 1000, whiskerHigh: 5000, outlierCount: 1, outliers: [1e6],
        }], groupBy);
      }
    });

    it('downloads page: filter, newest first, total; rows by id; CSV export with a header', async () => {
      const t0 = new Date('2025-03-01T12:00:00.000Z');
      const older = clientRecord({ n: 2 });
      const newer = clientRecord({ n: 4, mode: 'uncoded', url: 'http://h/a,"b".mp4' });
      const failed = clientRecord({ n: 4, error: { code: 'ERR_X', message: 'x' } });
      await store.insertClientRecords([older], { receivedAt: t0 });
      await store.insertClientRecords([newer, failed], { receivedAt: new Date(t0.getTime() + 1000) });
      const all = await store.listDownloads({ filter: ALL, limit: 10, offset: 0 });
      assert.equal(all.total, 3);
      assert.equal(all.rows.at(-1).id, older.id);
      assert.equal(all.rows.at(-1).received_at, t0.getTime());
      const n4ok = await store.listDownloads({ filter: parseFilter({ n: '4' }), limit: 10, offset: 0 });
      assert.deepEqual([n4ok.total, n4ok.rows.map((/** @type {any} */ r) => r.id)], [1, [newer.id]]);
      assert.equal(n4ok.rows[0].object_bytes, 1000);
      assert.deepEqual((await store.downloadsByIds([older.id])).map((/** @type {any} */ r) => [r.id, r.n, r.has_timeline]), [[older.id, 2, true]]);

      const dir = await mkdtemp(join(tmpdir(), 'store-export-'));
      try {
        const path = join(dir, 'x.csv');
        await store.exportRecords({ filter: ALL, format: 'csv', path });
        const lines = (await readFile(path, 'utf8')).trim().split('\n');
        assert.equal(lines.length, 4);
        assert.match(lines[0], /^id,client_id,started_at,received_at,mode,n,proxy_ids,/);
        assert.ok(lines.some((l) => l.includes('"http://h/a,""b"".mp4"')), 'a field with a comma and quotes is quoted');
        assert.ok(lines.some((l) => l.startsWith(`${older.id},client-1,2025-03-01 12:00:00`)));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('keeps proxy statuses and answers each proxy\'s latest', async () => {
      const t0 = new Date('2025-03-01T12:00:00.000Z');
      await store.insertProxyStatus([proxyStatus('p1', { activeSessions: 1 }), proxyStatus('p22')], { receivedAt: t0 });
      await store.insertProxyStatus([proxyStatus('p1', { activeSessions: 7, location: { lat: 47.5, lon: 19 } })], { receivedAt: new Date(t0.getTime() + 5) });
      const latest = await store.latestProxyStatus();
      assert.deepEqual(latest.map((/** @type {any} */ s) => [s.proxyId, s.activeSessions, s.receivedAt, s.location]),
        [['p1', 7, t0.getTime() + 5, { lat: 47.5, lon: 19 }], ['p22', 0, t0.getTime(), null]]);
      assert.equal((await store.counts()).proxyStatus, 3);
    });

    it('a closed store refuses writes with ERR_STORE_CLOSED', async () => {
      await store.close();
      await assert.rejects(store.insertClientRecords([clientRecord()]), { code: 'ERR_STORE_CLOSED' });
    });
  });
}
