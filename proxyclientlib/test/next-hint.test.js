// The `next` download option: the proxies of a download are told the object asked next (the HTTP
// modes on their /fetch requests, MUTP with GET /prefetch), fetch it from the origin meanwhile,
// and the next download finds it cached, in every mode. A bad hint is refused with its code; an
// older proxy without /prefetch changes nothing.
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { startProxy } from '@mutp/proxy';
import { createClient } from '../index.js';
import { hintNext } from '../src/next-hint.js';
import { testBytes } from '@mutp/testkit/mutp-harness';

const SEGMENT_BYTES = 300_000;
const silent = { info() {}, warn() {}, error() {} };
const quiet = { warn() {} };

describe('download option next: the proxies fetch the next segment meanwhile', function () {
  this.timeout(60_000);
  /** @type {http.Server} */ let origin;
  /** @type {string} */ let originUrl;
  /** @type {Awaited<ReturnType<typeof startProxy>>[]} */ let proxies = [];
  /** origin requests by path */
  /** @type {Map<string, number>} */
  const asked = new Map();
  const body = (/** @type {string} */ path) => testBytes(SEGMENT_BYTES, path.length * 7 + path.charCodeAt(path.length - 6));

  before(async () => {
    origin = http.createServer((req, res) => {
      const path = String(req.url);
      asked.set(path, (asked.get(path) ?? 0) + 1);
      if (!/^\/seg-[\w-]+\.m4s$/.test(path)) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'video/iso.segment' }).end(body(path));
    });
    origin.listen(0, '127.0.0.1');
    await once(origin, 'listening');
    const { port } = /** @type {import('node:net').AddressInfo} */ (origin.address());
    originUrl = `http://127.0.0.1:${port}`;
    proxies = await Promise.all([0, 1, 2].map((i) => startProxy({ id: `n${i}`, port: 0, host: '127.0.0.1', allowPrivate: true, allowedHosts: [`127.0.0.1:${port}`], logger: silent })));
  });
  after(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    origin.closeAllConnections();
    await new Promise((r) => origin.close(r));
  });

  /** Until every proxy holds `url` (its prefetch done). @param {string} url */
  async function heldByAll(url) {
    for (let i = 0; i < 500 && !proxies.every((p) => p.objects.has(url)); i++) await new Promise((r) => setTimeout(r, 10));
    return proxies.every((p) => p.objects.has(url));
  }

  for (const mode of ['parallel-http', 'range-http', 'coded']) {
    it(`${mode}: the next segment is fetched once per proxy during the first download, then served from their caches, byte-exact`, async () => {
      /** @type {string[]} */
      const requests = [];
      const f = /** @type {typeof fetch} */ ((input, init) => { requests.push(String(input)); return fetch(input, init); });
      const client = createClient({ origo: null, logger: quiet, fetch: f });
      const ps = proxies.map((p) => ({ id: p.id, url: p.url }));
      const [first, second] = [1, 2].map((k) => `${originUrl}/seg-${mode}-${k}.m4s`);
      const a = await client.download(first, { mode, proxies: ps, next: second, log: false });
      assert.deepEqual(a.data, body(new URL(first).pathname));
      assert.ok(await heldByAll(second), 'every proxy fetched the next segment');
      const secondPath = new URL(second).pathname;
      assert.equal(asked.get(secondPath), proxies.length, 'one origin request per proxy');
      const hints = requests.filter((u) => u.includes('/prefetch?')).length;
      assert.equal(hints, mode === 'coded' ? proxies.length : 0, 'the HTTP modes hint on their own requests, MUTP with /prefetch');
      const b = await client.download(second, { mode, proxies: ps, log: false });
      assert.deepEqual(b.data, body(secondPath));
      assert.equal(asked.get(secondPath), proxies.length, 'the download itself asked the origin nothing');
      client.close();
    });
  }

  it('refuses a next URL that is not http(s) with ERR_BAD_URL, before any proxy is asked', async () => {
    const client = createClient({ origo: null, logger: quiet });
    const ps = proxies.map((p) => ({ id: p.id, url: p.url }));
    await assert.rejects(client.download(`${originUrl}/seg-x-1.m4s`, { mode: 'parallel-http', proxies: ps, next: 'file:///etc/passwd', log: false }),
      (/** @type {any} */ e) => e.code === 'ERR_BAD_URL');
    assert.equal(asked.has('/seg-x-1.m4s'), false);
  });

  it('a proxy that does not know /prefetch (an older one) takes no hint and fails nothing', async () => {
    const old = http.createServer((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"ERR_NOT_FOUND"}}'));
    old.listen(0, '127.0.0.1');
    await once(old, 'listening');
    const { port } = /** @type {import('node:net').AddressInfo} */ (old.address());
    const took = await hintNext({ proxies: [{ url: `http://127.0.0.1:${port}` }, { url: proxies[0].url }], next: `${originUrl}/seg-old-2.m4s`, fetch, logger: quiet });
    assert.equal(took, 1, 'only the current proxy took it');
    old.close();
  });
});
