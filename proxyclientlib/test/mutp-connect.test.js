// connectPeer's hedge: an attempt that is slow gets a twin; the first to open wins, the other goes.
import assert from 'node:assert/strict';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { connectPeer, HEDGE_AFTER_ANSWER_SIGNALS, PEERS_PENDING_RETRY_MS } from '../src/rtc/connect-peer.js';
import { LOOPBACK_RTC, memoryObjects, startTestProxy, waitFor } from '@mutp/testkit/mutp-harness';

describe('MUTP connect (loopback): hedged attempts', function () {
  this.timeout(30_000);

  it('a first attempt whose signalling hangs is overtaken by its twin, and aborted', async () => {
    const p = await startTestProxy({ id: 'p0', objects: memoryObjects(new Map()) });
    /** @type {(AbortSignal | undefined)[]} */
    const signals = [];
    /** @type {typeof fetch} */
    const hangFirst = (input, init) => {
      signals.push(init?.signal ?? undefined);
      if (signals.length > 1) return fetch(input, init);
      return new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    };
    try {
      // the whole budget is one attempt: without the twin this connect would time out
      const peer = await connectPeer({ url: p.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC, fetch: hangFirst, timeoutMs: 3000, hedgeAfterMs: 200 });
      assert.equal(peer.channel.readyState, 'open');
      assert.equal(signals.length, 2, 'a twin was started');
      assert.equal(signals[0]?.aborted, true, 'the hanging attempt was aborted');
      assert.equal(p.rtc.peerCount, 1, 'the proxy holds only the winner');
      peer.close();
      await waitFor(() => p.rtc.peerCount === 0);
    } finally {
      p.kill();
    }
  });

  it('an answer that came before the hedge time moves the twin to the path\'s pace (HEDGE_AFTER_ANSWER_SIGNALS): a connect that opens in time gets none', async () => {
    const p = await startTestProxy({ id: 'p0', objects: memoryObjects(new Map()) });
    // a slow path: the answer comes after SIGNAL_MS, well before the hedge time (a loaded box's
    // local fetch takes tens of ms), and the channel opens SETUP_MS after it, past the hedge time:
    // the old rule started a twin then; this one waits 6 × SIGNAL_MS after the answer
    const SIGNAL_MS = 200;
    const HEDGE_MS = 500;
    const SETUP_MS = 500;
    /** @type {number[]} */
    const posts = [];
    /** @type {typeof fetch} */
    const slowSignal = async (input, init) => {
      posts.push(performance.now());
      await new Promise((r) => setTimeout(r, SIGNAL_MS));
      return fetch(input, init);
    };
    class SlowSetup extends RTCPeerConnection {
      /** @param {RTCSessionDescriptionInit} d */
      async setRemoteDescription(d) {
        await new Promise((r) => setTimeout(r, SETUP_MS));
        return super.setRemoteDescription(d);
      }
    }
    try {
      const peer = await connectPeer({ url: p.url, RTCPeerConnection: /** @type {any} */ (SlowSetup), rtcConfig: LOOPBACK_RTC, fetch: slowSignal, timeoutMs: 5000, hedgeAfterMs: HEDGE_MS });
      assert.equal(peer.channel.readyState, 'open');
      assert.equal(posts.length, 1, 'no twin');
      assert.ok(SIGNAL_MS + SETUP_MS > HEDGE_MS && HEDGE_AFTER_ANSWER_SIGNALS * SIGNAL_MS > SETUP_MS + HEDGE_MS / 2);
      peer.close();
    } finally {
      p.kill();
    }
  });

  it('a twin waits 6 signallings after the answer: ICE, DTLS and SCTP take ~5 round trips after a 1-round-trip answer on a kept HTTP connection', async () => {
    const p = await startTestProxy({ id: 'p0', objects: memoryObjects(new Map()) });
    const SIGNAL_MS = 100; // the answer comes after this (one round trip)
    const SETUP_MS = 5 * SIGNAL_MS; // then ICE, DTLS and SCTP: 5 round trips (the answer is applied this late)
    /** @type {number[]} */
    const posts = [];
    /** @type {typeof fetch} */
    const slowSignal = async (input, init) => {
      posts.push(performance.now());
      await new Promise((r) => setTimeout(r, SIGNAL_MS));
      return fetch(input, init);
    };
    class SlowSetup extends RTCPeerConnection {
      /** @param {RTCSessionDescriptionInit} d */
      async setRemoteDescription(d) {
        await new Promise((r) => setTimeout(r, SETUP_MS));
        return super.setRemoteDescription(d);
      }
    }
    try {
      const peer = await connectPeer({ url: p.url, RTCPeerConnection: /** @type {any} */ (SlowSetup), rtcConfig: LOOPBACK_RTC, fetch: slowSignal, timeoutMs: 3000 });
      assert.equal(peer.channel.readyState, 'open');
      assert.equal(posts.length, 1, 'no twin: 4 signallings after the answer started one before this channel opened');
      peer.close();
    } finally {
      p.kill();
    }
  });

  it('a proxy still holding our earlier attempts (429 ERR_PEERS_PENDING) is asked again after each wait, within the budget', async () => {
    const p = await startTestProxy({ id: 'p0', objects: memoryObjects(new Map()) });
    /** @type {number[]} */
    const posts = [];
    const REFUSALS = 6; // more than connectPeer's attempts: a refusal is a wait, not a failed attempt
    const WAIT_MS = 100;
    const pendingBody = JSON.stringify({ error: { code: 'ERR_PEERS_PENDING', message: 'this client already has 2 connections opening' } });
    /** @type {typeof fetch} */
    const refuseFirst = (input, init) => {
      posts.push(performance.now());
      if (posts.length > REFUSALS) return fetch(input, init);
      return Promise.resolve(new Response(pendingBody, { status: 429, headers: { 'content-type': 'application/json' } }));
    };
    try {
      const peer = await connectPeer({ url: p.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC, fetch: refuseFirst, timeoutMs: 5000, hedgeAfterMs: 0, pendingRetryMs: WAIT_MS });
      assert.equal(peer.channel.readyState, 'open');
      assert.equal(posts.length, REFUSALS + 1);
      for (let i = 1; i < posts.length; i++) assert.ok(posts[i] - posts[i - 1] >= WAIT_MS - 5, `asked again after ${Math.round(posts[i] - posts[i - 1])} ms`);
      peer.close();
      // with no room left in the budget for the wait, the refusal is the answer
      await assert.rejects(connectPeer({ url: p.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC, fetch: async () => new Response(pendingBody, { status: 429 }), timeoutMs: PEERS_PENDING_RETRY_MS, hedgeAfterMs: 0 }),
        { code: 'ERR_RTC_SIGNAL_HTTP', remoteCode: 'ERR_PEERS_PENDING' });
    } finally {
      p.kill();
    }
  });

  it('without a twin (hedgeAfterMs 0) the same hang fails with ERR_RTC_CONNECT_TIMEOUT', async () => {
    const p = await startTestProxy({ id: 'p0', objects: memoryObjects(new Map()) });
    /** @type {typeof fetch} */
    const hang = (_input, init) => new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    try {
      await assert.rejects(connectPeer({ url: p.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC, fetch: hang, timeoutMs: 500, hedgeAfterMs: 0 }),
        { code: 'ERR_RTC_CONNECT_TIMEOUT' });
    } finally {
      p.kill();
    }
  });
});
