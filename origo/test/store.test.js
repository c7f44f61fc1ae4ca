import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { openDuckDbStore } from '../index.js';
import { DUCKDB } from '../src/store/sql-dialect.js';
import { KEYED_TABLES, createTablesSql } from '../src/store/tables.js';
import { clientRecord, connectGoodProxy, emitWithAck, postLogs, proxyRecord, proxyStatus, startTestOrigo } from './helpers.js';

// What only the DuckDB file store does (a file, reopened); the Store contract is in store-contract.test.js.
describe('origo: DuckDB store', () => {
  /** @type {string} */
  let dir;
  beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'origo-store-')); });
  afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

  it('survives close and reopen of an on-disk file; ids stay unique across the restart', async () => {
    const path = join(dir, 'nested', 'logs.duckdb');
    const c = clientRecord();
    const p = proxyRecord('p1');
    const first = await openDuckDbStore({ path });
    assert.deepEqual(await first.insertClientRecords([c]), { stored: [c.id], duplicates: [] });
    assert.deepEqual(await first.insertProxyRecords([p]), { stored: [p.id], duplicates: [] });
    await first.close();

    const second = await openDuckDbStore({ path });
    try {
      assert.deepEqual(await second.counts(), { clientRecords: 1, proxyRecords: 1, proxyStatus: 0 });
      assert.deepEqual((await second.listProxyRecords())[0], p);
      assert.equal((await second.listClientRecords())[0].id, c.id);
      assert.deepEqual(await second.insertClientRecords([c]), { stored: [], duplicates: [c.id] });
    } finally {
      await second.close();
    }
  });

  it('a file whose record tables an older Origo keyed by id is opened without those keys: its records kept, ids still once each', async () => {
    const path = join(dir, 'keyed.duckdb');
    const c = clientRecord({ perProxy: [{ proxyId: 'p1', bytes: 10, packets: 1, duplicates: 0, error: null }] });
    const p = proxyRecord('p1');
    const fresh = await openDuckDbStore({ path });
    assert.deepEqual(await fresh.insertClientRecords([c]), { stored: [c.id], duplicates: [] });
    assert.deepEqual(await fresh.insertProxyRecords([p]), { stored: [p.id], duplicates: [] });
    await fresh.close();
    // the file as an older Origo made it: the same tables, keyed
    const old = await DuckDBInstance.create(path);
    const conn = await old.connect();
    const typesOf = async (/** @type {string} */ table) => (await conn.runAndReadAll(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = '${table}' ORDER BY ordinal_position`)).getRowObjectsJS();
    const before = { client: await typesOf('client_records'), proxy: await typesOf('proxy_records') };
    for (const table of KEYED_TABLES) await conn.run(`ALTER TABLE ${table} RENAME TO ${table}_plain`);
    for (const sql of createTablesSql(DUCKDB, { keyed: true })) await conn.run(sql);
    for (const table of KEYED_TABLES) await conn.run(`INSERT INTO ${table} SELECT * FROM ${table}_plain`);
    for (const table of KEYED_TABLES) await conn.run(`DROP TABLE ${table}_plain`);
    const keys = async () => Number((await conn.runAndReadAll("SELECT count(*) AS n FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY'")).getRowObjectsJS()[0].n);
    assert.equal(await keys(), 2, 'the old file has its keys');
    conn.closeSync();
    old.closeSync();

    const first = await openDuckDbStore({ path }); // drops the keys
    try {
      assert.deepEqual(await first.insertClientRecords([c]), { stored: [], duplicates: [c.id] });
      const d = clientRecord();
      assert.deepEqual(await first.insertClientRecords([d, d]), { stored: [d.id], duplicates: [d.id] });
    } finally {
      await first.close();
    }
    const again = await openDuckDbStore({ path });
    try {
      assert.deepEqual(await again.insertClientRecords([c]), { stored: [], duplicates: [c.id] });
      assert.deepEqual(await again.insertProxyRecords([p, p]), { stored: [], duplicates: [p.id, p.id] });
      assert.deepEqual(await again.counts(), { clientRecords: 2, proxyRecords: 1, proxyStatus: 0 });
      assert.deepEqual((await again.getClientRecord(c.id))?.perProxy?.map((/** @type {any} */ x) => x.bytes), [10]);
      assert.deepEqual((await again.listProxyRecords())[0], p);
    } finally {
      await again.close();
    }
    const after = await DuckDBInstance.create(path);
    const check = await after.connect();
    try {
      assert.equal(Number((await check.runAndReadAll("SELECT count(*) AS n FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY'")).getRowObjectsJS()[0].n), 0);
      const cols = async (/** @type {string} */ table) => (await check.runAndReadAll(
        `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = '${table}' ORDER BY ordinal_position`)).getRowObjectsJS();
      assert.deepEqual({ client: await cols('client_records'), proxy: await cols('proxy_records') }, before, 'the same columns, types and order');
    } finally {
      check.closeSync();
      after.closeSync();
    }
  });

  it('inserts that arrive together share one transaction, and each caller gets its own stored and duplicates', async () => {
    const store = await openDuckDbStore();
    try {
      const [a, b, c] = [proxyRecord('p1'), proxyRecord('p2'), proxyRecord('p3')];
      const before = store.transactions;
      const results = await Promise.all([store.insertProxyRecords([a]), store.insertProxyRecords([b, a]), store.insertProxyRecords([c])]);
      assert.deepEqual(results, [{ stored: [a.id], duplicates: [] }, { stored: [b.id], duplicates: [a.id] }, { stored: [c.id], duplicates: [] }]);
      assert.equal(store.transactions - before, 1);
      assert.deepEqual((await store.counts()).proxyRecords, 3);
    } finally {
      await store.close();
    }
  });

  it('an insert into a quiet table commits at once; those close behind it wait to share the next transaction', async () => {
    const store = await openDuckDbStore();
    try {
      const [a, b, c] = [proxyRecord('p1'), proxyRecord('p2'), proxyRecord('p3')];
      const before = store.transactions;
      const first = store.insertProxyRecords([a]); // nothing came before it: no one to wait for
      await new Promise((r) => setTimeout(r, 2));
      const rest = [store.insertProxyRecords([b]), store.insertProxyRecords([c])]; // within GROUP_COMMIT_MS of it
      assert.deepEqual(await Promise.all([first, ...rest]), [a, b, c].map((r) => ({ stored: [r.id], duplicates: [] })));
      assert.equal(store.transactions - before, 2, 'the first alone, then the two behind it together');
    } finally {
      await store.close();
    }
  });

  it('a batch the database refuses fails only its own caller, not the inserts it was grouped with', async () => {
    const store = await openDuckDbStore();
    try {
      const good = [proxyRecord('p1'), proxyRecord('p2')];
      const bad = proxyRecord('p3', { id: 'not-a-uuid' }); // Origo's schema refuses it; the store is the last guard
      const [r1, r2, r3] = await Promise.allSettled([store.insertProxyRecords([good[0]]), store.insertProxyRecords([bad]), store.insertProxyRecords([good[1]])]);
      assert.deepEqual(r1, { status: 'fulfilled', value: { stored: [good[0].id], duplicates: [] } });
      assert.equal(r2.status, 'rejected');
      assert.equal(/** @type {any} */ (r2).reason.code, 'ERR_STORE_WRITE');
      assert.deepEqual(r3, { status: 'fulfilled', value: { stored: [good[1].id], duplicates: [] } });
      assert.deepEqual((await store.listProxyRecords()).map((r) => r.id).sort(), good.map((r) => r.id).sort());
    } finally {
      await store.close();
    }
  });

  it('proxy statuses that arrive together share one transaction, each row with its own time; a bad one fails only its caller', async () => {
    const store = await openDuckDbStore();
    try {
      const t0 = new Date('2026-01-01T00:00:00Z');
      const at = (/** @type {number} */ s) => new Date(t0.getTime() + s * 1000);
      const before = store.transactions;
      await Promise.all([
        store.insertProxyStatus([proxyStatus('p1', { activeSessions: 1 })], { receivedAt: at(1) }),
        store.insertProxyStatus([proxyStatus('p2', { activeSessions: 2 }), proxyStatus('p3', { activeSessions: 3 })], { receivedAt: at(2) }),
      ]);
      assert.equal(store.transactions - before, 1, 'one transaction for both inserts');
      const latest = await store.latestProxyStatus();
      assert.deepEqual(latest.map((s) => [s.proxyId, s.activeSessions, new Date(s.receivedAt).getTime()]),
        [['p1', 1, at(1).getTime()], ['p2', 2, at(2).getTime()], ['p3', 3, at(2).getTime()]]);

      const [good, bad] = await Promise.allSettled([
        store.insertProxyStatus([proxyStatus('p4')]),
        store.insertProxyStatus([proxyStatus('p5', { activeSessions: 1.5 })]), // not an integer: the column refuses it
      ]);
      assert.equal(good.status, 'fulfilled');
      assert.equal(bad.status, 'rejected');
      assert.equal(/** @type {any} */ (bad).reason.code, 'ERR_STORE_WRITE');
      assert.deepEqual((await store.latestProxyStatus()).map((s) => s.proxyId), ['p1', 'p2', 'p3', 'p4']);
    } finally {
      await store.close();
    }
  });

  it('close() commits the inserts still waiting for their group: none is lost', async () => {
    const path = join(dir, 'waiting.duckdb');
    const store = await openDuckDbStore({ path });
    const c = clientRecord();
    const inserted = store.insertClientRecords([c]);
    const status = store.insertProxyStatus([proxyStatus('p1')]);
    await store.close();
    assert.deepEqual(await inserted, { stored: [c.id], duplicates: [] });
    await status;
    const again = await openDuckDbStore({ path });
    try {
      assert.equal((await again.listClientRecords())[0].id, c.id);
      assert.deepEqual((await again.latestProxyStatus()).map((s) => s.proxyId), ['p1']);
    } finally {
      await again.close();
    }
  });

  it('uses the configured DB file path (startOrigo db), and its data is there after close', async () => {
    const path = join(dir, 'configured.duckdb');
    const origo = await startTestOrigo({ db: path });
    const c = clientRecord();
    const socket = await connectGoodProxy(origo.url, 'p9');
    const p = proxyRecord('p9');
    try {
      assert.equal((await postLogs(origo.url, [c])).status, 200);
      assert.equal(/** @type {any} */ (await emitWithAck(socket, 'logs', [p])).ok, true);
    } finally {
      socket.close();
      await origo.close();
    }
    assert.ok(existsSync(path), 'the database file is where it was configured');
    const reopened = await openDuckDbStore({ path });
    try {
      assert.deepEqual(await reopened.counts(), { clientRecords: 1, proxyRecords: 1, proxyStatus: 0 });
    } finally {
      await reopened.close();
    }
  });
});
