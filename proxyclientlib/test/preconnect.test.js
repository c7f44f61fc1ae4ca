// client.preconnect: WebRTC connections opened before the first MUTP download are the ones the
// downloads use (no connect of their own); a proxy that cannot be reached is an outcome with a
// code, never a rejection.
import assert from 'node:assert/strict';
import { createClient } from '../index.js';
import { LOOPBACK_RTC, memoryObjects, sha256, startTestProxy, testBytes } from '@mutp/testkit/mutp-harness';

const URL_A = 'http://origin.test/a';
const body = testBytes(200_000, 5);

describe('ProxyClientLib preconnect (loopback WebRTC)', function () {
  this.timeout(60_000);

  it('the downloads after a preconnect reuse its connections, two per proxy for two at once', async () => {
    const proxies = await Promise.all(['p0', 'p1'].map((id) => startTestProxy({ id, objects: memoryObjects(new Map([[URL_A, body]])) })));
    const client = createClient({ origo: null, rtcConfig: LOOPBACK_RTC, logger: { warn() {} } });
    try {
      const refs = proxies.map((p) => p.ref);
      const out = await client.preconnect(refs, { perProxy: 2 });
      assert.deepEqual(out.map((o) => [o.id, o.ok, o.code]), [['p0', true, null], ['p0', true, null], ['p1', true, null], ['p1', true, null]]);
      assert.deepEqual(client.connectionCounters(), { connects: 4, reuses: 0, discarded: 0, idle: 4 });
      assert.deepEqual(refs.map((r) => client.keptConnections(r.url)), [2, 2]);
      const got = await Promise.all(['coded', 'uncoded'].map((mode) => client.download(URL_A, { mode, proxies: refs, log: false })));
      for (const g of got) assert.equal(sha256(g.data), sha256(body));
      const c = client.connectionCounters();
      assert.equal(c.connects, 4, 'no connect of their own');
      assert.equal(c.reuses, 4);
    } finally {
      client.close();
      for (const p of proxies) p.kill();
    }
  });

  it('a download during a preconnect that opens more takes a kept connection (the preconnect holds none)', async () => {
    const proxies = await Promise.all(['p0', 'p1'].map((id) => startTestProxy({ id, objects: memoryObjects(new Map([[URL_A, body]])) })));
    const client = createClient({ origo: null, rtcConfig: LOOPBACK_RTC, logger: { warn() {} } });
    try {
      const refs = proxies.map((p) => p.ref);
      await client.preconnect(refs, { perProxy: 1 });
      const more = client.preconnect(refs, { perProxy: 2 }); // a warm-up's second round, not awaited
      const got = await client.download(URL_A, { mode: 'coded', proxies: refs, log: false });
      assert.equal(sha256(got.data), sha256(body));
      const out = await more;
      assert.deepEqual(out.map((o) => [o.id, o.ok]), [['p0', true], ['p0', true], ['p1', true], ['p1', true]]);
      const c = client.connectionCounters();
      assert.equal(c.connects, 4, 'one per proxy, then one more each: the download opened none');
      assert.equal(c.reuses, 2);
      assert.equal(c.idle, 4);
    } finally {
      client.close();
      for (const p of proxies) p.kill();
    }
  });

  it('a proxy that is not there: an outcome with its code, the others connect', async () => {
    const p0 = await startTestProxy({ id: 'p0', objects: memoryObjects(new Map([[URL_A, body]])) });
    const client = createClient({ origo: null, rtcConfig: LOOPBACK_RTC, logger: { warn() {} } });
    try {
      const out = await client.preconnect([p0.ref, { id: 'gone', url: 'http://127.0.0.1:9/' }]);
      assert.deepEqual(out.map((o) => [o.id, o.ok]), [['p0', true], ['gone', false]]);
      assert.match(String(out[1].code), /^ERR_RTC_/);
      assert.equal(client.connectionCounters()?.idle, 1);
      assert.equal(client.keptConnections(p0.ref.url), 1);
      assert.equal(client.keptConnections('http://127.0.0.1:9/'), 0);
    } finally {
      client.close();
      p0.kill();
    }
  });
});
