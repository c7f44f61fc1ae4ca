// A peer's answer is read with a bound (src/capped-body.js): a proxy or an Origo that sends an
// endless body gets a coded refusal, not a client that buffers until it runs out of memory.
import assert from 'node:assert/strict';
import http from 'node:http';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { createClient, createLogSender } from '../index.js';
import { readCapped, jsonCapped } from '../src/capped-body.js';
import { createProxyAccess } from '../src/proxy-access.js';
import { connectPeer } from '../src/rtc/connect-peer.js';
import { LOOPBACK_RTC } from '@mutp/testkit/mutp-harness';

const quiet = { warn: () => {} };
const CHUNK = Buffer.alloc(16 * 1024, 0x20); // JSON whitespace: a parser would wait for more
/** More than a client that stopped reading lets through: the sockets' buffers on loopback hold a few MB. */
const STOPPED_READING_BYTES = 32 * 1024 * 1024;

/**
 * A server that answers every request with `status` and a body that never ends.
 * @param {number} status
 */
async function endlessServer(status) {
  let bytesSent = 0;
  const server = http.createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    const more = () => {
      while (!res.destroyed) {
        bytesSent += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once('drain', more);
      }
    };
    more();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  return {
    url,
    sent: () => bytesSent,
    close: () => { server.closeAllConnections(); server.close(); },
  };
}

/** A body from these pieces, and whether the reader cancelled it. @param {Uint8Array[]} pieces @param {boolean} [endless] */
function streamOf(pieces, endless = false) {
  const state = { cancelled: false };
  let i = 0;
  const body = new ReadableStream({
    pull(c) {
      if (i < pieces.length) c.enqueue(pieces[i++]);
      else if (endless) c.enqueue(new Uint8Array(1024));
      else c.close();
    },
    cancel() { state.cancelled = true; },
  });
  return { body, state };
}

describe('capped bodies: readCapped', () => {
  it('returns the whole body, byte-exact, when it is within the cap', async () => {
    const { body } = streamOf([new Uint8Array([1, 2]), new Uint8Array([3]), new Uint8Array([4, 5, 6])]);
    assert.deepEqual([...await readCapped(new Response(body), 6)], [1, 2, 3, 4, 5, 6]);
  });

  it('refuses an endless body once past the cap, with its code, and cancels the stream', async () => {
    const { body, state } = streamOf([], true);
    await assert.rejects(readCapped(new Response(body), 10_000), { code: 'ERR_PROXY_TOO_LARGE' });
    assert.equal(state.cancelled, true);
    const again = streamOf([], true);
    await assert.rejects(readCapped(new Response(again.body), 10, { code: 'ERR_RTC_BAD_ANSWER' }), { code: 'ERR_RTC_BAD_ANSWER' });
  });

  it('refuses a body whose Content-Length is over the cap before reading any of it', async () => {
    const { body, state } = streamOf([new Uint8Array(4)]);
    const res = new Response(body, { headers: { 'content-length': '1000000' } });
    await assert.rejects(readCapped(res, 100), { code: 'ERR_PROXY_TOO_LARGE' });
    assert.equal(state.cancelled, true);
  });

  it('jsonCapped parses a small JSON body', async () => {
    assert.deepEqual(await jsonCapped(new Response('{"error":{"code":"ERR_PROXY_BUSY"}}'), 100), { error: { code: 'ERR_PROXY_BUSY' } });
  });
});

describe('capped bodies: a peer that sends an endless answer', function () {
  this.timeout(20_000);
  /** @type {{close: () => void}[]} */
  const servers = [];
  const endless = async (/** @type {number} */ status) => { const s = await endlessServer(status); servers.push(s); return s; };
  afterEach(() => { for (const s of servers.splice(0)) s.close(); });

  it('warmHttp: an endless /healthz is cut, with a code', async () => {
    const s = await endless(200);
    assert.deepEqual(await createClient({ origo: null, logger: quiet }).warmHttp([{ id: 'p0', url: s.url }]), [{ id: 'p0', ok: false, code: 'ERR_PROXY_TOO_LARGE' }]);
  });

  for (const mode of ['parallel-http', 'range-http']) {
    it(`${mode}: a proxy's error with an endless body fails that proxy by its status`, async () => {
      const s = await endless(500);
      const c = createClient({ origo: null, logger: quiet });
      const err = await c.download('http://origin.test/media/demo-1MB.bin', { mode, proxies: [{ id: 'p0', url: s.url }], log: false }).then(() => null, (e) => e);
      assert.ok(err, 'the download failed');
      assert.equal(err.perProxy?.[0]?.error?.code, 'ERR_PROXY_STATUS', JSON.stringify(err.perProxy));
      assert.ok(s.sent() < STOPPED_READING_BYTES, `the client stopped reading (${s.sent()} bytes sent)`);
    });
  }

  it('a 503 refusal with an endless body: its code is not read, and the answer comes back', async () => {
    const s = await endless(503);
    const access = createProxyAccess({ proxies: [{ id: 'p0', url: s.url, ticket: null }], spares: [{ id: 'p1', url: 'http://127.0.0.1:9', ticket: null }], fetch, logger: quiet });
    const res = await access.fetch(`${s.url}/fetch?url=x`);
    assert.equal(res.status, 503);
    assert.deepEqual(access.moves(), [], 'not taken for ERR_PROXY_BUSY');
    await res.body?.cancel();
  });

  it('WebRTC signalling: an endless answer to the offer fails with ERR_RTC_BAD_ANSWER', async () => {
    const s = await endless(200);
    await assert.rejects(connectPeer({ url: s.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC, fetch, timeoutMs: 10_000, hedgeAfterMs: 0 }),
      { code: 'ERR_RTC_BAD_ANSWER' });
  });

  it('Origo: an endless proxy list fails with ERR_ORIGO_BAD_RESPONSE', async () => {
    const s = await endless(200);
    await assert.rejects(createClient({ origo: s.url, logger: quiet }).proxies({ n: 4 }), { code: 'ERR_ORIGO_BAD_RESPONSE' });
    assert.ok(s.sent() < STOPPED_READING_BYTES, `the client stopped reading (${s.sent()} bytes sent)`);
  });

  it('log upload: an endless ack is a failed post, and the records stay queued', async () => {
    const s = await endless(200);
    const sender = createLogSender({ origo: s.url, fetch, logger: quiet, retryBaseMs: 60_000 });
    sender.enqueue({ id: '00000000-0000-4000-8000-000000000001' });
    await assert.doesNotReject(async () => {
      for (const t0 = Date.now(); sender.counters.failures === 0;) {
        if (Date.now() - t0 > 10_000) throw new Error('no failure counted');
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    assert.equal(sender.pending.length, 1);
    assert.equal(sender.counters.stored, 0);
    sender.close();
  });
});
