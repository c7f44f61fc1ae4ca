// The proxy against the real Origo (contract check): its records pass Origo's schema, it is
// listed by /api/proxies, a wrong token is refused, and an Origo restart loses no record.
import assert from 'node:assert/strict';
import { startOrigo, proxyToken, openDuckDbStore } from '@mutp/origo';
import { startProxy } from '../index.js';
import { until } from './helpers/fake-origo.js';
import { startOrigin, captureLogger } from '@mutp/testkit/local-origin';

const SECRET = 'proxy-test-secret-0123456789';
const quiet = { info() {}, warn() {}, error() {} };

describe('proxy with the real Origo', () => {
  /** @type {any} */ let store;
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  before(async () => {
    store = await openDuckDbStore({ path: ':memory:' });
    origin = await startOrigin((req, res) => res.end(`object ${req.url}`));
  });
  after(async () => {
    await origin?.close();
    await store?.close();
  });

  it('registers, is listed, and loses no /fetch record across an Origo restart', async () => {
    let origo = await startOrigo({ proxySecret: SECRET, port: 0, host: '127.0.0.1', store, logger: quiet, allowPrivateProxyUrls: true });
    const port = origo.port;
    const proxy = await startProxy({
      id: 'proxy-real-1', token: proxyToken(SECRET, 'proxy-real-1'), origoUrl: origo.url, statusEveryMs: 100,
      location: { lat: 47.5, lon: 19.0 }, allowPrivate: true, allowedHosts: [`127.0.0.1:${origin.port}`],
      logger: captureLogger().logger,
    });
    const get = (/** @type {number} */ i) => fetch(`${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/o${i}`)}&downloadId=dl-${i}&mode=parallel-http&sourceIndex=0&n=1`)
      .then((r) => r.text());
    const countFor = async () => (await store.listProxyRecords({ proxyId: 'proxy-real-1', limit: 1000 })).length;
    try {
      const listed = async () => (await (await fetch(`${origo.url}/api/proxies?lat=47&lon=19`)).json()).proxies;
      let proxies = [];
      while (proxies.length === 0) {
        proxies = await listed();
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(proxies[0].id, 'proxy-real-1');
      assert.equal(proxies[0].url, proxy.url);

      for (let i = 0; i < 3; i++) assert.equal(await get(i), `object /o${i}`);
      while ((await countFor()) < 3) await new Promise((r) => setTimeout(r, 20));

      await origo.close();
      for (let i = 3; i < 8; i++) assert.equal(await get(i), `object /o${i}`);
      assert.equal(proxy.queue.size, 5, 'records wait while Origo is away');
      origo = await startOrigo({ proxySecret: SECRET, port, host: '127.0.0.1', store, logger: quiet, allowPrivateProxyUrls: true });
      await until(() => proxy.queue.size === 0);
      const recs = await store.listProxyRecords({ proxyId: 'proxy-real-1', limit: 1000 });
      assert.deepEqual(recs.map((r) => r.downloadId).sort(), ['dl-0', 'dl-1', 'dl-2', 'dl-3', 'dl-4', 'dl-5', 'dl-6', 'dl-7']);
    } finally {
      await proxy.close();
      await origo.close();
    }
  });

  it('is refused by Origo with a wrong token, and the proxy logs why', async () => {
    const origoLog = captureLogger();
    const origo = await startOrigo({ proxySecret: SECRET, port: 0, host: '127.0.0.1', store, logger: origoLog.logger, allowPrivateProxyUrls: true });
    const proxyLog = captureLogger();
    const proxy = await startProxy({ id: 'proxy-bad', token: proxyToken('wrong-secret', 'proxy-bad'), origoUrl: origo.url,
      logger: proxyLog.logger });
    try {
      await until(() => proxyLog.lines.some((l) => l.level === 'error'));
      const line = proxyLog.lines.find((l) => l.level === 'error');
      assert.equal(/** @type {any} */ (line.fields).code, 'ERR_AUTH_BAD_TOKEN');
      assert.ok(origoLog.lines.some((l) => l.level === 'warn' && JSON.stringify(l.fields ?? {}).includes('proxy-bad')));
    } finally {
      await proxy.close();
      await origo.close();
    }
  });
});
