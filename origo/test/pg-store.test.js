// What only the PostgreSQL store does: versioned migrations, several stores (Origos) on one database,
// CSV-only export, selection by a postgres:// db setting. The Store contract is in store-contract.test.js.
import assert from 'node:assert/strict';
import pg from 'pg';
import { openDuckDbStore, openPostgresStore, openStore } from '../index.js';
import { MIGRATIONS } from '../src/store/pg-migrations.js';
import { OUTLIERS_PER_BOX } from '../src/store/dashboard-sql.js';
import { BOXPLOT_TABLE } from '../src/store/tables.js';
import { GROUPINGS, METRICS, parseBoxplotQuery, parseFilter } from '../src/admin/dashboard-filter.js';
import { syntheticRecord } from '../src/seed/synthetic-records.js';
import { clientRecord, postLogs, startTestOrigo } from './helpers.js';
import { usePostgres } from '@mutp/testkit/postgres';

/**
 * A box with its outliers in value order: both engines pick the most extreme ones, but list equally distant
 * values in no fixed order. Quantiles compared to 1e-9 relative (the engines interpolate in doubles).
 * @param {any} b
 */
const sortedOutliers = (b) => ({ ...b, outliers: [...b.outliers].sort((x, y) => x - y),
  ...Object.fromEntries(['q1', 'median', 'q3'].map((k) => [k, b[k] === null ? null : Number(b[k].toPrecision(12))])) });

describe('origo: PostgreSQL store', function () {
  this.timeout(60_000);
  const server = usePostgres();

  it('runs its migrations once, in order, recorded by version, also when two Origos start together', async () => {
    const url = await server.freshDatabase();
    const [a, b] = await Promise.all([openPostgresStore({ url }), openPostgresStore({ url })]);
    await Promise.all([a.close(), b.close()]);
    const again = await openPostgresStore({ url });
    await again.close();
    const client = new pg.Client(url);
    await client.connect();
    try {
      const { rows } = await client.query('SELECT version FROM schema_migrations ORDER BY version');
      assert.deepEqual(rows.map((r) => r.version), MIGRATIONS.map((m) => m.version));
      assert.deepEqual(MIGRATIONS.map((m) => m.version), MIGRATIONS.map((_, i) => i + 1), 'versions are 1, 2, … with no gap');
    } finally {
      await client.end();
    }
  });

  it('the migration to the boxplot\'s narrow copy copies the records stored before it', async () => {
    const url = await server.freshDatabase();
    const records = Array.from({ length: 300 }, (_, i) => syntheticRecord(i, { seed: 3 }));
    const store = await openPostgresStore({ url });
    await store.insertClientRecords(records);
    const q = parseBoxplotQuery({ groupBy: 'nRate', metric: 'throughput', errors: 'include' });
    const before = await store.boxplot(q);
    await store.close();
    const c = new pg.Client(url);
    await c.connect();
    try {
      // back to version 2: no copy, no trigger
      await c.query(`DROP TABLE ${BOXPLOT_TABLE}; DROP FUNCTION ${BOXPLOT_TABLE}_copy() CASCADE; DELETE FROM schema_migrations WHERE version >= 3`);
      const again = await openPostgresStore({ url });
      try {
        assert.ok(before.length > 5);
        assert.deepEqual(await again.boxplot(q), before);
      } finally {
        await again.close();
      }
    } finally {
      await c.end();
    }
  });

  it('two stores on one database writing the same records concurrently store each exactly once', async () => {
    const url = await server.freshDatabase();
    const [a, b] = await Promise.all([openPostgresStore({ url }), openPostgresStore({ url })]);
    try {
      const recs = Array.from({ length: 200 }, () => clientRecord());
      const batches = [];
      for (let i = 0; i < recs.length; i += 20) batches.push(recs.slice(i, i + 20));
      const results = await Promise.all(batches.flatMap((batch) => [a.insertClientRecords(batch), b.insertClientRecords([...batch].reverse())]));
      const stored = results.flatMap((r) => r.stored);
      assert.equal(stored.length, recs.length);
      assert.equal(new Set(stored).size, recs.length);
      assert.equal(results.flatMap((r) => r.duplicates).length, recs.length);
      assert.deepEqual(await b.counts(), { clientRecords: 200, proxyRecords: 0, proxyStatus: 0 });
      const perProxyRows = (await a.listClientRecords({ limit: 1000 })).reduce((sum, r) => sum + r.perProxy.length, 0);
      assert.equal(perProxyRows, 400, 'per-proxy rows written once per stored record');
      const c = new pg.Client(url);
      await c.connect();
      try {
        const { rows } = await c.query(`SELECT count(*)::INTEGER AS n FROM ${BOXPLOT_TABLE}`);
        assert.equal(rows[0].n, 200, 'the boxplot\'s copy holds each stored record once');
      } finally {
        await c.end();
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('the boxplot (PostgreSQL reads sorted arrays, DuckDB joins fences) answers what DuckDB answers, for every grouping and metric', async () => {
    // Synthetic records span modes, n, chunk sizes, g/w (null for uncoded), loss buckets and rate mixes; a few
    // huge goodputs make more outliers than a box ships, and records without objectBytes make a null group.
    const records = Array.from({ length: 3000 }, (_, i) => syntheticRecord(i, { seed: 5 }));
    for (let i = 0; i < 50; i++) Object.assign(records[i], { mode: records[0].mode, n: records[0].n, netBytes: records[i].netBytes * (1000 + i) });
    for (let i = 50; i < 80; i++) delete records[i].objectBytes;
    const duck = await openDuckDbStore();
    const pgStore = await openPostgresStore({ url: await server.freshDatabase() });
    try {
      await duck.insertClientRecords(records);
      await pgStore.insertClientRecords(records);
      let boxes = 0;
      for (const groupBy of GROUPINGS) {
        for (const metric of Object.keys(METRICS)) {
          const q = parseBoxplotQuery({ groupBy, metric, errors: 'include' });
          const [d, p] = await Promise.all([duck.boxplot(q), pgStore.boxplot(q)]);
          assert.deepEqual(p.map(sortedOutliers), d.map(sortedOutliers), `${metric} by ${groupBy}`);
          boxes += d.length;
        }
      }
      assert.ok(boxes > 100, `compared ${boxes} boxes`);
      const byN = await pgStore.boxplot(parseBoxplotQuery({ groupBy: 'n', metric: 'goodput' }));
      assert.ok(byN.some((b) => b.outlierCount > OUTLIERS_PER_BOX && b.outliers.length === OUTLIERS_PER_BOX), 'a box with more outliers than it ships');
      const byChunk = await pgStore.boxplot(parseBoxplotQuery({ groupBy: 'chunk', metric: 'goodput' }));
      assert.ok(byChunk.some((b) => b.group === 'none'), 'records without objectBytes form their own group');
      // Small boxes full of ties (n = 7…46, one box each): zero IQRs, whiskers next to the quartiles, few values.
      const ties = [];
      for (let n = 7; n < 47; n++) {
        for (let k = 0; k < 2 + ((n * 7) % 11); k++) ties.push(clientRecord({ n, durationMs: 1000, netBytes: [0, 10, 10, 10, 10, 11, 30, 10, 2][(n * k + k) % 9] * 1000 }));
      }
      // n = 47: q1 = 67.5 between 0 and 90, fence 18.75, so the low whisker (90) is the value just above q1.
      for (const v of [0, 0, 90, 100, 100, 100, 100, 100]) ties.push(clientRecord({ n: 47, durationMs: 1000, netBytes: v * 1000 }));
      await Promise.all([duck.insertClientRecords(ties), pgStore.insertClientRecords(ties)]);
      const q = parseBoxplotQuery({ groupBy: 'n', metric: 'goodput' });
      const [d, p] = await Promise.all([duck.boxplot(q), pgStore.boxplot(q)]);
      assert.equal(d.filter((b) => b.order >= 7).length, 41);
      assert.equal(p.find((b) => b.order === 47)?.whiskerLow, 90000);
      assert.deepEqual(p.map(sortedOutliers), d.map(sortedOutliers), 'boxes of ties');
      // every filter at once: PostgreSQL reads the narrow copy, which must hold every column the filter uses
      const filtered = { from: '2018-09-01', to: '2019-02-01T12:00:00Z',
        minBytes: '300000', maxBytes: '1800000', mode: 'coded,uncoded', n: '2,4,6', w: '240,480', g: '24', feedbackEvery: '8', errors: 'exclude' };
      let filteredBoxes = 0;
      for (const groupBy of GROUPINGS) {
        const fq = parseBoxplotQuery({ groupBy, metric: 'goodput', ...filtered });
        const [fd, fp] = await Promise.all([duck.boxplot(fq), pgStore.boxplot(fq)]);
        assert.deepEqual(fp.map(sortedOutliers), fd.map(sortedOutliers), `filtered, by ${groupBy}`);
        filteredBoxes += fd.length;
      }
      assert.ok(filteredBoxes > 0, 'the filter leaves some boxes');
    } finally {
      await Promise.all([duck.close(), pgStore.close()]);
    }
  });

  it('exports CSV; Parquet is refused with ERR_EXPORT_UNSUPPORTED (it needs DuckDB)', async () => {
    const store = await openPostgresStore({ url: await server.freshDatabase() });
    try {
      await assert.rejects(store.exportRecords({ filter: parseFilter({}), format: 'parquet', path: '/tmp/never.parquet' }), { code: 'ERR_EXPORT_UNSUPPORTED' });
    } finally {
      await store.close();
    }
  });

  it('an unreachable database fails the start with ERR_STORE_OPEN, without the password in the message', async () => {
    const url = server.url.replace('mutp@', 'mutp:hunter2@').replace(/:\d+\//, ':1/');
    const err = await openStore(url).then(() => null, (e) => e);
    assert.equal(err?.code, 'ERR_STORE_OPEN');
    assert.ok(!err.message.includes('hunter2'), err.message);
  });

  it('Origo picks PostgreSQL for a postgres:// db setting: what one Origo stores, another reads', async () => {
    const url = await server.freshDatabase();
    const first = await startTestOrigo({ db: url });
    const c = clientRecord();
    try {
      assert.equal((await postLogs(first.url, [c])).status, 200);
    } finally {
      await first.close();
    }
    const second = await startTestOrigo({ db: url.replace(/^postgres:/, 'postgresql:') });
    try {
      assert.deepEqual(await second.store.counts(), { clientRecords: 1, proxyRecords: 0, proxyStatus: 0 });
      assert.equal((await postLogs(second.url, [c])).body.duplicates.length, 1, 'a re-post through the other Origo is a duplicate');
    } finally {
      await second.close();
    }
  });
});
