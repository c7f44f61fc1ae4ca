import assert from 'node:assert/strict';
import { io as connectSocket } from 'socket.io-client';
import { startOrigo } from '../index.js';
import { SECRET, captureLogger, clientRecord, postLogs, startTestOrigo } from './helpers.js';

const PASSWORD = 'correct horse battery staple';

/** Every admin page and API (docs/dashboard.md). */
const ADMIN_ROUTES = [
  ['GET', '/admin'], ['GET', '/admin/'], ['GET', '/admin/downloads'], ['GET', '/admin/download?id=x'], ['GET', '/admin/analysis'],
  ['GET', '/admin/assets/fleet.js'], ['GET', '/admin/assets/common.js'], ['GET', '/admin/vendor/echarts.min.js'], ['GET', '/admin/vendor/socket.io.min.js'],
  ['GET', '/admin/api/session'], ['GET', '/admin/api/fleet'], ['GET', '/admin/api/downloads'], ['GET', '/admin/api/downloads/00000000-0000-4000-8000-000000000000'],
  ['GET', '/admin/api/boxplot?groupBy=n'], ['GET', '/admin/api/export.csv'], ['GET', '/admin/api/export.parquet'], ['POST', '/admin/api/logout'],
  ['GET', '/admin/nope'],
];

/** @param {string} url @param {string} password */
async function login(url, password) {
  const res = await fetch(`${url}/admin/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password }) });
  return { status: res.status, cookie: res.headers.get('set-cookie') };
}

/** @param {string} url @param {string | undefined} cookie */
function adminSocket(url, cookie) {
  const socket = connectSocket(`${url}/admin`, { reconnection: false, transports: ['websocket'], forceNew: true, extraHeaders: cookie ? { cookie } : {} });
  return new Promise((resolve, reject) => {
    socket.once('fleet', (fleet) => resolve({ socket, fleet }));
    socket.once('connect_error', (err) => { socket.close(); reject(err); });
  });
}

describe('origo dashboard: access control', () => {
  /** @type {Awaited<ReturnType<typeof startTestOrigo>>} */
  let origo;
  before(async () => { origo = await startTestOrigo({ adminPassword: PASSWORD, adminLoginAttemptsPerWindow: 3 }); });
  after(async () => { await origo.close(); });

  it('refuses every admin page and API without a session (401), and with a forged cookie', async () => {
    for (const cookie of [undefined, 'origo_admin=v1.99999999999999.abc.forged', 'origo_admin=']) {
      for (const [method, path] of ADMIN_ROUTES) {
        const res = await fetch(`${origo.url}${path}`, { method, headers: cookie ? { cookie } : {}, redirect: 'manual' });
        assert.equal(res.status, 401, `${method} ${path} with ${cookie}`);
        if (path.startsWith('/admin/api/')) assert.equal((await res.json()).error.code, 'ERR_AUTH_REQUIRED');
        else await res.arrayBuffer();
      }
    }
    // The login page itself is public, and tells the browser where to go.
    assert.equal((await fetch(`${origo.url}/admin/login`)).status, 200);
  });

  it('a wrong password is 401; a right one sets an HttpOnly, SameSite=Strict session cookie that opens the API', async () => {
    assert.equal((await login(origo.url, 'wrong')).status, 401);
    const ok = await login(origo.url, PASSWORD);
    assert.equal(ok.status, 204);
    assert.match(ok.cookie, /^origo_admin=v1\./);
    assert.match(ok.cookie, /HttpOnly/i);
    assert.match(ok.cookie, /SameSite=Strict/i);
    const cookie = ok.cookie.split(';')[0];
    const res = await fetch(`${origo.url}/admin/api/downloads`, { headers: { cookie } });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { total: 0, offset: 0, limit: 50, rows: [] });
    const page = await fetch(`${origo.url}/admin/analysis`, { headers: { cookie } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy'), /script-src 'self'/);
    assert.match(await page.text(), /<h1>Analysis<\/h1>/);
  });

  it('logout revokes the session', async () => {
    const cookie = (await login(origo.url, PASSWORD)).cookie.split(';')[0];
    assert.equal((await fetch(`${origo.url}/admin/api/session`, { headers: { cookie } })).status, 200);
    assert.equal((await fetch(`${origo.url}/admin/api/logout`, { method: 'POST', headers: { cookie } })).status, 204);
    assert.equal((await fetch(`${origo.url}/admin/api/session`, { headers: { cookie } })).status, 401);
  });

  it('refuses a non-JSON login and bad API input with coded errors', async () => {
    const form = await fetch(`${origo.url}/admin/api/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `password=${PASSWORD}` });
    assert.equal(form.status, 415);
    const cookie = (await login(origo.url, PASSWORD)).cookie.split(';')[0];
    for (const q of ['metric=latency', 'groupBy=url', 'n=1;DROP', 'mode=http', 'from=yesterday', 'minBytes=-1', 'n=1&n=2']) {
      const res = await fetch(`${origo.url}/admin/api/boxplot?${q}`, { headers: { cookie } });
      assert.equal(res.status, 400, q);
      assert.equal((await res.json()).error.code, 'ERR_BAD_QUERY');
    }
    assert.equal((await fetch(`${origo.url}/admin/api/downloads/not-a-uuid`, { headers: { cookie } })).status, 400);
    assert.equal((await fetch(`${origo.url}/admin/api/downloads?limit=100000`, { headers: { cookie } })).status, 400);
  });

  it('the /admin socket.io namespace refuses a handshake without the session cookie', async () => {
    await assert.rejects(adminSocket(origo.url, undefined), { message: 'ERR_AUTH_REQUIRED' });
    await assert.rejects(adminSocket(origo.url, 'origo_admin=v1.1.a.b'), { message: 'ERR_AUTH_REQUIRED' });
    const cookie = (await login(origo.url, PASSWORD)).cookie.split(';')[0];
    const { socket, fleet } = /** @type {any} */ (await adminSocket(origo.url, cookie));
    try {
      assert.deepEqual(fleet, []);
      const rec = clientRecord();
      const rows = new Promise((resolve) => socket.once('downloads', resolve));
      assert.equal((await postLogs(origo.url, [rec])).status, 200);
      const pushed = /** @type {any} */ (await rows);
      assert.deepEqual(pushed.rows.map((/** @type {any} */ r) => r.id), [rec.id]);
      assert.equal(pushed.rows[0].normalized_goodput, 1000 / 1250);
    } finally {
      socket.close();
    }
  });

  it('rate-limits failed logins per address (429 after the limit)', async () => {
    const fresh = await startTestOrigo({ adminPassword: PASSWORD, adminLoginAttemptsPerWindow: 2 });
    try {
      assert.equal((await login(fresh.url, 'x1')).status, 401);
      assert.equal((await login(fresh.url, 'x2')).status, 401);
      assert.equal((await login(fresh.url, 'x3')).status, 429);
      assert.equal((await login(fresh.url, PASSWORD)).status, 429, 'even the right password waits out the window');
    } finally {
      await fresh.close();
    }
  });
});

describe('origo dashboard: start-up password policy', () => {
  for (const adminPassword of ['', 'admin', 'Password', 'changeme']) {
    it(`refuses to start with admin password ${JSON.stringify(adminPassword)} (ERR_ADMIN_PASSWORD)`, async () => {
      await assert.rejects(startOrigo({ proxySecret: SECRET, port: 0, adminPassword, logger: captureLogger() }), { code: 'ERR_ADMIN_PASSWORD' });
    });
  }

  it('insecureDev accepts an empty password as "admin", with a loud warning', async () => {
    const origo = await startTestOrigo({ adminPassword: '', insecureDev: true });
    try {
      assert.ok(origo.logger.lines.some((l) => l.level === 'warn' && /INSECURE DEV MODE/.test(l.msg)));
      assert.equal((await login(origo.url, 'admin')).status, 204);
    } finally {
      await origo.close();
    }
  });

  it('without an admin password (library use) the dashboard is off: 403 everywhere', async () => {
    const origo = await startTestOrigo();
    try {
      assert.equal(origo.adminUrl, null);
      for (const path of ['/admin', '/admin/login', '/admin/api/fleet']) assert.equal((await fetch(`${origo.url}${path}`)).status, 403);
      assert.equal((await login(origo.url, '')).status, 403);
    } finally {
      await origo.close();
    }
  });
});
