// Uncoded and Coded MUTP over WebRTC (paper III.A/B): connect to N proxies, ask each for the
// same object with its own source index, feed every packet to one protocol receiver, and
// broadcast its cumulative feedback to all proxies. A proxy that fails is dropped; the download
// fails only when none is left.

import { RTCPeerConnection as EnvRTCPeerConnection } from '#rtc';
import { encodeMessage, decodeMessage, createReceiver, normalizeParams, createMetaVote, createMetaAssembler } from '@mutp/protocol';
import { connectPeer, CONNECT_TIMEOUT_MS } from '../rtc/connect-peer.js';
import { codedError } from '../rtc/coded-error.js';
import { createSourceLink, estimateLoss, perProxyStats } from './source-link.js';
import { buildMutpStats } from './mutp-stats.js';

/** Housekeeping period (ms): feedback when packets stopped, request re-sends, stall checks. */
const TICK_MS = 50;

/** Re-send a request that got no meta after this long (ms): the channel is unreliable, requests can be lost. */
const REQUEST_RESEND_MS = 500;

/**
 * A proxy that has not sent its meta after this long (ms) is dropped: it covers the proxy's
 * origin fetch, which may be slow, but a proxy that stays silent is gone.
 */
const META_TIMEOUT_MS = 20_000;

/**
 * While the download makes no progress for this long (ms), every proxy that has been silent as
 * long is dropped: lets "all proxies gone" surface well within the 10 s the issue allows.
 */
const NO_PROGRESS_TIMEOUT_MS = 5000;

/** After the last byte, keep the channels open this long (ms) so `done` is read before the close (the channel is unordered). */
const DONE_LINGER_MS = 100;

/**
 * A kept (pooled) connection whose proxy sent nothing this long (ms) after our request is taken as
 * dead (e.g. the proxy restarted and ICE has not noticed) and replaced by a new connection. Covers
 * the proxy's origin fetch from a warm cache and two request re-sends.
 */
const REUSED_SILENT_MS = 1500;

/** Packets kept while the receiver is being created (count): a few windows' worth. */
const MAX_PENDING_PACKETS = 8192;

/** Bad messages per proxy before that proxy is dropped as broken. */
const MAX_MALFORMED_PER_PROXY = 1000;

/**
 * Integrity (docs/protocol.md "Integrity"): after the first proxy's complete meta, wait this
 * long (ms) for the others' before voting on layout and checksums, unless all have answered.
 * Short: on one host the metas arrive within milliseconds of each other; a late proxy is still
 * checked against the vote when its meta comes.
 */
const META_QUORUM_WAIT_MS = 150;

/**
 * Proven corrupted packets (re-encoded from verified data, or refused by their own checksum)
 * after which a proxy is excluded. One: the channel is DTLS/SCTP, authenticated and
 * checksummed, so an honest proxy never delivers a corrupted packet.
 */
const EXCLUDE_AFTER_BAD_PACKETS = 1;

/**
 * @typedef {object} MutpOptions
 * @property {string} url
 * @property {{ start: number, end: number } | null} [range]   end inclusive
 * @property {'coded'|'uncoded'} mode
 * @property {{ id: string, url: string }[]} proxies
 * @property {object} [params]          window, generationSize, feedbackEvery, payloadSize, surplus, scheduler
 * @property {AbortSignal} [signal]
 * @property {(p: { grossBytes: number, netBytes: number, objectBytes: number | null,
 *   chunks: { offset: number, bytes: Uint8Array }[] }) => void} [onProgress]
 * @property {typeof RTCPeerConnection} [RTCPeerConnection]    defaults to the environment's (#rtc)
 * @property {object} [rtcConfig]       merged into every RTCPeerConnection config (Node: bindAddress)
 * @property {() => number} [elapsed]   ms since the request was issued (default: from this call)
 * @property {typeof fetch} [fetch]
 * @property {{ warn: (...a: unknown[]) => void }} [logger]
 * @property {number} [connectTimeoutMs]
 * @property {number} [noProgressTimeoutMs]
 * @property {string} [clientId]        for the stats record
 * @property {ReturnType<typeof import('../rtc/peer-pool.js').createPeerPool> | null} [peerPool]
 *   open connections kept between downloads (createClient's); without one each download connects and closes
 */

/**
 * @param {MutpOptions} o
 * @returns {Promise<{ data: Uint8Array, stats: object, params: object, grossBytes: number, firstPacketMs: number | null,
 *   serverFetchMs: number[], packets: number, duplicates: number, lossEstimate: number | null,
 *   perProxy: object[], packetLog: any[] | null, feedbackLog: number[] | null }>}
 *   rejects with ERR_ALL_PROXIES_FAILED (err.perProxy says why each failed), ERR_ABORTED, ERR_BAD_OPTION
 */
export function downloadMutp(o) {
  const t0 = performance.now();
  const elapsed = o.elapsed ?? (() => performance.now() - t0);
  const startedAt = new Date().toISOString();
  const mode = o.mode;
  if (mode !== 'coded' && mode !== 'uncoded') return Promise.reject(codedError('ERR_BAD_OPTION', `mode must be coded or uncoded, not ${mode}`));
  if (!Array.isArray(o.proxies) || o.proxies.length === 0) return Promise.reject(codedError('ERR_BAD_OPTION', 'no proxies given'));
  let params;
  try {
    params = normalizeParams(stripUndefined(o.params ?? {}), mode);
  } catch (e) {
    return Promise.reject(e);
  }
  const RTCPeerConnection = o.RTCPeerConnection ?? EnvRTCPeerConnection;
  const logger = o.logger ?? console;
  const noProgressTimeoutMs = o.noProgressTimeoutMs ?? NO_PROGRESS_TIMEOUT_MS;
  const downloadId = randomU32();
  const links = o.proxies.map((p, i) => createSourceLink(p, i));
  const connectAbort = new AbortController();
  const requestBytes = links.map((l) => encodeMessage({
    type: 'request', downloadId, url: o.url, method: 'GET', range: o.range ?? null, mode,
    sourceIndex: l.index, sourceCount: links.length, seed: randomU32(), params,
  }));

  /** @type {any} */
  let receiver = null;
  let receiverPending = false;
  /** @type {any} */
  let firstMeta = null;
  /** @type {any} the meta vote (layout + checksums), once taken */
  let vote = null;
  /** proxies in the order their meta completed (the vote's tie-break) */
  /** @type {import('./source-link.js').SourceLink[]} */
  const metaOrder = [];
  /** @type {{ msg: any, link: import('./source-link.js').SourceLink }[]} */
  const pending = [];
  /** @type {number | null} */
  let firstPacketMs = null;
  let lastProgressAt = 0;
  let firstMetaAt = 0;
  let netBytes = 0;
  let finished = false;
  /** @type {(v: any) => void} */
  let resolve;
  /** @type {(e: any) => void} */
  let reject;
  const result = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const tick = setInterval(onTick, TICK_MS);

  const onAbort = () => fail(abortReason(o.signal));
  if (o.signal?.aborted) {
    onAbort();
    return result;
  }
  o.signal?.addEventListener('abort', onAbort, { once: true });

  for (const link of links) connect(link);
  return result;

  /**
   * @param {import('./source-link.js').SourceLink} link
   * @param {boolean} [fresh]  do not take a kept connection (the kept one was silent)
   */
  async function connect(link, fresh = false) {
    try {
      const connectOpts = {
        url: link.url, RTCPeerConnection, rtcConfig: o.rtcConfig, signal: connectAbort.signal, fetch: o.fetch,
        timeoutMs: o.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      };
      const peer = o.peerPool ? await o.peerPool.acquire({ ...connectOpts, fresh }) : await connectPeer(connectOpts);
      if (finished || link.state !== 'connecting') return peer.close();
      link.peer = peer;
      link.state = 'open';
      link.reused = 'reused' in peer && peer.reused === true;
      link.lastHeardAt = elapsed();
      link.connectedAt = link.lastHeardAt;
      // a kept connection outlives this download: every listener goes when the download ends
      const onMsg = (/** @type {MessageEvent} */ ev) => onMessage(link, ev);
      const onClose = () => peerGone(link, 'the data channel closed');
      const onState = () => {
        const s = peer.pc.connectionState;
        if (s === 'failed' || s === 'closed') peerGone(link, `the peer connection is ${s}`);
      };
      peer.channel.addEventListener('message', onMsg);
      peer.channel.addEventListener('close', onClose);
      peer.pc.addEventListener('connectionstatechange', onState);
      link.offPeer = () => {
        peer.channel.removeEventListener('message', onMsg);
        peer.channel.removeEventListener('close', onClose);
        peer.pc.removeEventListener('connectionstatechange', onState);
      };
      sendRequest(link);
    } catch (e) {
      if (finished) return;
      const err = /** @type {any} */ (e);
      dropLink(link, err?.code ?? 'ERR_RTC_CONNECT_FAILED', String(err?.message ?? err));
    }
  }

  /** @param {import('./source-link.js').SourceLink} link */
  function sendRequest(link) {
    link.requestedAt = elapsed();
    sendTo(link, requestBytes[link.index]);
  }

  /** @param {import('./source-link.js').SourceLink} link @param {Uint8Array} bytes */
  function sendTo(link, bytes) {
    const ch = link.peer?.channel;
    if (!ch || ch.readyState !== 'open') return;
    try {
      ch.send(/** @type {Uint8Array<ArrayBuffer>} */ (bytes));
    } catch {
      // closed between the check and the send; the close handler drops the link
    }
  }

  /** @param {import('./source-link.js').SourceLink} link @param {MessageEvent} ev */
  function onMessage(link, ev) {
    if (finished || link.state !== 'open') return;
    const r = ev.data instanceof ArrayBuffer ? decodeMessage(new Uint8Array(ev.data)) : null;
    if (!r || !r.ok) {
      link.malformed++;
      if (link.malformed <= 3) logger.warn(`mutp: ignored a malformed message from proxy ${link.proxyId}: ${r ? r.error.code : 'not binary'}`);
      if (link.malformed > MAX_MALFORMED_PER_PROXY) dropLink(link, 'ERR_PROXY_MALFORMED', `${link.malformed} malformed messages`);
      return;
    }
    const msg = r.msg;
    if (msg.downloadId !== downloadId) return; // a stale message from another download
    switch (msg.type) {
      case 'meta':
        return onMeta(link, msg);
      case 'data':
      case 'coded':
        link.lastHeardAt = elapsed();
        if (receiver) onPacket(link, msg);
        else if (pending.length < MAX_PENDING_PACKETS) pending.push({ msg, link });
        return;
      case 'error':
        return dropLink(link, msg.code, msg.message);
      default:
        link.malformed++;
        if (link.malformed <= 3) logger.warn(`mutp: ignored a ${msg.type} message from proxy ${link.proxyId}`);
    }
  }

  /**
   * One meta datagram of a proxy (its checksum table comes in slices). When the first proxy's
   * meta is complete, wait META_QUORUM_WAIT_MS (or until all have answered), then vote.
   * @param {import('./source-link.js').SourceLink} link @param {any} meta
   */
  function onMeta(link, meta) {
    link.lastHeardAt = elapsed();
    if (link.meta) return; // a repeat (we re-sent the request)
    if (meta.mode !== mode) return dropLink(link, 'ERR_META_MISMATCH', `proxy answered in ${meta.mode} mode`);
    if (!link.metaAsm) link.metaAsm = createMetaAssembler(meta);
    const refused = link.metaAsm.add(meta);
    if (refused) return dropLink(link, 'ERR_META_MISMATCH', refused);
    if (!link.metaAsm.complete) return;
    link.meta = link.metaAsm.meta;
    if (vote) return admitLate(link);
    metaOrder.push(link);
    if (metaOrder.length === 1) firstMetaAt = elapsed();
    maybeVote();
  }

  /**
   * Vote once every live proxy has sent its meta, or META_QUORUM_WAIT_MS after the first if a
   * strict majority of the live proxies has: fewer could let one liar set the checksums.
   */
  function maybeVote() {
    if (vote || finished || metaOrder.length === 0) return;
    const alive = links.filter((l) => l.state === 'open' || l.state === 'connecting');
    const live = metaOrder.filter((l) => l.state === 'open');
    if (live.length === 0) return;
    if (live.length < alive.length && (elapsed() - firstMetaAt < META_QUORUM_WAIT_MS || 2 * live.length <= alive.length)) return;
    vote = createMetaVote(live.map((l) => ({ source: l.index, meta: l.meta, table: l.metaAsm.table })));
    for (const v of vote.excluded) dropLink(links[v.source], v.code, v.message);
    if (finished) return;
    firstMeta = vote.meta;
    receiverPending = true;
    createReceiver({ meta: vote.meta, params, sourceCount: links.length, now: elapsed(), verify: vote.verify }).then((rx) => {
      receiverPending = false;
      if (finished) return;
      receiver = rx;
      for (const p of pending.splice(0)) if (p.link.state === 'open') onPacket(p.link, p.msg);
      afterPackets();
    }, (e) => fail(codedError(e?.code ?? 'ERR_RECEIVER', `cannot create the receiver: ${e?.message ?? e}`)));
  }

  /** A proxy whose meta came after the vote must agree with it. @param {import('./source-link.js').SourceLink} link */
  function admitLate(link) {
    const v = vote.admit({ source: link.index, meta: link.meta, table: link.metaAsm.table });
    if (v) dropLink(link, v.code, v.message);
  }

  /** Exclude proxies proven to corrupt packets or to lie in their meta (receiver and vote verdicts). */
  function applyIntegrityVerdicts() {
    for (const e of receiver.pollIntegrity()) {
      if (e.kind !== 'bad-packet') continue;
      const l = links[e.source];
      l.badPackets++;
      if (l.badPackets >= EXCLUDE_AFTER_BAD_PACKETS && l.state === 'open') {
        logger.warn(`mutp: proxy ${l.proxyId} sent a corrupted packet (unit ${e.unit}); excluded`);
        dropLink(l, 'ERR_INTEGRITY', `${l.badPackets} corrupted packet(s), first in ${mode === 'coded' ? 'generation' : 'packet'} ${e.unit}`);
      }
    }
    for (const v of vote.pollLiars()) {
      const l = links[v.source];
      if (l.state === 'open') logger.warn(`mutp: proxy ${l.proxyId} lied in its meta; excluded`);
      dropLink(l, v.code, v.message);
    }
  }

  /** @param {import('./source-link.js').SourceLink} link @param {any} msg */
  function onPacket(link, msg) {
    if (finished) return;
    const t = elapsed();
    if (firstPacketMs === null) firstPacketMs = t;
    let useful;
    try {
      useful = receiver.handlePacket(msg, link.index, t).useful;
    } catch (e) {
      link.malformed++;
      if (link.malformed <= 3) logger.warn(`mutp: packet from proxy ${link.proxyId} refused: ${/** @type {Error} */ (e).message}`);
      return;
    }
    link.packets++;
    link.bytes += msg.type === 'data' ? msg.payload.length : msg.codedPayload.length - msg.symbols;
    if (msg.seq > link.maxSeq) link.maxSeq = msg.seq;
    if (useful) lastProgressAt = t;
    else link.duplicates++;
    if (!receiverPending) afterPackets();
  }

  /** Feedback, delivery and completion after one or more packets. */
  function afterPackets() {
    if (finished || !receiver) return;
    applyIntegrityVerdicts();
    if (finished) return;
    pollFeedback();
    const chunks = receiver.pollDelivered();
    if (chunks.length > 0) {
      for (const c of chunks) netBytes += c.bytes.length;
      try {
        o.onProgress?.({ grossBytes: grossBytes(), netBytes, objectBytes: firstMeta.totalSize, chunks });
      } catch (e) {
        logger.warn(`mutp: onProgress threw: ${/** @type {Error} */ (e).message}`);
      }
    }
    if (receiver.isComplete()) complete();
  }

  function pollFeedback() {
    const fb = receiver.pollFeedback(elapsed());
    if (!fb) return;
    const bytes = encodeMessage({ ...fb, downloadId });
    for (const l of links) if (l.state === 'open') sendTo(l, bytes);
  }

  function onTick() {
    if (finished) return;
    const t = elapsed();
    if (receiver) afterPackets();
    if (finished) return;
    maybeVote();
    const stalled = firstMeta !== null && t - Math.max(lastProgressAt, firstMetaAt) > noProgressTimeoutMs;
    for (const l of links) {
      if (l.state !== 'open') continue;
      if (l.reused && !l.metaAsm && t - l.connectedAt > REUSED_SILENT_MS) {
        replaceKept(l, `silent for ${Math.round(t - l.connectedAt)} ms`);
      } else if (!l.meta) {
        if (t - l.lastHeardAt > META_TIMEOUT_MS) dropLink(l, 'ERR_PROXY_SILENT', `no meta within ${META_TIMEOUT_MS} ms`);
        else if (t - l.requestedAt > REQUEST_RESEND_MS) sendRequest(l);
      } else if (stalled && t - l.lastHeardAt > noProgressTimeoutMs) {
        dropLink(l, 'ERR_PROXY_SILENT', `no packet for ${Math.round(t - l.lastHeardAt)} ms while the download stalled`);
      }
    }
  }

  /**
   * A connection closed under us. A kept one that has not yet served this download was stale
   * (the proxy restarted; its close reached us after the pool handed it out): reconnect, as for
   * a silent one. Otherwise the proxy is gone.
   * @param {import('./source-link.js').SourceLink} link
   * @param {string} why
   */
  function peerGone(link, why) {
    if (link.state === 'open' && link.reused && !link.metaAsm) replaceKept(link, why);
    else dropLink(link, 'ERR_PROXY_GONE', why);
  }

  /**
   * A kept connection that never answered our request, or closed before it did, is dead:
   * close it and connect afresh, without failing this source.
   * @param {import('./source-link.js').SourceLink} link
   * @param {string} why
   */
  function replaceKept(link, why) {
    logger.warn(`mutp: kept connection to proxy ${link.proxyId}: ${why}; reconnecting`);
    link.offPeer?.();
    link.offPeer = null;
    if (link.peer && 'discard' in link.peer) /** @type {any} */ (link.peer).discard();
    link.peer = null;
    link.reused = false;
    link.state = 'connecting';
    connect(link, true);
  }

  /**
   * @param {import('./source-link.js').SourceLink} link
   * @param {string} code
   * @param {string} message
   */
  function dropLink(link, code, message) {
    if (link.state === 'failed' || link.state === 'closed') return;
    link.state = 'failed';
    link.error = { code, message };
    link.offPeer?.();
    // a failed source's connection is suspect: not kept for the next download
    if (link.peer) ('discard' in link.peer ? /** @type {any} */ (link.peer).discard() : link.peer.close());
    if (finished) return;
    if (links.every((l) => l.state === 'failed')) {
      const codes = [...new Set(links.map((l) => l.error?.code))].join(', ');
      fail(codedError('ERR_ALL_PROXIES_FAILED', `all ${links.length} proxies failed (${codes})`));
    }
  }

  function grossBytes() {
    let g = 0;
    for (const l of links) g += l.bytes;
    return g;
  }

  function complete() {
    const data = receiver.data();
    const done = encodeMessage({ type: 'done', downloadId });
    for (const l of links) if (l.state === 'open') sendTo(l, done);
    const out = summary(null, data);
    // close a moment after `done`, so it reaches the proxies before the close does
    cleanup(DONE_LINGER_MS);
    resolve({ data, ...out });
  }

  /** @param {any} err */
  function fail(err) {
    if (finished) return;
    const e = err && typeof err === 'object' ? err : codedError('ERR_UNKNOWN', String(err));
    Object.assign(e, summary({ code: e.code ?? 'ERR_UNKNOWN', message: String(e.message) }, null));
    cleanup();
    reject(e);
  }

  /** @param {number} [lingerMs] keep the peer connections this long (ms) before closing them */
  function cleanup(lingerMs = 0) {
    finished = true;
    clearInterval(tick);
    o.signal?.removeEventListener('abort', onAbort);
    connectAbort.abort(codedError('ERR_ABORTED', 'the download ended'));
    const peers = [];
    for (const l of links) {
      if (l.state === 'open' || l.state === 'connecting') l.state = 'closed';
      l.offPeer?.();
      if (l.peer) peers.push(l.peer);
    }
    if (o.peerPool) {
      // kept connections stay open: `done` and later downloads travel on the same channel.
      // After a failure (abort, all gone) the proxies may still be sending: close instead.
      for (const p of peers) {
        const kept = /** @type {import('../rtc/peer-pool.js').PooledPeer} */ (p);
        if (lingerMs > 0) kept.close();
        else kept.discard();
      }
      return;
    }
    const closeAll = () => peers.forEach((p) => p.close());
    if (lingerMs > 0) setTimeout(closeAll, lingerMs);
    else closeAll();
  }

  /**
   * @param {{ code: string, message: string } | null} error
   * @param {Uint8Array | null} data
   */
  function summary(error, data) {
    const counts = receiver?.counts?.() ?? {};
    const logs = packetLogs(receiver);
    const out = {
      params: { window: params.window, generationSize: mode === 'coded' ? params.generationSize : null,
        feedbackEvery: params.feedbackEvery, payloadSize: params.payloadSize, surplus: mode === 'coded' ? params.surplus : null },
      grossBytes: grossBytes(),
      firstPacketMs,
      serverFetchMs: links.filter((l) => l.meta && l.meta.serverFetchMs !== null && l.meta.serverFetchMs !== undefined).map((l) => l.meta.serverFetchMs),
      packets: counts.packets ?? links.reduce((s, l) => s + l.packets, 0),
      duplicates: counts.duplicates ?? links.reduce((s, l) => s + l.duplicates, 0),
      lossEstimate: estimateLoss(links),
      perProxy: perProxyStats(links),
      packetLog: logs.packetLog,
      feedbackLog: logs.feedbackLog,
    };
    const stats = buildMutpStats({
      clientId: o.clientId ?? null, startedAt, mode, proxies: o.proxies, url: o.url, objectBytes: firstMeta?.totalSize ?? (data ? data.byteLength : 0),
      netBytes: data ? data.byteLength : 0, durationMs: elapsed(), error, ...out,
    });
    return { ...out, stats };
  }
}

/** @param {any} rx */
function packetLogs(rx) {
  const log = rx?.receivedLog;
  if (log && typeof log.toRecord === 'function') return log.toRecord(0);
  return { packetLog: null, feedbackLog: null };
}

/** @param {AbortSignal} signal */
function abortReason(signal) {
  const r = signal.reason;
  if (typeof r?.code === 'string' && r.code.startsWith('ERR_')) return r;
  return codedError('ERR_ABORTED', 'the download was aborted', { cause: r });
}

function randomU32() {
  return globalThis.crypto.getRandomValues(new Uint32Array(1))[0];
}

/** @param {Record<string, unknown>} p */
function stripUndefined(p) {
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined));
}
