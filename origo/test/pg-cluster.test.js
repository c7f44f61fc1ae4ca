// Two Origos on one PostgreSQL are one service: a proxy registered with either is offered by both,
// with a ticket the proxy accepts; it is withdrawn by both when it goes; the admin live view hears
// records posted to the other Origo.
import assert from 'node:assert/strict';
import pg from 'pg';
import { io as connectSocket } from 'socket.io-client';
import { proxyToken } from '../index.js';
import { createTicketVerifier } from '@mutp/proxy/tickets';
import { clientRecord, connectGoodProxy, emitWithAck, eventually, getProxies, postLogs, proxyRecord, proxyStatus, SECRET, startTestOrigo } from './helpers.js';
import { usePostgres } from '@mutp/testkit/postgres';

const ADMIN_PASSWORD = 'a-long-test-admin-password';

describe('origo: two Origos on one PostgreSQL', function () {
  this.timeout(60_000);
  const server = usePostgres();
  /** @type {any} */ let a;
  /** @type {any} */ let b;
  /** @type {string} */ let db;
  beforeEach(async () => {
    db = await server.freshDatabase();
    a = await startTestOrigo({ db });
    b = await startTestOrigo({ db, adminPassword: ADMIN_PASSWORD });
  });
  afterEach(async () => {
    await a?.close();
    await b?.close();
  });

  it('a proxy connected to A is offered by B, with a ticket signed like A\'s; withdrawn by both when it leaves', async () => {
    const socket = await connectGoodProxy(a.url, 'px-1');
    try {
      socket.emit('status', proxyStatus('px-1'));
      const listed = await eventually(async () => (await getProxies(b.url, '?n=8')).body.proxies.find((/** @type {any} */ p) => p.id === 'px-1'));
      assert.equal(listed.url, proxyStatus('px-1').publicUrl);
      // B signs with the key the proxy (connected to A) checks with: derived from its token, i.e. the shared secret.
      const ticket = createTicketVerifier({ proxyId: 'px-1', token: proxyToken(SECRET, 'px-1') })(listed.ticket, Date.now());
      assert.equal(ticket.proxyId, 'px-1');
    } finally {
      socket.close();
    }
    await eventually(async () => (await getProxies(b.url, '?n=8')).body.proxies.length === 0);
    assert.equal((await getProxies(a.url, '?n=8')).body.proxies.length, 0);
  });

  it('a proxy that moves from A to B while its socket on A is open: A closes that socket, both list it once, via B', async () => {
    const first = await connectGoodProxy(a.url, 'px-2');
    const firstClosed = new Promise((resolve) => first.once('disconnect', resolve));
    first.emit('status', proxyStatus('px-2'));
    await eventually(async () => (await getProxies(b.url)).body.proxies.length === 1);
    const second = await connectGoodProxy(b.url, 'px-2');
    try {
      second.emit('status', proxyStatus('px-2', { activeSessions: 3 }));
      assert.equal(await firstClosed, 'io server disconnect', 'A closed the old socket itself');
      await eventually(async () => (await getProxies(a.url)).body.proxies[0]?.activeSessions === 3);
      assert.ok(a.logger.lines.some((/** @type {any} */ l) => l.msg === 'proxy moved to another origo' && l.fields.proxyId === 'px-2'));
      await new Promise((r) => setTimeout(r, 300));
      for (const o of [a, b]) assert.deepEqual((await getProxies(o.url)).body.proxies.map((/** @type {any} */ p) => [p.id, p.activeSessions]), [['px-2', 3]]);
      const { rows } = await a.store.pool.query('SELECT origo_id FROM live_proxies');
      assert.equal(rows.length, 1, 'B\'s row is kept when A\'s old socket closes');
      assert.ok(second.connected);
    } finally {
      first.close();
      second.close();
    }
  });

  it('A\'s LISTEN connection killed (pg_terminate_backend): A warns, reconnects, re-reads what it missed and hears B again', async () => {
    const origoId = a.logger.lines.find((/** @type {any} */ l) => l.msg === 'origo joined the cluster').fields.origoId;
    const admin = new pg.Client(db);
    await admin.connect();
    /** @type {import('socket.io-client').Socket[]} */
    const sockets = [];
    try {
      const killed = await admin.query('SELECT pid, pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1', [`origo-listen-${origoId}`]);
      assert.deepEqual(killed.rows.map((r) => r.ok), [true]);
      // Registered with B while A has no listener: only the re-read after reconnecting brings it to A.
      sockets.push(await connectGoodProxy(b.url, 'px-missed'));
      sockets[0].emit('status', proxyStatus('px-missed'));
      await eventually(async () => a.logger.lines.some((/** @type {any} */ l) => l.msg === 'cluster listener reconnected'));
      const lost = a.logger.lines.find((/** @type {any} */ l) => l.msg === 'cluster listener lost');
      assert.equal(lost.fields.code, 'ERR_CLUSTER_LISTEN');
      const again = await admin.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [`origo-listen-${origoId}`]);
      assert.equal(again.rows.length, 1);
      assert.notEqual(again.rows[0].pid, killed.rows[0].pid);
      sockets.push(await connectGoodProxy(b.url, 'px-after'));
      sockets[1].emit('status', proxyStatus('px-after'));
      await eventually(async () => (await getProxies(a.url, '?n=8')).body.proxies.length === 2);
    } finally {
      for (const s of sockets) s.close();
      await admin.end();
    }
  });

  it('logs posted to both land once; B\'s admin live view hears records posted to A', async () => {
    const login = await fetch(`${b.url}/admin/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: ADMIN_PASSWORD }) });
    assert.ok(login.ok, `login: ${login.status}`);
    const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
    const admin = connectSocket(`${b.url}/admin`, { extraHeaders: { cookie }, transports: ['websocket'], forceNew: true, reconnection: false });
    /** @type {string[]} */
    const seen = [];
    admin.on('downloads', (/** @type {any} */ msg) => seen.push(...msg.rows.map((/** @type {any} */ r) => r.id)));
    await new Promise((resolve, reject) => { admin.once('connect', () => resolve(undefined)); admin.once('connect_error', reject); });
    try {
      const recs = Array.from({ length: 30 }, () => clientRecord());
      const [ra, rb] = await Promise.all([postLogs(a.url, recs.slice(0, 20)), postLogs(b.url, recs.slice(10))]);
      assert.equal(ra.body.stored.length + rb.body.stored.length, recs.length);
      assert.equal(ra.body.duplicates.length + rb.body.duplicates.length, 10, 'the ten posted to both');
      assert.equal((await a.store.counts()).clientRecords, recs.length);
      // Every record reaches B's dashboard live, the 20+ that A stored included.
      await eventually(async () => recs.every((r) => seen.includes(r.id)));
      assert.ok(ra.body.stored.length >= 10);
    } finally {
      admin.close();
    }
  });

  it('a proxy\'s logs sent to A are visible through B (one store)', async () => {
    const socket = await connectGoodProxy(a.url, 'px-3');
    try {
      const rec = proxyRecord('px-3');
      assert.equal(/** @type {any} */ (await emitWithAck(socket, 'logs', [rec])).ok, true);
      assert.deepEqual((await b.store.listProxyRecords({ proxyId: 'px-3' }))[0], rec);
    } finally {
      socket.close();
    }
  });
});
