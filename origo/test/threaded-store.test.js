// The DuckDB store on its own thread (src/store/threaded-store.js): the same answers as the store
// (store-contract.test.js runs the contract on it), and what is its own: a coded refusal when the
// database cannot open, calls after close or after the thread died fail with their codes, and an
// idle store does not hold the process while a call waiting for its answer does.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openDuckDbStoreOnThread } from '../index.js';
import { clientRecord } from './helpers.js';
import { parseFilter } from '../src/admin/dashboard-filter.js';

const run = promisify(execFile);

describe('origo store on its own thread', function () {
  this.timeout(30_000);
  /** @type {string} */
  let dir;
  before(async () => { dir = await mkdtemp(join(tmpdir(), 'origo-thread-')); });
  after(async () => { await rm(dir, { recursive: true, force: true }); });

  it('stores in a file and reads it back after a reopen; close is safe twice, and a call after it is refused', async () => {
    const path = join(dir, 'a.duckdb');
    const r = clientRecord();
    const s = await openDuckDbStoreOnThread({ path });
    assert.deepEqual(await s.insertClientRecords([r]), { stored: [r.id], duplicates: [] });
    await Promise.all([s.close(), s.close()]);
    await assert.rejects(s.counts(), { code: 'ERR_STORE_CLOSED' });
    const again = await openDuckDbStoreOnThread({ path });
    try {
      assert.equal((await again.counts()).clientRecords, 1);
      assert.deepEqual((await again.listClientRecords()).map((x) => x.id), [r.id]);
    } finally {
      await again.close();
    }
  });

  it('a database that cannot open is refused with ERR_STORE_OPEN', async () => {
    const notADatabase = join(dir, 'junk.duckdb');
    await writeFile(notADatabase, 'not a database file, but long enough to be read as one '.repeat(200));
    await assert.rejects(openDuckDbStoreOnThread({ path: notADatabase }), { code: 'ERR_STORE_OPEN' });
  });

  it('an error in the database comes back with its code; the thread lives on', async () => {
    const s = await openDuckDbStoreOnThread();
    try {
      await assert.rejects(s.exportRecords({ filter: parseFilter({}), format: 'csv', path: 'bad path;' }), { code: 'ERR_BAD_PATH' });
      assert.equal((await s.counts()).clientRecords, 0);
    } finally {
      await s.close();
    }
  });

  it('an idle store does not hold the process; a call waiting for its answer does, and it is answered', async () => {
    const script = `
      import { openDuckDbStoreOnThread } from ${JSON.stringify(new URL('../index.js', import.meta.url).href)};
      const s = await openDuckDbStoreOnThread();
      s.counts().then((c) => console.log('answered', c.clientRecords));
    `;
    const file = join(dir, 'idle.mjs');
    await writeFile(file, script);
    const { stdout } = await run(process.execPath, [file], { timeout: 20_000 });
    assert.equal(stdout.trim(), 'answered 0', 'the process waited for the answer, then exited without close()');
  });
});
