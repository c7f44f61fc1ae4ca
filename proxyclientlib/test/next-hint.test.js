// The `next` download option: the proxies of a download are told the object asked next (the HTTP
// modes on their /fetch requests, MUTP with a hint datagram after its request), fetch it from the
// origin meanwhile, and the next download finds it cached, in every mode. A bad next is refused
// with its code; an older proxy that does not know the hint serves the download all the same.
import assert from 'node:assert/strict';
import { startProxy } from '@mutp/proxy';
import { startOrigin } from '@mutp/testkit/local-origin';
import { createClient } from '../index.js';
import { encodeMessage, decodeMessage, createSender } from '@mutp/protocol';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { downloadMutp } from '../src/mutp/index.js';
import { LOOPBACK_RTC, memoryObjects, startTestProxy, testBytes, waitFor } from '@mutp/testkit/mutp-harness';

const SEGMENT_BYTES = 300_000;
const silent = { info() {}, warn() {}, error() {} };
const quiet = { warn() {} };

describe('download option next: the proxies fetch the next segment meanwhile', function () {
  this.timeout(60_000);
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  /** @type {string} */ let originUrl;
  /** @type {Awaited<ReturnType<typeof startProxy>>[]} */ let proxies = [];
  /** origin requests by path */
  /** @type {Map<string, number>} */
  const asked = new Map();
  const body = (/** @type {string} */ path) => testBytes(SEGMENT_BYTES, path.length * 7 + path.charCodeAt(path.length - 6));

  before(async () => {
    origin = await startOrigin((req, res) => {
      const path = String(req.url);
      asked.set(path, (asked.get(path) ?? 0) + 1);
      if (!/^\/seg-[\w-]+\.m4s$/.test(path)) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'video/iso.segment' }).end(body(path));
    });
    originUrl = origin.url;
    proxies = await Promise.all([0, 1, 2].map((i) => startProxy({ id: `n${i}`, port: 0, host: '127.0.0.1', allowPrivate: true, allowedHosts: [`127.0.0.1:${origin.port}`], logger: silent })));
  });
  after(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await origin.close();
  });

  /** A client whose every request URL is recorded, and the proxies as it takes them. */
  function recordingClient() {
    /** @type {string[]} */
    const requests = [];
    const f = /** @type {typeof fetch} */ ((input, init) => { requests.push(String(input)); return fetch(input, init); });
    return { requests, client: createClient({ origo: null, logger: quiet, fetch: f }), ps: proxies.map((p) => ({ id: p.id, url: p.url })) };
  }

  /** Until every proxy holds `url` (its prefetch done). @param {string} url */
  async function heldByAll(url) {
    for (let i = 0; i < 500 && !proxies.every((p) => p.objects.has(url)); i++) await new Promise((r) => setTimeout(r, 10));
    return proxies.every((p) => p.objects.has(url));
  }

  for (const mode of ['parallel-http', 'range-http', 'uncoded', 'coded']) {
    it(`${mode}: the next segment is fetched once per proxy during the first download, then served from their caches, byte-exact`, async () => {
      const { requests, client, ps } = recordingClient();
      const [first, second] = [1, 2].map((k) => `${originUrl}/seg-${mode}-${k}.m4s`);
      const a = await client.download(first, { mode, proxies: ps, next: second, log: false });
      assert.deepEqual(a.data, body(new URL(first).pathname));
      assert.ok(await heldByAll(second), 'every proxy fetched the next segment');
      const secondPath = new URL(second).pathname;
      assert.equal(asked.get(secondPath), proxies.length, 'one origin request per proxy');
      assert.equal(requests.filter((u) => !u.includes('/fetch?') && !u.includes('/rtc/offer')).length, 0, 'no request more: the hint rides on the requests');
      const b = await client.download(second, { mode, proxies: ps, log: false });
      assert.deepEqual(b.data, body(secondPath));
      assert.equal(asked.get(secondPath), proxies.length, 'the download itself asked the origin nothing');
      client.close();
    });
  }

  it('prefetch: every proxy fetches the objects once, byte-exact for the download after it, whose range-http vote takes the lists kept', async () => {
    const { requests, client, ps } = recordingClient();
    const [init, other] = ['init-a', 'init-b'].map((k) => `${originUrl}/seg-${k}.m4s`);
    const got = await client.prefetch(ps, [init, other, init, 'file:///etc/passwd'].map((url) => ({ url })));
    assert.equal(got.length, proxies.length * 2, 'one outcome per proxy and http(s) object, duplicates once');
    assert.ok(got.every((o) => o.ok && o.code === null), JSON.stringify(got));
    for (const u of [init, other]) assert.equal(asked.get(new URL(u).pathname), proxies.length, 'one origin request per proxy');
    assert.ok(proxies.every((p) => p.objects.has(init)));
    requests.length = 0;
    const b = await client.download(init, { mode: 'range-http', proxies: ps, log: false });
    assert.deepEqual(b.data, body(new URL(init).pathname));
    assert.equal(asked.get(new URL(init).pathname), proxies.length, 'the download asked the origin nothing');
    assert.equal(requests.filter((u) => u.includes('digests=1')).length, 0, 'the vote took the prefetched lists');
    client.close();
  });

  it('prefetch again (a second page load of the site): the lists kept from the first are not asked again; a new object is', async () => {
    const { requests, client, ps } = recordingClient();
    const [init, other] = ['init-c', 'init-d'].map((k) => `${originUrl}/seg-${k}.m4s`);
    const first = await client.prefetch(ps, [{ url: init }]);
    assert.ok(first.every((o) => o.ok && !o.kept), JSON.stringify(first));
    requests.length = 0;
    const again = await client.prefetch(ps, [{ url: init }]);
    assert.equal(again.length, proxies.length);
    assert.ok(again.every((o) => o.ok && o.kept), JSON.stringify(again));
    assert.deepEqual(requests, [], 'no proxy was asked');
    const mixed = await client.prefetch(ps, [{ url: init }, { url: other }]);
    assert.equal(mixed.filter((o) => o.kept).length, proxies.length);
    assert.ok(requests.length === proxies.length && requests.every((u) => u.includes('digests=1') && u.includes('init-d')), requests.join('\n'));
    assert.equal(asked.get(new URL(init).pathname), proxies.length, 'the origin was asked once per proxy in all');
    client.close();
  });

  it('prefetch of a byte range (an init section inside a single-file stream): a download of that range asks the origin and the proxies\' lists nothing more', async () => {
    const { requests, client, ps } = recordingClient();
    const url = `${originUrl}/seg-one-file.m4s`;
    const range = { start: 0, end: 1343 };
    const got = await client.prefetch(ps, [{ url, range }, { url, range: { start: 9, end: 3 } }]);
    assert.equal(got.length, proxies.length, 'a bad range is not tried');
    assert.ok(got.every((o) => o.ok), JSON.stringify(got));
    assert.ok(requests.every((u) => u.includes('digests=1') && u.includes('span=0-1343')), requests.join('\n'));
    const before = asked.get('/seg-one-file.m4s');
    requests.length = 0;
    const b = await client.download(url, { mode: 'range-http', proxies: ps, range, log: false });
    assert.deepEqual(b.data, body('/seg-one-file.m4s').subarray(0, 1344));
    assert.equal(asked.get('/seg-one-file.m4s'), before, 'the download asked the origin nothing');
    assert.equal(requests.filter((u) => u.includes('digests=1')).length, 0, 'the vote took the prefetched span lists');
    client.close();
  });

  it('prefetch: an object a proxy cannot fetch is that proxy\'s failed outcome, with its code; it never rejects', async () => {
    const client = createClient({ origo: null, logger: quiet });
    const ps = [...proxies.map((p) => ({ id: p.id, url: p.url })), { id: 'gone', url: 'http://127.0.0.1:9' }];
    const got = await client.prefetch(ps, [{ url: `${originUrl}/missing.bin` }]);
    assert.equal(got.length, ps.length);
    assert.ok(got.every((o) => !o.ok && typeof o.code === 'string' && o.code.startsWith('ERR_')), JSON.stringify(got));
    client.close();
  });

  it('refuses a next URL that is not http(s) with ERR_BAD_URL, before any proxy is asked', async () => {
    const client = createClient({ origo: null, logger: quiet });
    const ps = proxies.map((p) => ({ id: p.id, url: p.url }));
    await assert.rejects(client.download(`${originUrl}/seg-x-1.m4s`, { mode: 'parallel-http', proxies: ps, next: 'file:///etc/passwd', log: false }),
      (/** @type {any} */ e) => e.code === 'ERR_BAD_URL');
    assert.equal(asked.has('/seg-x-1.m4s'), false);
  });

  it('MUTP: a proxy that does not know the hint (an older one) ignores it and serves the download byte-exact', async () => {
    const url = 'http://origin.test/seg-1.m4s';
    const bytes = testBytes(120_000, 5);
    const older = {
      encodeMessage, createSender,
      decodeMessage: (/** @type {Uint8Array} */ b) => (b[1] === 8 ? { ok: false, error: { code: 'ERR_UNKNOWN_TYPE', message: 'unknown message type 8' } } : decodeMessage(b)),
    };
    const [old, current] = await Promise.all([
      startTestProxy({ id: 'old', objects: memoryObjects(new Map([[url, bytes]])), protocol: older }),
      startTestProxy({ id: 'new', objects: memoryObjects(new Map([[url, bytes]])) }),
    ]);
    try {
      const { data } = await downloadMutp({ url, next: 'http://origin.test/seg-2.m4s', mode: 'coded', proxies: [old.ref, current.ref],
        RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: quiet });
      assert.deepEqual(data, bytes);
      const next = (/** @type {string[]} */ hints) => hints.filter((h) => h === 'http://origin.test/seg-2.m4s');
      await waitFor(() => old.warnings.length > 0 && next(current.hints).length > 0);
      assert.deepEqual(next(current.hints), ['http://origin.test/seg-2.m4s']);
      assert.deepEqual(next(old.hints), [], 'the older proxy could not read the hint datagram');
      // both took the offer's first (signalling, not a datagram): the object itself
      assert.deepEqual([old, current].map((p) => p.hints.filter((h) => h === url)), [[url], [url]]);
      assert.match(old.warnings[0], /malformed message: ERR_UNKNOWN_TYPE/);
    } finally {
      old.kill();
      current.kill();
    }
  });
});
