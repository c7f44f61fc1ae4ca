// Crash safety: Origo is SIGKILLed in the middle of a campaign and restarted on the same DuckDB
// file; every log record a client or a proxy produced must be stored exactly once.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DuckDBInstance } from '@duckdb/node-api';
import { proxyToken } from '@mutp/origo';
import { startProxy } from '@mutp/proxy';
import { createClient } from '@mutp/proxyclientlib';
import { startDemoOrigin } from '@mutp/demo/origin';
import { waitForProxies } from '@mutp/testkit/fleet';
import { freePort, spawnOrigo } from '@mutp/testkit/origo-process';

const PROXIES = 3; // enough that each download yields several proxy records
const DOWNLOADS_BEFORE_KILL = 12; // records are flowing (and some in flight) when Origo dies
const DOWNLOADS_WHILE_DOWN = 8; // records that can only be stored after the restart
const DOWNLOADS_AFTER_RESTART = 6;
const KILL_CYCLES = 2; // a second kill hits a database that was itself recovered from a WAL
const KILL_AFTER_MS = 150; // into a running batch of downloads: records are being posted and committed
const DRAIN_TIMEOUT_MS = 40_000; // client backoff is capped at 1 s below; proxies' reconnect at 1 s
const silent = { info() {}, warn() {}, error() {} };

/** @param {string} db @param {string} table */
async function idCounts(db, table) {
  const instance = await DuckDBInstance.create(db);
  const conn = await instance.connect();
  try {
    const r = await conn.runAndReadAll(`SELECT lower(id::VARCHAR) AS id, count(*)::INTEGER AS n FROM ${table} GROUP BY 1`);
    return new Map(r.getRowObjectsJS().map((row) => [/** @type {string} */ (row.id), Number(row.n)]));
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

describe('hardening: Origo SIGKILL mid-campaign loses no log record and stores none twice', function () {
  this.timeout(180_000);
  const dir = mkdtempSync(join(tmpdir(), 'mutp-sigkill-'));
  const db = join(dir, 'origo.duckdb');
  const secret = randomBytes(16).toString('hex');
  const adminPassword = randomBytes(12).toString('hex');
  /** @type {Awaited<ReturnType<typeof spawnOrigo>> | null} */ let origo = null;
  /** @type {Awaited<ReturnType<typeof startDemoOrigin>>} */ let origin;
  /** @type {Awaited<ReturnType<typeof startProxy>>[]} */ const proxies = [];
  /** @type {ReturnType<typeof createClient>} */ let client;
  const proxyIdsSent = new Set();
  const clientIdsSent = new Set();

  after(async () => {
    client?.close();
    await Promise.all(proxies.map((p) => p.close()));
    if (origo && origo.child.exitCode === null && origo.child.signalCode === null) { origo.child.kill('SIGKILL'); await origo.exited; }
    await origin?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores every client and proxy record exactly once across a SIGKILL + restart', async () => {
    const port = await freePort();
    origo = await spawnOrigo({ port, db, secret, adminPassword });
    origin = await startDemoOrigin();
    for (let i = 1; i <= PROXIES; i++) {
      const id = `kill-${i}`;
      const p = await startProxy({ id, token: proxyToken(secret, id), host: '127.0.0.1', port: 0, origoUrl: origo.url,
        allowedHosts: [`127.0.0.1:${origin.port}`], allowPrivate: true, logger: silent });
      // Every record the proxy produces passes through its queue: remember its id.
      const push = p.queue.push.bind(p.queue);
      p.queue.push = (rec) => { proxyIdsSent.add(rec.id.toLowerCase()); push(rec); };
      proxies.push(p);
    }
    const list = (await waitForProxies(origo.url, PROXIES)).map((/** @type {any} */ p) => ({ id: p.id, url: p.url }));
    client = createClient({ origo: origo.url, logger: silent, logSender: { retryBaseMs: 100, retryMaxMs: 1000 } });

    let k = 0;
    /** @param {number} count */
    const campaign = async (count) => {
      for (let i = 0; i < count; i++, k++) {
        const mode = k % 2 === 0 ? 'parallel-http' : 'range-http';
        const { data, stats } = await client.download(`${origin.url}/media/demo-${64 + k}KB.bin`, { mode, proxies: list });
        assert.equal(data.byteLength, (64 + k) * 1024);
        clientIdsSent.add(stats.id.toLowerCase());
      }
    };

    for (let cycle = 0; cycle < KILL_CYCLES; cycle++) {
      const running = campaign(DOWNLOADS_BEFORE_KILL);
      await new Promise((r) => setTimeout(r, KILL_AFTER_MS));
      origo.child.kill('SIGKILL'); // no clean close: DuckDB must recover from its WAL
      const dead = /** @type {any} */ (await origo.exited);
      assert.equal(dead.signal, 'SIGKILL');
      await running;
      await campaign(DOWNLOADS_WHILE_DOWN); // proxies are given explicitly, so downloads go on without Origo
      assert.ok(client.logCounters().failures + proxies.reduce((s, p) => s + p.queue.size, 0) > 0, 'some records had to wait for Origo');
      origo = await spawnOrigo({ port, db, secret, adminPassword });
    }
    await campaign(DOWNLOADS_AFTER_RESTART);

    assert.equal(await client.flushLogs(DRAIN_TIMEOUT_MS), true, 'client log queue drained');
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    while (proxies.some((p) => p.queue.size > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(proxies.map((p) => p.queue.size), proxies.map(() => 0), 'proxy log queues drained');
    assert.equal(proxies.reduce((s, p) => s + p.queue.dropped, 0), 0, 'no proxy dropped a record');

    origo.child.kill('SIGTERM'); // clean stop, so this process can open the file
    await origo.exited;
    origo = null;

    const total = KILL_CYCLES * (DOWNLOADS_BEFORE_KILL + DOWNLOADS_WHILE_DOWN) + DOWNLOADS_AFTER_RESTART;
    assert.equal(clientIdsSent.size, total);
    assert.ok(proxyIdsSent.size >= total, `each download produced proxy records (${proxyIdsSent.size})`);
    for (const [table, sent] of /** @type {const} */ ([['client_records', clientIdsSent], ['proxy_records', proxyIdsSent]])) {
      const stored = await idCounts(db, table);
      const missing = [...sent].filter((id) => !stored.has(id));
      const twice = [...stored].filter(([, n]) => n !== 1);
      const unknown = [...stored.keys()].filter((id) => !sent.has(id));
      assert.deepEqual({ missing, twice, unknown }, { missing: [], twice: [], unknown: [] }, table);
    }
  });
});
