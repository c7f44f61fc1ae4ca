// Hardening on a live local system (127.0.0.1 only): Origo + 5 proxies that require
// tickets; one proxy is at its session and fetch caps. 10 sessions over the cap are each refused,
// and downloads in every mode still complete byte-exact, the busy proxy's source moving to a spare.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { startOrigo, proxyToken } from '@mutp/origo';
import { startProxy } from '@mutp/proxy';
import { createClient } from '@mutp/proxyclientlib';
import { connectPeer } from '@mutp/proxyclientlib/connect-peer';
import { createProxyAccess } from '@mutp/proxyclientlib/proxy-access';
import { startOrigin, testBytes } from '@mutp/testkit/local-origin';
import { waitForProxies } from '@mutp/testkit/fleet';

const silent = { info() {}, warn() {}, error() {} };
const SECRET = 'hardening-fleet-secret-0123456789';
const PROXIES = 5;
const SIZE = 300_007;
const sha = (/** @type {Uint8Array} */ b) => createHash('sha256').update(b).digest('hex');

describe('hardening: tickets + busy proxy on a live fleet', function () {
  const data = testBytes(SIZE);
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  /** @type {Awaited<ReturnType<typeof startOrigo>>} */ let origo;
  /** @type {Awaited<ReturnType<typeof startProxy>>[]} */ const proxies = [];
  /** @type {string} */ let busyId;
  /** @type {(() => void)[]} */ const held = [];
  /** @type {{ close(): void } | null} */ let heldPeer = null;

  before(async () => {
    origin = await startOrigin((req, res) => {
      if (req.url?.startsWith('/slow')) return held.push(() => res.end(data));
      res.writeHead(200, { 'content-type': 'video/webm' }).end(data);
    });
    // a constant `random` makes Origo's order fixed, so the test knows which proxy a client starts with
    origo = await startOrigo({ proxySecret: SECRET, host: '127.0.0.1', port: 0, db: ':memory:', logger: silent, rateLimitPerMinute: 0, allowPrivateProxyUrls: true, random: () => 0 });
    // the last proxy to register gets caps of 1, the others the defaults; with random() = 0 Origo's
    // shuffle puts the last-registered proxy among the first four it hands out
    const firstId = `hard-${PROXIES}`;
    for (let i = 1; i <= PROXIES; i++) {
      const id = `hard-${i}`;
      if (i === PROXIES) await waitForProxies(origo.url, PROXIES - 1);
      const caps = id === firstId ? { maxSessions: 1, maxHttpFetches: 1 } : {};
      proxies.push(await startProxy({ id, token: proxyToken(SECRET, id), host: '127.0.0.1', port: 0, origoUrl: origo.url, requireTickets: true,
        allowedHosts: [`127.0.0.1:${origin.port}`], allowPrivate: true, logger: silent, statusEveryMs: 200, ...caps }));
    }
    await waitForProxies(origo.url, PROXIES);
    const offered = (await (await fetch(`${origo.url}/api/proxies?n=4&clientId=test`)).json()).proxies;
    const first = offered.find((/** @type {any} */ p) => p.id === firstId);
    assert.ok(first, `Origo hands out the capped proxy among the first four: ${offered.map((/** @type {any} */ p) => p.id)}`);
    busyId = first.id;
    const busy = /** @type {Awaited<ReturnType<typeof startProxy>>} */ (proxies.find((p) => p.id === busyId));
    // fill the busy proxy's one session slot and its one fetch slot
    const access = createProxyAccess({ proxies: [{ id: busyId, url: busy.url, ticket: first.ticket }], fetch, logger: silent });
    heldPeer = await connectPeer({ url: busy.url, RTCPeerConnection: /** @type {any} */ (RTCPeerConnection), rtcConfig: { bindAddress: '127.0.0.1' }, fetch: access.fetch });
    const hits0 = origin.hits();
    void access.fetch(`${busy.url}/fetch?url=${encodeURIComponent(`${origin.url}/slow`)}`).catch(() => {});
    while (origin.hits() === hits0) await new Promise((r) => setTimeout(r, 10));
  });
  after(async () => {
    heldPeer?.close();
    for (const release of held.splice(0)) release();
    await Promise.all(proxies.map((p) => p.close()));
    await origo?.close();
    await origin?.close();
  });

  it('10 sessions over the cap are each refused with 503 ERR_PROXY_BUSY (with valid tickets)', async () => {
    const { tickets } = await (await fetch(`${origo.url}/api/tickets?clientId=test&ids=${busyId}`)).json();
    const busy = /** @type {any} */ (proxies.find((p) => p.id === busyId));
    const ms = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      const res = await fetch(`${busy.url}/rtc/offer`, { method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'offer', sdp: 'v=0\r\n', ticket: tickets[0].ticket }) });
      ms.push(performance.now() - t0);
      assert.equal(res.status, 503);
      assert.equal((await res.json()).error.code, 'ERR_PROXY_BUSY');
    }
    ms.sort((a, b) => a - b);
    console.log(`      session-cap refusals over HTTP: median ${ms[5].toFixed(2)} ms, max ${ms[9].toFixed(2)} ms (shared 2-core box: noisy)`);
  });

  for (const mode of ['coded', 'uncoded', 'parallel-http', 'range-http']) {
    it(`${mode}: completes byte-exact through Origo's tickets; the busy proxy's source moves to a spare`, async () => {
      const client = createClient({ origo: origo.url, logger: silent });
      try {
        const { data: got, stats } = await client.download(`${origin.url}/obj-${mode}`, { mode, proxies: 4, log: false });
        assert.equal(sha(got), sha(data));
        const record = /** @type {any} */ (stats);
        assert.equal(record.proxyIds.length, 4);
        assert.ok(!record.proxyIds.includes(busyId), `the busy proxy ${busyId} is not in the record: ${record.proxyIds}`);
        assert.deepEqual(record.perProxy.map((/** @type {any} */ p) => p.proxyId), record.proxyIds, 'per-proxy stats name the proxies that served');
      } finally {
        client.close();
      }
    });
  }

  it('a client without tickets (explicit proxies, no Origo) is refused with ERR_TICKET_MISSING', async () => {
    const client = createClient({ logger: silent });
    const free = proxies.filter((p) => p.id !== busyId).slice(0, 2).map((p) => ({ id: p.id, url: p.url }));
    await assert.rejects(client.download(`${origin.url}/obj-x`, { mode: 'parallel-http', proxies: free, log: false }),
      (/** @type {any} */ err) => err.code === 'ERR_ALL_PROXIES_FAILED' && JSON.stringify(err.perProxy).includes('ERR_TICKET_MISSING'));
    client.close();
  });
});
