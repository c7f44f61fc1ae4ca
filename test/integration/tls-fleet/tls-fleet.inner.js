// Runs inside test/integration/tls-fleet.test.js's child process (NODE_EXTRA_CA_CERTS = the test
// CA; not a .test.js, so the root globs skip it): an HTTPS fleet, all four modes, byte-exact.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { createClient } from '@mutp/proxyclientlib';
import { demoBytes } from '@mutp/demo/media';
import { startFleet } from '@mutp/testkit/fleet';

const sha = (/** @type {Uint8Array} */ b) => createHash('sha256').update(b).digest('hex');
const MODES = ['parallel-http', 'range-http', 'uncoded', 'coded'];
const SIZE = 1 << 20; // 1 MiB: a video chunk
const N = 2;

describe('HTTPS fleet (inner run)', function () {
  this.timeout(60_000);
  /** @type {Awaited<ReturnType<typeof startFleet>>} */
  let fleet;
  /** @type {ReturnType<typeof createClient>} */
  let client;
  before(async () => {
    const certFile = process.env.MUTP_TLS_CERT;
    const keyFile = process.env.MUTP_TLS_KEY;
    if (!certFile || !keyFile || !process.env.NODE_EXTRA_CA_CERTS) throw new Error('run through test/integration/tls-fleet.test.js');
    // processes: the proxy CLI's --tls-cert/--tls-key, and its socket.io link to Origo over wss
    fleet = await startFleet({ proxyCount: N, processes: true, tls: { certFile, keyFile } });
    client = createClient({ origo: fleet.origo.url, logger: { warn: (...a) => console.warn(...a) } });
  });
  after(async () => {
    client?.close();
    await fleet?.close();
  });

  it('Origo serves https://, and lists only https:// proxy URLs', async () => {
    assert.match(fleet.origo.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const list = await client.proxies({ n: 8 });
    assert.equal(list.length, N);
    for (const p of list) {
      assert.match(p.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const health = await (await fetch(`${p.url}/healthz`)).json();
      assert.equal(health.ok, true);
    }
  });

  for (const mode of MODES) {
    it(`${mode}, N=${N}: 1 MiB byte-exact over HTTPS`, async () => {
      const { data, stats } = await client.download(`${fleet.origin.url}/media/demo-1MB.bin`, { mode, proxies: N });
      assert.equal(sha(data), sha(demoBytes(SIZE)));
      assert.equal(stats.error, null);
      assert.equal(stats.n, N);
    });
  }

  it('a plain-HTTP request to an HTTPS port gets no answer it could use', async () => {
    const [p] = await client.proxies({ n: 1 });
    const port = Number(new URL(p.url).port);
    const status = await new Promise((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/healthz' }, (res) => { res.resume(); resolve(res.statusCode); });
      req.on('error', () => resolve('error'));
    });
    assert.notEqual(status, 200);
  });
});
