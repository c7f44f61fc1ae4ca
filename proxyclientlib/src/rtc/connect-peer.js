// Connect to one proxy over WebRTC: create an offer, wait for ICE gathering to complete,
// POST it to the proxy's /rtc/offer, apply the answer, and wait for the data channel to open.
// The channel is pre-agreed (negotiated, MUTP_NEGOTIATED_CHANNEL_ID): it opens with the SCTP
// association, one round trip before an in-band one would; a proxy that does not say it made
// its end gets an in-band channel instead.

import { codedError } from '@mutp/common/errors';
import { MUTP_CHANNEL_LABEL, MUTP_CHANNEL_OPTIONS, MUTP_NEGOTIATED_CHANNEL_ID } from '@mutp/protocol/constants';
import { offerRequestField } from '@mutp/protocol/offer-request';
import { proxyEndpoint } from '../http/proxy-fetch.js';
import { textCapped } from '../capped-body.js';
import { closeConnection } from '#close-connection';

/** Whole connect budget (ms), all attempts: signalling + ICE + DTLS + SCTP take ~30 ms on a LAN; a proxy slower than this is useless. */
export const CONNECT_TIMEOUT_MS = 10_000;

/** One attempt's budget (ms): an attempt that has not opened by then is retried (libdatachannel sometimes never opens one). */
const ATTEMPT_TIMEOUT_MS = 4000;

/** Connection attempts when the RTC stack fails to apply a valid answer or never opens the channel (see applyAnswer). */
const CONNECT_ATTEMPTS = 5;

/**
 * Wait before asking again (ms) when the proxy answered 429 ERR_PEERS_PENDING: it still holds our
 * failed or timed-out attempt and its twin (2 per client) until their open timeout, 5 s after
 * their offers, swept each second. On a lossy link (testbed, 5% loss) a handshake can outlast an
 * attempt (a DTLS or SCTP set-up packet lost twice costs 3 s), or an attempt fails at once (the
 * RTC stack refusing the answer), and the next one was refused: the proxy sat out the next
 * downloads. These waits are not failed attempts: the connect budget bounds them.
 */
export const PEERS_PENDING_RETRY_MS = 1000;

/**
 * An attempt not open after this (ms) gets a twin started beside it; the first to open wins, the
 * other is closed. libdatachannel 0.33 now and then loses the first DTLS flight and retransmits it
 * only after 1 s (testbed: ICE connected at 102 ms, DTLS at 1103 ms, ~1 connect in 6); a whole
 * connect takes ~100–200 ms there, ~30 ms on loopback.
 */
export const HEDGE_AFTER_MS = 300;

/**
 * Once the answer is in, the twin waits longer on a slow path: until the answer + this many times
 * the signalling took, at least HEDGE_AFTER_MS. The signalling is 1 round trip on a kept HTTP
 * connection to the proxy, 2 on a new one (its TCP handshake); ICE, DTLS and SCTP take ~5 round
 * trips after the answer. A twin after 300 ms came for every connection of a cold download (four
 * more peer connections for the proxies to set up, and one being closed when the process exits
 * could hold it 2 s). With 4 signallings, a client reconnecting on kept HTTP connections
 * (testbed, RTT 50 ms: answer at 66 ms, open at 379) started its twin at 366 ms, just before the
 * first opened; the twin, aborted with its offer already at the proxy, held one of the client's 2
 * pending connections there for the proxy's 5 s open timeout, and every other cold connect was
 * refused (429 ERR_PEERS_PENDING) for ~4 s. With 6 the twin comes ≥ 6 round trips after the
 * answer (~460 ms there; ~1 s after a 150 ms answer on a new connection).
 */
export const HEDGE_AFTER_ANSWER_SIGNALS = 6;

/**
 * How long a connect whose only remote candidates are loopback, from a browser that offered none,
 * may take before it is given up (ms): Chromium opens such a channel in ~30 ms (a lost first DTLS
 * flight costs 1 s more), Firefox never; without this, the caller waits the whole timeout.
 */
export const LOOPBACK_MISMATCH_WAIT_MS = 1200;

/** Largest answer body accepted (bytes): an answer for one channel is ~1 KB. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * @typedef {object} PeerLink
 * @property {RTCPeerConnection} pc
 * @property {RTCDataChannel} channel
 * @property {() => void} close      idempotent; closes the channel and the peer connection
 * @property {boolean} requestTaken  the proxy took the request the offer carried: it is serving it already
 */

/**
 * @param {object} opts
 * @param {string} opts.url                        proxy base URL, e.g. http://127.0.0.1:9001
 * @param {typeof RTCPeerConnection} opts.RTCPeerConnection
 * @param {object} [opts.rtcConfig]                merged into the RTCPeerConnection config
 * @param {AbortSignal} [opts.signal]
 * @param {number} [opts.timeoutMs]
 * @param {typeof fetch} [opts.fetch]
 * @param {number} [opts.hedgeAfterMs]             start a twin attempt after this (ms); 0: never
 * @param {number} [opts.pendingRetryMs]           wait after a 429 ERR_PEERS_PENDING (ms; PEERS_PENDING_RETRY_MS)
 * @param {string | null} [opts.first]             the object the download asks for first: the offer names it, so the
 *   proxy fetches it while the connection opens (an older proxy ignores it)
 * @param {(() => Uint8Array | null) | null} [opts.request]  the download's request datagram, read when the offer goes (null:
 *   none yet, so an offer never waits for it): the offer carries it, so the proxy serves it as soon as its end of the
 *   channel opens and answers `requestTaken` (an older proxy ignores it: the caller then sends it on the channel)
 * @returns {Promise<PeerLink>} rejects with ERR_RTC_CONNECT_TIMEOUT, ERR_RTC_SIGNAL_HTTP,
 *   ERR_RTC_SIGNAL_FAILED, ERR_RTC_BAD_ANSWER, ERR_RTC_ANSWER_FAILED, ERR_RTC_CHANNEL_CLOSED, ERR_ABORTED, or at once
 *   (no retry: it cannot succeed) ERR_RTC_NO_CANDIDATES, ERR_RTC_NO_CANDIDATE_PAIR, ERR_RTC_ICE_FAILED
 */
export async function connectPeer(opts) {
  const deadline = performance.now() + (opts.timeoutMs ?? CONNECT_TIMEOUT_MS);
  let failed = 0; // attempts that failed (a 429 ERR_PEERS_PENDING is a wait, not one of them)
  for (;;) {
    try {
      return await connectHedged({ ...opts, timeoutMs: Math.max(1, Math.min(ATTEMPT_TIMEOUT_MS, deadline - performance.now())) });
    } catch (e) {
      const err = /** @type {any} */ (e);
      const code = err?.code;
      const pending = code === 'ERR_RTC_SIGNAL_HTTP' && err.remoteCode === 'ERR_PEERS_PENDING';
      const waitMs = pending ? opts.pendingRetryMs ?? PEERS_PENDING_RETRY_MS : 0;
      // ERR_RTC_SIGNAL_FAILED: e.g. a kept-alive HTTP socket to a proxy that restarted ("other side closed")
      if (!pending) failed++;
      const retry = (pending || code === 'ERR_RTC_ANSWER_FAILED' || code === 'ERR_RTC_CONNECT_TIMEOUT' || code === 'ERR_RTC_SIGNAL_FAILED') &&
        failed < CONNECT_ATTEMPTS && deadline - performance.now() > waitMs + 100; // 100 ms: too little left for another attempt to succeed
      if (!retry) throw e;
      if (waitMs > 0) await sleep(waitMs, opts.signal);
    }
  }
}

/**
 * One attempt, with a twin started if it is slow (HEDGE_AFTER_MS without an answer, later once it
 * has one: HEDGE_AFTER_ANSWER_SIGNALS): the first to open wins, the other is aborted (or closed,
 * if it opened too). Fails when both failed, with the first's error.
 * @param {Parameters<typeof connectPeer>[0]} opts @returns {Promise<PeerLink>}
 */
function connectHedged(opts) {
  const hedgeAfterMs = opts.hedgeAfterMs ?? HEDGE_AFTER_MS;
  return new Promise((resolve, reject) => {
    /** @type {AbortController[]} */
    const ctrls = [];
    /** @type {any[]} */
    const errors = [];
    let won = false;
    let running = 0;
    const onCallerAbort = () => ctrls.forEach((c) => c.abort(opts.signal?.reason));
    opts.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const budgetMs = opts.timeoutMs ?? CONNECT_TIMEOUT_MS;
    let timer = hedgeAfterMs > 0 && hedgeAfterMs < budgetMs ? setTimeout(start, hedgeAfterMs) : null;
    const startedAt = performance.now();
    start();

    /** The first attempt's answer came after `signalMs`: its twin waits for the path's pace. @param {number} signalMs */
    function onAnswer(signalMs) {
      if (timer === null || ctrls.length > 1) return;
      clearTimeout(timer);
      const at = signalMs + Math.max(hedgeAfterMs, HEDGE_AFTER_ANSWER_SIGNALS * signalMs);
      timer = setTimeout(start, Math.max(0, Math.min(at, budgetMs) - (performance.now() - startedAt)));
    }

    function start() {
      if (won || opts.signal?.aborted) return;
      const ctrl = new AbortController();
      ctrls.push(ctrl);
      running++;
      const i = ctrls.length - 1;
      connectOnce({ ...opts, signal: ctrl.signal, onAnswer: i === 0 ? onAnswer : undefined }).then((peer) => {
        running--;
        if (won) return peer.close(); // the twin opened first
        won = true;
        done();
        ctrls.forEach((c, j) => { if (j !== i) c.abort(codedError('ERR_ABORTED', 'the twin attempt opened first')); });
        resolve(peer);
      }, (err) => {
        running--;
        errors[i] = err;
        if (won) return;
        if (running === 0 && (timer === null || ctrls.length > 1 || opts.signal?.aborted)) {
          done();
          reject(errors.find((e) => e) ?? err);
        } else if (running === 0 && timer !== null) {
          // failed fast before the hedge time: no twin is coming, so fail now (the caller retries)
          clearTimeout(timer);
          done();
          reject(err);
        }
      });
    }
    function done() {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onCallerAbort);
    }
  });
}

/**
 * @param {Parameters<typeof connectPeer>[0] & { onAnswer?: (signalMs: number) => void }} opts  onAnswer: the answer came
 *   this long after the attempt's start
 * @returns {Promise<PeerLink>}
 */
async function connectOnce({ url, RTCPeerConnection, rtcConfig = {}, signal, timeoutMs = CONNECT_TIMEOUT_MS,
  fetch = globalThis.fetch, first = null, request = null, onAnswer }) {
  const t0 = performance.now();
  if (typeof RTCPeerConnection !== 'function') throw codedError('ERR_RTC_UNAVAILABLE', 'no RTCPeerConnection in this environment');
  if (signal?.aborted) throw abortError(signal);
  const offerUrl = proxyEndpoint(url, 'rtc/offer');

  const pc = new RTCPeerConnection({ iceServers: [], ...rtcConfig });
  /** @type {RTCDataChannel | null} */
  let channel = null;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    closePeer(pc, channel);
  };

  // one controller aborts whichever step is pending: the timeout, the caller's signal
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(codedError('ERR_RTC_CONNECT_TIMEOUT', `no data channel to ${url} within ${timeoutMs} ms`)), timeoutMs);
  const onAbort = () => ctrl.abort(abortError(signal));
  signal?.addEventListener('abort', onAbort, { once: true });
  const aborted = new Promise((_, reject) => {
    ctrl.signal.addEventListener('abort', () => reject(ctrl.signal.reason), { once: true });
  });
  aborted.catch(() => {}); // observed via race below
  /** @template T @param {Promise<T>} p @returns {Promise<T>} */
  const step = (p) => Promise.race([p, aborted]);

  try {
    channel = await step(mutpChannel(pc, { negotiated: true, id: MUTP_NEGOTIATED_CHANNEL_ID }));
    await step(pc.setLocalDescription(await step(pc.createOffer())));
    await step(gathered(pc));
    const offer = pc.localDescription;
    const local = candidateAddresses(offer.sdp);
    // a browser that offers no candidate (Firefox without a default route) can never connect
    if (local.length === 0) throw codedError('ERR_RTC_NO_CANDIDATES', 'this browser gathered no ICE candidate');
    const firstRequest = request?.() ?? null;
    let res;
    try {
      res = await fetch(offerUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'offer', sdp: offer.sdp, negotiatedChannelId: MUTP_NEGOTIATED_CHANNEL_ID, ...(first ? { first } : {}),
          ...(firstRequest ? { request: offerRequestField(firstRequest) } : {}) }),
        signal: ctrl.signal,
      });
    } catch (e) {
      if (ctrl.signal.aborted) throw ctrl.signal.reason;
      throw codedError('ERR_RTC_SIGNAL_FAILED', `POST ${offerUrl}: ${/** @type {Error} */ (e).message}`, { cause: e });
    }
    const text = await step(textCapped(res, MAX_ANSWER_BYTES, { code: 'ERR_RTC_BAD_ANSWER', what: `POST ${offerUrl}: the answer body` }));
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    if (!res.ok) {
      const code = typeof body?.error?.code === 'string' ? body.error.code : 'unknown';
      throw codedError('ERR_RTC_SIGNAL_HTTP', `POST ${offerUrl}: HTTP ${res.status} (${code})`, { status: res.status, remoteCode: code });
    }
    if (!body || body.type !== 'answer' || typeof body.sdp !== 'string' || !body.sdp.startsWith('v=0')) {
      throw codedError('ERR_RTC_BAD_ANSWER', `POST ${offerUrl}: the body is not { type: "answer", sdp }`);
    }
    const remote = candidateAddresses(body.sdp);
    onAnswer?.(performance.now() - t0);
    await step(applyAnswer(pc, body.sdp));
    if (body.negotiatedChannelId !== MUTP_NEGOTIATED_CHANNEL_ID) channel = await step(inBandInstead(pc, channel)); // a proxy without pre-agreed channels
    // a proxy on loopback only and no loopback candidate here: Chromium pairs them in ms, Firefox never does
    const mismatch = remote.length > 0 && remote.every(isLoopback) && !local.some(isLoopback);
    const open = /** @type {RTCDataChannel} */ (channel);
    await step(Promise.race([channelOpen(open), iceFailed(pc), ...(mismatch ? [noPairAfter(LOOPBACK_MISMATCH_WAIT_MS, remote[0])] : [])]));
    return { pc, channel: open, close, requestTaken: firstRequest !== null && body.requestTaken === true };
  } catch (e) {
    close();
    throw e;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * The MUTP channel opened in band (the proxy sees it as a new channel) in place of the pre-agreed
 * one, which is closed after the new one has its id, so the two never share a stream.
 * @param {RTCPeerConnection} pc @param {RTCDataChannel | null} negotiated @returns {Promise<RTCDataChannel>}
 */
async function inBandInstead(pc, negotiated) {
  const channel = await mutpChannel(pc, {});
  try {
    negotiated?.close();
  } catch {
    // already closed
  }
  return channel;
}

/**
 * The MUTP channel on `pc`, its messages as ArrayBuffers. Awaited: a worker's peer connection
 * (rtc-bridge.js) has its page make the channel.
 * @param {RTCPeerConnection} pc @param {RTCDataChannelInit} init  pre-agreed or not @returns {Promise<RTCDataChannel>}
 */
async function mutpChannel(pc, init) {
  const channel = await pc.createDataChannel(MUTP_CHANNEL_LABEL, { ...MUTP_CHANNEL_OPTIONS, ...init });
  channel.binaryType = 'arraybuffer';
  return channel;
}

/** Resolves after `ms`, or rejects when `signal` aborts first. @param {number} ms @param {AbortSignal} [signal] */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(t);
      reject(abortError(/** @type {AbortSignal} */ (signal)));
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(undefined);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** @param {AbortSignal} signal */
function abortError(signal) {
  const reason = signal.reason;
  if (typeof reason?.code === 'string') return reason; // already one of ours
  return codedError('ERR_ABORTED', 'the download was aborted', { cause: reason });
}

/** @param {RTCPeerConnection} pc @returns {Promise<void>} */
function gathered(pc) {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const onChange = () => {
      if (pc.iceGatheringState !== 'complete') return;
      pc.removeEventListener('icegatheringstatechange', onChange);
      resolve();
    };
    pc.addEventListener('icegatheringstatechange', onChange);
  });
}

/**
 * Apply the proxy's answer. libdatachannel (node-datachannel 0.33) now and then throws "Got a
 * remote candidate without ICE transport" here, and that connection never opens even when the
 * error is ignored (measured: ~1 in 10 loopback connects); the code lets connectPeer retry.
 * @param {RTCPeerConnection} pc
 * @param {string} sdp
 */
async function applyAnswer(pc, sdp) {
  try {
    await pc.setRemoteDescription({ type: 'answer', sdp });
  } catch (e) {
    throw codedError('ERR_RTC_ANSWER_FAILED', `the answer could not be applied: ${/** @type {Error} */ (e).message}`, { cause: e });
  }
}

/** @param {string} sdp @returns {string[]} the connection addresses of its `a=candidate` lines (mDNS names included) */
export function candidateAddresses(sdp) {
  const out = [];
  for (const m of sdp.matchAll(/^a=candidate:\S+ \d+ \S+ \d+ (\S+) \d+ typ/gm)) out.push(m[1]);
  return out;
}

/** @param {string} a */
const isLoopback = (a) => /^127\./.test(a) || a === '::1' || a === 'localhost';

/** @param {number} ms @param {string} addr @returns {Promise<never>} */
function noPairAfter(ms, addr) {
  return new Promise((_, reject) => {
    const t = setTimeout(() => reject(codedError('ERR_RTC_NO_CANDIDATE_PAIR', `the proxy offers only loopback (${addr}), this browser no loopback candidate, and no channel opened within ${ms} ms`)), ms);
    /** @type {any} */ (t).unref?.();
  });
}

/** Rejects when ICE gives up (the connection cannot form): no need to wait for the timeout. @param {RTCPeerConnection} pc @returns {Promise<never>} */
function iceFailed(pc) {
  return new Promise((_, reject) => {
    const check = () => {
      if (pc.iceConnectionState === 'failed' || pc.connectionState === 'failed') {
        reject(codedError('ERR_RTC_ICE_FAILED', 'ICE found no working candidate pair'));
      }
    };
    pc.addEventListener?.('iceconnectionstatechange', check);
    pc.addEventListener?.('connectionstatechange', check);
    check();
  });
}

/** @param {RTCDataChannel} channel @returns {Promise<void>} */
function channelOpen(channel) {
  if (channel.readyState === 'open') return Promise.resolve();
  return new Promise((resolve, reject) => {
    channel.addEventListener('open', () => resolve(), { once: true });
    channel.addEventListener('close', () => reject(codedError('ERR_RTC_CHANNEL_CLOSED', 'the data channel closed before it opened')), { once: true });
  });
}

/**
 * Close a data channel and its peer connection, ignoring ones already closed.
 * @param {RTCPeerConnection} pc @param {RTCDataChannel | null} channel
 */
export function closePeer(pc, channel) {
  try {
    channel?.close();
  } catch {
    // already closed
  }
  closeConnection(pc);
}
