import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDuckDbStore, proxyToken } from '../index.js';
import { DEFAULT_DB, parseCli } from '../src/cli-config.js';
import { SECRET, clientRecord } from './helpers.js';

const BIN = fileURLToPath(new URL('../bin/origo.js', import.meta.url));

describe('origo: CLI configuration', () => {
  const env = { ORIGO_PROXY_SECRET: SECRET };

  it('has the documented defaults', () => {
    assert.deepEqual(parseCli([], env), {
      command: 'serve',
      config: { port: 8080, host: '127.0.0.1', db: DEFAULT_DB, proxySecret: SECRET, rateLimitPerMinute: 1200, trustProxy: false, adminPassword: '', insecureDev: false,
        ticketsPerMinute: 600, logBytesPerMinute: 16 * 1024 * 1024, allowPrivateProxyUrls: false,
        tlsCertFile: undefined, tlsKeyFile: undefined, allowPlainHttpProxies: false },
    });
    assert.match(DEFAULT_DB, /^\.\/\.data\//);
  });

  it('reads the environment, and flags win over it', () => {
    const e = { ...env, ORIGO_PORT: '9000', ORIGO_HOST: '::1', ORIGO_DB: ':memory:', ORIGO_TRUST_PROXY: 'loopback', ORIGO_RATE_LIMIT: '0' };
    const fromEnv = /** @type {any} */ (parseCli([], e)).config;
    assert.deepEqual([fromEnv.port, fromEnv.host, fromEnv.db, fromEnv.trustProxy, fromEnv.rateLimitPerMinute], [9000, '::1', ':memory:', 'loopback', 0]);
    const fromFlags = /** @type {any} */ (parseCli(['--port', '0', '--db', '/x/y.duckdb', '--trust-proxy', '1'], e)).config;
    assert.deepEqual([fromFlags.port, fromFlags.db, fromFlags.trustProxy], [0, '/x/y.duckdb', 1]);
  });

  it('reads the TLS files and the lab switch for plain-HTTP proxies', () => {
    const fromEnv = /** @type {any} */ (parseCli([], { ...env, ORIGO_TLS_CERT: '/c.pem', ORIGO_TLS_KEY: '/k.pem', ORIGO_ALLOW_PLAIN_HTTP_PROXIES: '1' })).config;
    assert.deepEqual([fromEnv.tlsCertFile, fromEnv.tlsKeyFile, fromEnv.allowPlainHttpProxies], ['/c.pem', '/k.pem', true]);
    const fromFlags = /** @type {any} */ (parseCli(['--tls-cert', '/a.pem', '--tls-key', '/b.pem', '--allow-plain-http-proxies'], env)).config;
    assert.deepEqual([fromFlags.tlsCertFile, fromFlags.tlsKeyFile, fromFlags.allowPlainHttpProxies], ['/a.pem', '/b.pem', true]);
  });

  for (const [argv, e, code] of [
    [['--port', '70000'], env, 'ERR_BAD_FLAG'],
    [['--port', 'eighty'], env, 'ERR_BAD_FLAG'],
    [['--rate-limit', '-1'], env, 'ERR_BAD_FLAG'],
    [['--nope'], env, 'ERR_BAD_FLAG'],
    [['--trust-proxy', 'true'], env, 'ERR_BAD_FLAG'],
    [['extra'], env, 'ERR_BAD_FLAG'],
    [[], {}, 'ERR_CONFIG'],
    [['--proxy-secret', 'short'], {}, 'ERR_CONFIG'],
  ]) {
    it(`refuses ${JSON.stringify(argv)}${Object.keys(e).length ? '' : ' without a secret'} with ${code}`, () => {
      assert.throws(() => parseCli(/** @type {string[]} */ (argv), /** @type {any} */ (e)), { code });
    });
  }

  it('token subcommand', () => {
    assert.deepEqual(parseCli(['token', 'p7'], env), { command: 'token', proxyId: 'p7', proxySecret: SECRET });
  });
});

/**
 * @param {string[]} args @param {Record<string, string>} [extraEnv]
 * @returns {{ child: import('node:child_process').ChildProcess, out: () => string, err: () => string, exit: Promise<number | null> }}
 */
function run(args, extraEnv = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  const exit = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exit };
}

describe('origo: bin/origo.js', () => {
  it('--help exits 0; a bad flag exits 2 with a clear message', async () => {
    const help = run(['--help']);
    assert.equal(await help.exit, 0);
    assert.match(help.out(), /ORIGO_PROXY_SECRET/);
    const bad = run(['--port', 'x'], { ORIGO_PROXY_SECRET: SECRET });
    assert.equal(await bad.exit, 2);
    assert.match(bad.err(), /--port must be an integer.*ERR_BAD_FLAG/);
  });

  it('refuses to start with an empty or default admin password; --insecure-dev starts with a loud warning', async () => {
    for (const password of [undefined, '', 'admin', 'changeme']) {
      const env = { ORIGO_PROXY_SECRET: SECRET, ORIGO_PORT: '0', ORIGO_DB: ':memory:', ORIGO_ADMIN_PASSWORD: password };
      if (password === undefined) delete env.ORIGO_ADMIN_PASSWORD;
      const refused = run([], /** @type {Record<string, string>} */ (env));
      assert.notEqual(await refused.exit, 0);
      assert.match(refused.err(), /ERR_ADMIN_PASSWORD/);
      assert.doesNotMatch(refused.out(), /listening/);
    }
    const dev = run(['--insecure-dev'], { ORIGO_PROXY_SECRET: SECRET, ORIGO_PORT: '0', ORIGO_DB: ':memory:', ORIGO_ADMIN_PASSWORD: '' });
    await new Promise((resolve, reject) => {
      dev.child.stdout.on('data', () => /admin dashboard on http/.test(dev.out()) && resolve(undefined));
      dev.exit.then((code) => reject(new Error(`exited ${code}: ${dev.err()}`)));
    });
    assert.match(dev.err(), /WARN !!! INSECURE DEV MODE/);
    dev.child.kill('SIGTERM');
    assert.equal(await dev.exit, 0);
  });

  it('token prints the proxy token', async () => {
    const t = run(['token', 'p3'], { ORIGO_PROXY_SECRET: SECRET });
    assert.equal(await t.exit, 0);
    assert.equal(t.out().trim(), proxyToken(SECRET, 'p3'));
  });

  it('serves, and on SIGTERM closes cleanly with the data committed to the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'origo-cli-'));
    const db = join(dir, 'cli.duckdb');
    try {
      const server = run([], { ORIGO_PROXY_SECRET: SECRET, ORIGO_PORT: '0', ORIGO_DB: db, ORIGO_ADMIN_PASSWORD: 'a-real-admin-password' });
      const url = await new Promise((resolve, reject) => {
        server.child.stdout.on('data', () => {
          const m = server.out().match(/listening on (http:\/\/\S+)/);
          if (m) resolve(m[1]);
        });
        server.exit.then((code) => reject(new Error(`exited ${code}: ${server.err()}`)));
      });
      const rec = clientRecord();
      const res = await fetch(`${url}/api/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([rec]) });
      assert.equal(res.status, 200);
      server.child.kill('SIGTERM');
      assert.equal(await server.exit, 0);
      const store = await openDuckDbStore({ path: db });
      try {
        assert.equal((await store.listClientRecords())[0].id, rec.id);
      } finally {
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
