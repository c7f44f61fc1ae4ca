import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { configFromCli } from '../src/config/cli-config.js';
import { resolveConfig } from '../src/config/resolve-config.js';

const BIN = fileURLToPath(new URL('../bin/proxy.js', import.meta.url));

describe('proxy configuration', () => {
  it('reads sizes and the upload rate in the shared units, refusing bad ones with ERR_BAD_CONFIG', () => {
    const c = resolveConfig(/** @type {any} */ ({ cacheBytes: '64MiB', maxObjectBytes: '1.5mb', uploadRate: '7Mbit' }));
    assert.deepEqual([c.cacheBytes, c.maxObjectBytes, c.uploadRateBps], [67108864, 1_500_000, 875_000]);
    assert.equal(resolveConfig(/** @type {any} */ ({ uploadRate: '896KiB/s' })).uploadRateBps, 917504);
    for (const bad of ['', 'abc', '-5', '5 parsecs', '1e9']) {
      assert.throws(() => resolveConfig(/** @type {any} */ ({ cacheBytes: bad })), { code: 'ERR_BAD_CONFIG' }, bad);
      assert.throws(() => resolveConfig(/** @type {any} */ ({ uploadRate: bad })), { code: 'ERR_BAD_CONFIG' }, bad);
    }
  });

  it('reads environment variables, and flags win over them', () => {
    const env = { PROXY_PORT: '9001', PROXY_ID: 'p-env', PROXY_TOKEN: 'tok', ORIGO_URL: 'http://127.0.0.1:8080',
      PROXY_LAT: '47.5', PROXY_LON: '19.04', UPLOAD_RATE: '896KiB', MUTP_ALLOWED_HOSTS: 'a.example:8000, b.example' };
    const r = /** @type {any} */ (configFromCli(['--id', 'p-flag'], env));
    const c = resolveConfig(r.config);
    assert.equal(c.port, 9001);
    assert.equal(c.id, 'p-flag');
    assert.equal(c.token, 'tok');
    assert.equal(c.host, '127.0.0.1');
    assert.deepEqual(c.location, { lat: 47.5, lon: 19.04 });
    assert.equal(c.uploadRateBps, 917504);
    assert.deepEqual(c.allowedHosts, ['*.googlevideo.com', 'a.example:8000', 'b.example']);
    assert.equal(c.allowPrivate, false);
    assert.equal(c.tls, null, 'plain HTTP unless given a certificate');
    const t = resolveConfig(/** @type {any} */ (configFromCli(['--tls-key', '/k.pem', '--no-require-tickets'], { PROXY_TLS_CERT: '/c.pem' })).config);
    assert.deepEqual(t.tls, { certFile: '/c.pem', keyFile: '/k.pem' });
    assert.equal(c.readAhead, true, 'read-ahead is on by default');
    const readAhead = (/** @type {string[]} */ args, /** @type {Record<string, string>} */ env) => resolveConfig(/** @type {any} */ (configFromCli([...args, '--no-require-tickets'], env)).config).readAhead;
    assert.equal(readAhead(['--no-read-ahead'], {}), false);
    assert.equal(readAhead([], { PROXY_READ_AHEAD: '0' }), false);
    assert.equal(readAhead([], { PROXY_READ_AHEAD: '1' }), true);
  });

  it('refuses bad values with ERR_BAD_CONFIG', () => {
    const bad = [
      [['--port', 'x'], {}], [['--lat', '10'], {}], [['--lat', '91', '--lon', '0'], {}],
      [[], { MUTP_ALLOWED_HOSTS: 'http://x' }], [['--id', 'bad id'], {}], [['--origo', 'ftp://x'], {}],
      [['--cache-size', 'lots'], {}], [['--tls-cert', '/c.pem', '--no-require-tickets'], {}], [['--no-require-tickets'], { PROXY_TLS_KEY: '/k.pem' }],
    ];
    for (const [argv, env] of bad) {
      assert.throws(() => resolveConfig(/** @type {any} */ (configFromCli(/** @type {string[]} */ (argv), /** @type {any} */ (env))).config),
        { code: 'ERR_BAD_CONFIG' }, JSON.stringify([argv, env]));
    }
    assert.throws(() => configFromCli(['--no-such-flag'], {}));
  });

  it('prints --help and exits 0; exits 2 on a bad flag', async () => {
    const run = promisify(execFile);
    const { stdout } = await run(process.execPath, [BIN, '--help']);
    assert.match(stdout, /MUTP_ALLOWED_HOSTS/);
    assert.match(stdout, /PROXY_TOKEN/);
    await assert.rejects(run(process.execPath, [BIN, '--port', 'nope']), (/** @type {any} */ err) => err.code === 2);
  });
});
