// Two Origo processes on one PostgreSQL as one service, with real proxies spread over them (each told
// both URLs) and a client asking only one: downloads in every mode through proxies registered with
// either Origo (tickets from one accepted by proxies of the other), every record stored exactly once;
// then one Origo SIGKILLed mid-ingest while clients and proxies keep posting through the other.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { proxyToken } from '@mutp/origo';
import { clientRecord, postLogs } from '@mutp/origo/test-helpers';
import { usePostgres } from '@mutp/testkit/postgres';
import { startProxy } from '@mutp/proxy';
import { createClient } from '@mutp/proxyclientlib';
import { startDemoOrigin } from '@mutp/demo/origin';
import { freePort, spawnOrigo } from '@mutp/testkit/origo-process';
import { waitForProxies } from '@mutp/testkit/fleet';

const MODES = ['parallel-http', 'range-http', 'uncoded', 'coded'];
const PROXIES = 4;
const silent = { info() {}, warn() {}, error() {} };

/** @param {string} url @param {string} sql */
async function queryOne(url, sql) {
  const c = new pg.Client(url);
  await c.connect();
  try {
    return (await c.query(sql)).rows[0];
  } finally {
    await c.end();
  }
}

/** Polls until check() is truthy or the deadline passes. @param {() => Promise<unknown>} check @param {number} ms @param {string} what */
async function until(check, ms, what) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Two posters like the extension's log queue: batches of fresh records, a batch not acked re-sent to the
 * next Origo until one takes it. stop() resolves with every id sent.
 * @param {() => string[]} urls  the Origos, read at each attempt (a restarted one keeps its URL)
 */
function startPosting(urls) {
  /** @type {string[]} */
  const sent = [];
  let stopped = false;
  const state = { acked: 0, failovers: 0, stop: async () => { stopped = true; await Promise.all(loops); return sent; } };
  const poster = async (/** @type {number} */ first) => {
    let target = first;
    while (!stopped) {
      const batch = Array.from({ length: 25 }, () => clientRecord());
      sent.push(...batch.map((r) => r.id));
      for (;;) {
        const list = urls();
        const res = await postLogs(list[target % list.length], batch).catch(() => null);
        if (res?.status === 200) { state.acked += res.body.stored.length + res.body.duplicates.length; break; }
        target++;
        state.failovers++;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const loops = [poster(0), poster(1)];
  return state;
}

/**
 * Sources that served a download and left no proxy record of it. A source of an HTTP mode counts
 * when the client's record says it delivered bytes (Range-split's tail may finish a slow source's
 * range before that source was even asked); every source of an MUTP download counts.
 * @param {string} db @param {{id: string, mode: string}[]} downloads  every download the tests made
 */
async function unloggedSources(db, downloads) {
  const httpIds = downloads.filter((d) => d.mode === 'parallel-http' || d.mode === 'range-http').map((d) => d.id);
  const http = await queryOne(db, `SELECT count(*) AS n FROM client_record_proxies p
    WHERE p.record_id IN (SELECT unnest('{${httpIds.join(',')}}'::UUID[])) AND p.bytes > 0
      AND NOT EXISTS (SELECT 1 FROM proxy_records x WHERE x.download_id = p.record_id::VARCHAR AND x.proxy_id = p.proxy_id)`);
  // an MUTP source logs its session under the session's id: count the pairs (only these downloads made MUTP sessions)
  const mutp = await queryOne(db, "SELECT count(*) AS n FROM (SELECT DISTINCT download_id, proxy_id FROM proxy_records WHERE mode IN ('coded', 'uncoded')) AS x");
  return Number(http.n) + (downloads.length - httpIds.length) * PROXIES - Number(mutp.n);
}

/** How many of `ids` are not stored. @param {string} db @param {string[]} ids */
async function missingIds(db, ids) {
  return Number((await queryOne(db, `SELECT count(*) AS m FROM unnest('{${ids.join(',')}}'::UUID[]) AS s(id)
    WHERE NOT EXISTS (SELECT 1 FROM client_records c WHERE c.id = s.id)`)).m);
}

describe('integration: two Origo processes on one PostgreSQL', function () {
  this.timeout(180_000);
  const server = usePostgres();
  const secret = randomBytes(16).toString('hex');
  /** @type {any} */ let origin;
  /** @type {any[]} */ let origos = [];
  /** @type {any[]} */ const proxies = [];
  let db = '';
  /** @type {{id: string, mode: string}[]} every download these tests made (their client records' ids) */
  const downloads = [];

  before(async function () {
    this.timeout(120_000);
    db = await server.freshDatabase();
    origin = await startDemoOrigin({ host: '127.0.0.1', port: 0 });
    const ports = [await freePort(), await freePort()];
    origos = await Promise.all(ports.map((port) => spawnOrigo({ port, db, secret, adminPassword: 'a-long-test-admin-password' })));
    const [a, b] = origos.map((o) => o.url);
    for (let i = 1; i <= PROXIES; i++) {
      const id = `mo-${i}`;
      // Half list A first, half B first: the fleet is spread over both Origos.
      proxies.push(await startProxy({ id, token: proxyToken(secret, id), host: '127.0.0.1', port: 0, origoUrl: i % 2 ? `${a},${b}` : `${b},${a}`,
        allowedHosts: [`127.0.0.1:${origin.port}`], allowPrivate: true, requireTickets: true, logger: silent, statusEveryMs: 500 }));
    }
    await Promise.all(origos.map((o) => waitForProxies(o.url, PROXIES)));
    const spread = await queryOne(db, 'SELECT count(*) AS n, count(DISTINCT origo_id) AS origos FROM live_proxies');
    assert.deepEqual([Number(spread.n), Number(spread.origos)], [PROXIES, 2], 'the proxies are spread over both Origos');
  });
  after(async function () {
    this.timeout(60_000);
    await Promise.all(proxies.map((p) => p.close()));
    for (const o of origos) if (o.child.exitCode === null && o.child.signalCode === null) o.child.kill('SIGTERM');
    await Promise.all(origos.map((o) => o.exited));
    await origin?.close();
  });

  it('a client asking Origo B downloads in every mode through proxies of A and B; every record stored once', async () => {
    const client = createClient({ origo: origos[1].url, logger: silent });
    try {
      for (const mode of MODES) {
        const { data, stats } = await client.download(`${origin.url}/media/demo-1MB.bin`, { mode, proxies: PROXIES });
        downloads.push({ id: stats.id, mode });
        assert.equal(data.byteLength, 1 << 20, mode);
        assert.equal(stats.error, null, mode);
        assert.equal(stats.n, PROXIES);
      }
      assert.equal(await client.flushLogs(20_000), true);
      assert.equal(client.logCounters().stored, MODES.length);
    } finally {
      client.close();
    }
    await until(async () => proxies.every((p) => p.queue.size === 0), 20_000, 'proxies drained their logs');
    // a request the client closed (a Range-split range that lost its race) is logged once its proxy sees the close
    await until(async () => await unloggedSources(db, downloads) === 0, 20_000, 'every source that served a download logged it');
    const row = await queryOne(db, `SELECT (SELECT count(*) FROM client_records) AS c, (SELECT count(DISTINCT download_id) FROM proxy_records) AS d,
      (SELECT count(DISTINCT proxy_id) FROM proxy_records) AS pp`);
    assert.equal(Number(row.c), MODES.length);
    assert.equal(Number(row.d), MODES.length, 'proxy records of every download');
    assert.equal(Number(row.pp), PROXIES, 'every proxy (on A and on B) served and logged');
    // not an exact count: a proxy may serve one download twice (Range-split HTTP re-assigns a range), one record
    // per request; a record re-sent after a failover keeps its id, the primary key, so it cannot be stored twice
  });

  it('Origo A SIGKILLed mid-ingest: clients post on through B, proxies fail over to B; nothing lost, nothing doubled', async () => {
    const [a, b] = origos;
    const before = Number((await queryOne(db, 'SELECT count(*) AS c FROM client_records')).c);
    const posting = startPosting(() => origos.map((o) => o.url));
    await until(async () => posting.acked >= 300, 60_000, 'ingest under way');
    a.child.kill('SIGKILL');
    await a.exited;
    const ackedAtKill = posting.acked;
    await until(async () => posting.acked >= ackedAtKill + 300, 60_000, 'ingest continues through B');
    const sent = await posting.stop();
    assert.ok(posting.failovers >= 1, 'the poster aimed at A moved to B');

    // The proxies that were on A reconnected to B (they hold B's rows now), and a download through B works in a MUTP mode.
    await until(async () => {
      const r = await queryOne(db, 'SELECT count(*) AS n, count(DISTINCT origo_id) AS origos FROM live_proxies WHERE status IS NOT NULL');
      return Number(r.n) === PROXIES && Number(r.origos) === 1;
    }, 60_000, 'every proxy moved to B');
    await waitForProxies(b.url, PROXIES);
    const client = createClient({ origo: b.url, logger: silent });
    try {
      const { stats } = await client.download(`${origin.url}/media/demo-1MB.bin`, { mode: 'coded', proxies: PROXIES });
      downloads.push({ id: stats.id, mode: 'coded' });
      assert.equal(stats.error, null);
      assert.equal(await client.flushLogs(20_000), true);
    } finally {
      client.close();
    }
    await until(async () => proxies.every((p) => p.queue.size === 0), 30_000, 'proxies drained their logs to B');

    const row = await queryOne(db, `SELECT count(*) AS c, count(DISTINCT id) AS d FROM client_records`);
    assert.equal(Number(row.c), before + sent.length + 1, 'every posted record stored (+1 download)');
    assert.equal(await missingIds(db, sent), 0, 'no posted id missing');
    await until(async () => await unloggedSources(db, downloads) === 0, 30_000, 'every source that served a download logged it, across the failover');
  });

  it('a rolling restart of both (A back, then B, then A again) while posting: nothing lost, nothing doubled, the fleet stays offered', async () => {
    const ports = origos.map((o) => Number(new URL(o.url).port));
    const restart = async (/** @type {number} */ i) => {
      const o = origos[i];
      if (o.child.exitCode === null && o.child.signalCode === null) o.child.kill('SIGTERM');
      await o.exited;
      origos[i] = await spawnOrigo({ port: ports[i], db, secret, adminPassword: 'a-long-test-admin-password' });
    };
    const before = Number((await queryOne(db, 'SELECT count(*) AS c FROM client_records')).c);
    const posting = startPosting(() => origos.map((o) => o.url));
    await restart(0);
    await waitForProxies(origos[0].url, PROXIES);
    for (const i of [1, 0]) {
      const at = posting.acked;
      await restart(i);
      await until(async () => posting.acked >= at + 100, 60_000, `ingest continues across the restart of Origo ${i}`);
    }
    const sent = await posting.stop();
    assert.equal(await missingIds(db, sent), 0, 'no posted id missing');
    const row = await queryOne(db, 'SELECT count(*) AS c FROM client_records');
    assert.equal(Number(row.c), before + sent.length, 'each stored once');
    for (const o of origos) await waitForProxies(o.url, PROXIES);
  });
});
