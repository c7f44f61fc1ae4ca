import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDuckDbStore } from '../index.js';
import { clientRecord, connectGoodProxy, emitWithAck, postLogs, proxyRecord, startTestOrigo } from './helpers.js';

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

  it('answers grouped quantiles of a metric, leaving out failed downloads', async () => {
    const store = await openDuckDbStore();
    try {
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
    } finally {
      await store.close();
    }
  });

  it('a closed store refuses writes with ERR_STORE_CLOSED', async () => {
    const store = await openDuckDbStore();
    await store.close();
    await assert.rejects(store.insertClientRecords([clientRecord()]), { code: 'ERR_STORE_CLOSED' });
  });
});
