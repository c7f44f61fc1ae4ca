// The WebRTC transport without MUTP: signalling validation, the peer cap, the idle timeout,
// and bufferedAmount-capped sending of raw bytes over a real data channel on loopback.
import assert from 'node:assert/strict';
import http from 'node:http';
import express from 'express';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { createSignalling } from '../src/rtc/signalling.js';
import { createChannelSender } from '../src/rtc/channel-sender.js';
import { SEND_HIGH_WATER_BYTES, MAX_OUTBOUND_MESSAGE_BYTES } from '../src/rtc/limits.js';
import { connectPeer } from '@mutp/proxyclientlib/connect-peer';
import { until } from './helpers/fake-origo.js';

const LOOPBACK_RTC = { bindAddress: '127.0.0.1' }; // tests only target loopback
const quietLogger = { info() {}, warn() {}, error() {} };
/** The bulk run is over when nothing arrived for this long (ms): an unreliable channel never resends a lost final message. */
const BULK_QUIET_MS = 1000;
/** Wait this long (ms) for the first message of a bulk run: a connected loopback channel delivers in milliseconds. */
const BULK_FIRST_MESSAGE_MS = 10_000;
/** After the last message (or all of them), wait this long (ms) for late stragglers. */
const BULK_STRAGGLERS_MS = 200;

/** A session that answers a 4-byte count with that many numbered 1200-byte messages. */
function bulkSession(stats) {
  return (channel) => {
    const out = createChannelSender(channel);
    let stopped = false;
    channel.addEventListener('message', async (ev) => {
      const count = new DataView(ev.data).getUint32(0);
      for (let i = 0; i < count && !stopped; ) {
        if (!out.canSend()) {
          await out.drained();
          continue;
        }
        const msg = new Uint8Array(MAX_OUTBOUND_MESSAGE_BYTES);
        new DataView(msg.buffer).setUint32(0, i);
        msg.fill(i & 0xff, 4);
        out.send(msg);
        stats.maxBuffered = Math.max(stats.maxBuffered, channel.bufferedAmount);
        i++;
      }
    });
    return { stop() { stopped = true; } };
  };
}

/**
 * @param {object} [opts]  passed to createSignalling
 * @param {{ olderProxy?: boolean }} [o]  olderProxy: the offer's negotiatedChannelId is dropped before the
 *   signalling reads it, as a proxy from before pre-agreed channels ignores it
 */
async function startServer(opts = {}, { olderProxy = false } = {}) {
  /** @type {{ maxBuffered: number, channels: { negotiated: boolean, id: number | null }[] }} */
  const stats = { maxBuffered: 0, channels: [] };
  const app = express();
  const bulk = bulkSession(stats);
  const sig = createSignalling({ RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: quietLogger,
    onChannel: (channel) => { stats.channels.push({ negotiated: channel.negotiated, id: channel.id }); return bulk(channel); }, ...opts });
  if (olderProxy) app.use('/rtc/offer', express.json(), (req, _res, next) => { delete req.body?.negotiatedChannelId; next(); });
  app.use(sig.router);
  const server = http.createServer(app);
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  return { url, sig, stats, async close() { sig.close(); server.closeAllConnections(); await new Promise((r) => server.close(r)); } };
}

/**
 * Close the client's end, then wait until the proxy has dropped its own on the "closed" the
 * client's shutdown brings, as a deployed proxy does. A test's teardown closing the proxy's end in
 * the same millisecond can crash the stock WebRTC build (proxy/native/README.md, "Callbacks that
 * outlive a close"); mocha's timeout bounds the wait.
 * @param {{ close(): void }} link @param {{ sig: { peerCount: number } }} srv
 */
async function closeClientFirst(link, srv) {
  link.close();
  await until(() => srv.sig.peerCount === 0);
}

async function post(url, body, contentType = 'application/json') {
  const res = await fetch(`${url}/rtc/offer`, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: res.status, body: await res.json() };
}

/**
 * Ask the bulk session for `count` messages and count the distinct ones that come within 5 s.
 * @param {RTCDataChannel} channel @param {number} count @returns {Promise<number>}
 */
function roundTrip(channel, count) {
  const seen = new Set();
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(seen.size), 5000);
    channel.addEventListener('message', (ev) => {
      seen.add(new DataView(ev.data).getUint32(0));
      if (seen.size === count) { clearTimeout(timer); resolve(count); }
    });
    const req = new Uint8Array(4);
    new DataView(req.buffer).setUint32(0, count);
    channel.send(req);
  });
}

describe('rtc transport (real WebRTC on loopback)', function () {
  let srv;
  beforeEach(async () => { srv = await startServer(); });
  afterEach(async () => { await srv.close(); });

  it('answers an actpass offer as the DTLS client (a=setup:active), so no ClientHello of the client is dropped', async () => {
    const pc = new RTCPeerConnection({ iceServers: [], ...LOOPBACK_RTC });
    try {
      pc.createDataChannel('mutp');
      await pc.setLocalDescription(await pc.createOffer());
      const offer = /** @type {RTCSessionDescription} */ (pc.localDescription).sdp;
      assert.match(offer, /^a=setup:actpass\r?$/m);
      const r = await post(srv.url, JSON.stringify({ type: 'offer', sdp: offer }));
      assert.equal(r.status, 200);
      assert.match(r.body.sdp, /^a=setup:active\r?$/m);
    } finally {
      pc.close();
    }
  });

  it('refuses malformed offers with codes', async () => {
    const cases = [
      ['not json', 400, 'ERR_BAD_OFFER'],
      [JSON.stringify([1, 2]), 400, 'ERR_BAD_OFFER'],
      [JSON.stringify({ type: 'answer', sdp: 'v=0\r\n' }), 400, 'ERR_BAD_OFFER'],
      [JSON.stringify({ type: 'offer' }), 400, 'ERR_BAD_OFFER'],
      [JSON.stringify({ type: 'offer', sdp: 42 }), 400, 'ERR_BAD_OFFER'],
      [JSON.stringify({ type: 'offer', sdp: 'hello' }), 400, 'ERR_BAD_OFFER'],
      [JSON.stringify({ type: 'offer', sdp: 'v=0\r\n' + 'a'.repeat(40_000) }), 413, 'ERR_OFFER_TOO_LARGE'],
      [JSON.stringify({ type: 'offer', sdp: 'x'.repeat(70_000) }), 413, 'ERR_OFFER_TOO_LARGE'],
      [JSON.stringify({ type: 'offer', sdp: 'v=0\r\ngarbage\r\n' }), 400, 'ERR_BAD_OFFER'],
      ...[-1, 1.5, '0', 1024, true].map((id) => [JSON.stringify({ type: 'offer', sdp: 'v=0\r\n', negotiatedChannelId: id }), 400, 'ERR_BAD_OFFER']),
    ];
    for (const [body, status, code] of cases) {
      const r = await post(srv.url, body);
      assert.equal(r.status, status, `status for ${String(body).slice(0, 40)}`);
      assert.equal(r.body.error.code, code);
    }
    assert.equal(srv.sig.peerCount, 0, 'no peer connection left behind by refused offers');
  });

  it('opens the MUTP channel pre-agreed: the answer says so, and both ends run it on stream 0 without an in-band open', async () => {
    const link = await connectPeer({ url: srv.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC });
    try {
      assert.deepEqual([link.channel.negotiated, link.channel.id], [true, 0]);
      assert.equal(await roundTrip(link.channel, 3), 3, 'the session answered on it');
      assert.deepEqual(srv.stats.channels, [{ negotiated: true, id: 0 }]);
    } finally {
      await closeClientFirst(link, srv);
    }
  });

  it('moves 12 MB of numbered messages with bufferedAmount capped', async () => {
    const link = await connectPeer({ url: srv.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC });
    try {
      assert.equal(link.channel.ordered, false);
      assert.equal(link.channel.maxRetransmits, 0);
      const count = 10_000;
      const seen = new Uint8Array(count);
      let received = 0;
      let corrupt = 0;
      /** @type {ReturnType<typeof setTimeout> | undefined} */
      let timer;
      /** @type {() => void} */
      let over = () => {};
      const done = new Promise((resolve) => { over = () => resolve(undefined); });
      const endIn = (/** @type {number} */ ms) => { clearTimeout(timer); timer = setTimeout(over, ms); };
      let last = false;
      link.channel.addEventListener('message', (ev) => {
        const bytes = new Uint8Array(ev.data);
        const i = new DataView(ev.data).getUint32(0);
        if (bytes.length !== MAX_OUTBOUND_MESSAGE_BYTES || bytes[4] !== (i & 0xff) || bytes[1199] !== (i & 0xff)) corrupt++;
        if (!seen[i]) { seen[i] = 1; received++; }
        last ||= i === count - 1 || received === count;
        endIn(last ? BULK_STRAGGLERS_MS : BULK_QUIET_MS); // the final message may be lost: silence ends the run too
      });
      const req = new Uint8Array(4);
      new DataView(req.buffer).setUint32(0, count);
      link.channel.send(req);
      endIn(BULK_FIRST_MESSAGE_MS);
      await done;
      clearTimeout(timer);
      assert.equal(corrupt, 0);
      // unreliable channel: loopback loss is tiny, but not promised to be zero
      assert.ok(received > count * 0.95, `received ${received}/${count}`);
      assert.ok(srv.stats.maxBuffered > 0, 'the sender queued something');
      assert.ok(srv.stats.maxBuffered <= SEND_HIGH_WATER_BYTES + MAX_OUTBOUND_MESSAGE_BYTES,
        `bufferedAmount ${srv.stats.maxBuffered} exceeded the cap`);
    } finally {
      await closeClientFirst(link, srv);
    }
  });
});

describe('rtc transport with a proxy from before pre-agreed channels', function () {
  it('the client opens its channel in band instead, and the download runs on it', async () => {
    const srv = await startServer({}, { olderProxy: true });
    const link = await connectPeer({ url: srv.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC });
    try {
      assert.equal(link.channel.negotiated, false);
      assert.equal(await roundTrip(link.channel, 3), 3, 'the session answered on it');
      assert.deepEqual(srv.stats.channels.map((c) => c.negotiated), [false]);
    } finally {
      link.close();
      await srv.close();
    }
  });
});

describe('rtc transport limits', function () {
  it('caps concurrent peer connections (503 ERR_PROXY_BUSY)', async () => {
    const srv = await startServer({ maxPeers: 1 });
    const first = await connectPeer({ url: srv.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC });
    try {
      await assert.rejects(connectPeer({ url: srv.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC }),
        (/** @type {any} */ err) => err.code === 'ERR_RTC_SIGNAL_HTTP' && err.status === 503 && err.remoteCode === 'ERR_PROXY_BUSY');
    } finally {
      first.close();
      await srv.close();
    }
  });

  it('closes an idle session', async () => {
    const srv = await startServer({ idleTimeoutMs: 100 });
    const link = await connectPeer({ url: srv.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC });
    try {
      await new Promise((resolve) => link.channel.addEventListener('close', resolve, { once: true }));
      // On a busy machine the client may have started a hedged twin connect; the server holds
      // that twin until its own close or open-timeout sweep, so wait for the registry to empty.
      // (mocha's timeout bounds the wait; the never-opened twin is swept after CHANNEL_OPEN_TIMEOUT_MS).
      await until(() => srv.sig.peerCount === 0);
    } finally {
      link.close();
      await srv.close();
    }
  });

  it('a client connect to a dead port fails with a code', async () => {
    const srv = await startServer();
    const url = srv.url;
    await srv.close();
    await assert.rejects(connectPeer({ url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC }),
      (/** @type {any} */ err) => err.code === 'ERR_RTC_SIGNAL_FAILED');
  });

  it('a client connect honours an aborted signal', async () => {
    const srv = await startServer();
    try {
      const ctrl = new AbortController();
      const p = connectPeer({ url: srv.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC, signal: ctrl.signal });
      ctrl.abort();
      await assert.rejects(p, (/** @type {any} */ err) => err.code === 'ERR_ABORTED');
    } finally {
      await srv.close();
    }
  });
});
