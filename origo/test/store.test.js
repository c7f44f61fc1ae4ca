import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDuckDbStore } from '../index.js';
import { clientRecord, connectGoodProxy, emitWithAck, postLogs, proxyRecord, startTestOrigo } from './helpers.js';

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
