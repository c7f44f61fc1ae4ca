// A WebRTC offer that carries the download's first request: the proxy serves it as soon as its end
// of the pre-agreed channel opens, with nothing sent on the channel.
import assert from 'node:assert/strict';
import { startProxy } from '../index.js';
import { startOrigin, testBytes, captureLogger } from '@mutp/testkit/local-origin';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { connectPeer } from '@mutp/proxyclientlib/connect-peer';
import { LOOPBACK_RTC } from '@mutp/testkit/mutp-harness';
import { decodeMessage, encodeMessage, normalizeParams } from '@mutp/protocol';
import { offerRequestField } from '@mutp/protocol/offer-request';

/** How long the origin holds its answer (ms): the proxy's first packets then come well after the client's end opened and listens. */
const ORIGIN_DELAY_MS = 300;

/** How long the test waits for the proxy's first message (ms): far above a loopback connect and the origin's delay. */
const FIRST_MESSAGE_WAIT_MS = 5000;

describe('proxy: the first request carried by a WebRTC offer', function () {
  this.timeout(20_000);
  const data = testBytes(100_000);
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  /** @type {Awaited<ReturnType<typeof startProxy>>} */ let proxy;

  before(async () => {
    origin = await startOrigin((_req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'video/iso.segment' }).end(data), ORIGIN_DELAY_MS);
    });
    proxy = await startProxy({ host: '127.0.0.1', allowedHosts: [`127.0.0.1:${origin.port}`], allowPrivate: true, logger: captureLogger().logger });
  });
  after(async () => {
    await proxy?.close();
    await origin?.close();
  });

  const request = (/** @type {string} */ url) => encodeMessage({
    type: 'request', downloadId: 31, url, method: 'GET', range: null, mode: 'uncoded', sourceIndex: 0, sourceCount: 1,
    seed: 1, params: normalizeParams({}, 'uncoded'),
  });

  it('is served as the channel opens, with nothing sent on the channel', async () => {
    const url = `${origin.url}/seg-1.m4s`;
    // no `first`: the origin is asked only once the proxy serves the request
    const peer = await connectPeer({ url: proxy.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC, request: () => request(url) });
    try {
      const first = await new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no message from the proxy within ${FIRST_MESSAGE_WAIT_MS} ms`)), FIRST_MESSAGE_WAIT_MS);
        peer.channel.addEventListener('message', (ev) => {
          clearTimeout(t);
          resolve(decodeMessage(new Uint8Array(/** @type {ArrayBuffer} */ (ev.data))));
        }, { once: true });
      });
      assert.equal(first.ok, true);
      assert.equal(first.msg.downloadId, 31, 'an answer to the offer\'s request');
      assert.equal(peer.requestTaken, true, 'the answer said so: the client need not send it');
    } finally {
      peer.close();
    }
  });

  it('an offer whose request is not one MUTP request in base64, or has no pre-agreed channel: 400 ERR_BAD_OFFER', async () => {
    const ok = offerRequestField(request(`${origin.url}/seg-2.m4s`));
    // a real offer: only the request field is wrong
    const pc = new RTCPeerConnection(/** @type {RTCConfiguration} */ ({ iceServers: [], ...LOOPBACK_RTC }));
    pc.createDataChannel('mutp', { negotiated: true, id: 1 });
    await pc.setLocalDescription(await pc.createOffer());
    const sdp = /** @type {RTCSessionDescription} */ (pc.localDescription).sdp;
    pc.close();
    const cases = [
      { request: 'not base64!', negotiatedChannelId: 1 },
      { request: offerRequestField(encodeMessage({ type: 'done', downloadId: 31 })), negotiatedChannelId: 1 },
      { request: 42, negotiatedChannelId: 1 },
      { request: ok },
    ];
    for (const c of cases) {
      const res = await fetch(`${proxy.url}/rtc/offer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'offer', sdp, ...c }) });
      assert.equal(res.status, 400, JSON.stringify(c).slice(0, 60));
      const { error } = await res.json();
      assert.equal(error.code, 'ERR_BAD_OFFER');
      assert.match(error.message, /request must be/);
    }
  });
});
