// Uncoded and Coded MUTP over WebRTC (paper III.A/B): connect to N proxies, ask each for the
// same object with its own source index, and carry out what the download controller
// (@mutp/protocol createDownloadController, the same one the simulator runs) decides: requests,
// feedback and done to the proxies, dropping or reconnecting one, delivering bytes, the end.
// This file owns the sockets, one timer (the controller's wakeAt()), the feedback outbox and
// the result record.

import { RTCPeerConnection as EnvRTCPeerConnection } from '#rtc';
import { normalizeParams, createDownloadController, checksumOf, MAX_SOURCES } from '@mutp/protocol';
import { connectPeer, CONNECT_TIMEOUT_MS } from '../rtc/connect-peer.js';
import { codedError } from '@mutp/common/errors';
import { createSourceLink, perProxyStats } from './source-link.js';
import { buildMutpStats } from './mutp-stats.js';
import { createFeedbackOutbox } from './feedback-outbox.js';

/** After the last byte, keep the channels open this long (ms) so `done` is read before the close (the channel is unordered). */
const DONE_LINGER_MS = 100;

/** Shortest timer (ms): a wake-up already due runs on the next turn, never in a loop. */
const MIN_TIMER_MS = 1;

/**
 * @typedef {object} MutpOptions
 * @property {string} url
 * @property {{ start: number, end: number } | null} [range]   end inclusive
 * @property {string | null} [next]   the object the caller will likely ask next: each proxy hears it after the request
 * @property {boolean} [bundles]       ask the proxies for their packets a few to a message (rtc.browser.js says why)
 * @property {'coded'|'uncoded'} mode
 * @property {{ id: string, url: string, uploadRateBps?: number | null }[]} proxies  uploadRateBps: Origo's (bytes/s), for the record
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
 * @property {{sentAt: number | null}} [timing]  sentAt is set (performance.now()) when the first request goes to a proxy
 * @property {ReturnType<typeof import('../rtc/peer-pool.js').createPeerPool> | null} [peerPool]
 *   open connections kept between downloads (createClient's); without one each download connects and closes
 * @property {((bytes: Uint8Array) => Promise<Uint8Array>) | null} [checksumAsync]  coded: each decoded generation's
 *   checksum off this thread (a browser's WebCrypto; the controller's hashOffThread); null: inline
 */

/**
 * @typedef {[number, number, number, number]} PacketLogEntry  [tMs, sourceIndex, useful (0|1), dofAfter] (docs/log-record.md)
 * @typedef {{ code: string, message: string }} ErrorInfo
 * @typedef {{ data: Uint8Array, stats: object, params: object, grossBytes: number, firstPacketMs: number | null,
 *   serverFetchMs: number[], packets: number, duplicates: number, lossEstimate: number | null,
 *   perProxy: { proxyId: string, bytes: number, packets: number, duplicates: number, error: ErrorInfo | null }[],
 *   packetLog: PacketLogEntry[] | null, feedbackLog: number[] | null }} MutpResult
 * @typedef {Error & { code: string }} CodedError
 */

/**
 * @param {MutpOptions} o
 * @returns {Promise<MutpResult>}
 *   rejects with ERR_ALL_PROXIES_FAILED (err.perProxy says why each failed), ERR_ABORTED, ERR_BAD_OPTION
 */
export function downloadMutp(o) {
  const t0 = performance.now();
  const elapsed = o.elapsed ?? (() => performance.now() - t0);
  const startedAt = new Date().toISOString();
  const mode = o.mode;
  if (mode !== 'coded' && mode !== 'uncoded') return Promise.reject(codedError('ERR_BAD_OPTION', `mode must be coded or uncoded, not ${mode}`));
  if (!Array.isArray(o.proxies) || o.proxies.length === 0) return Promise.reject(codedError('ERR_BAD_OPTION', 'no proxies given'));
  if (o.proxies.length > MAX_SOURCES) return Promise.reject(codedError('ERR_BAD_OPTION', `at most ${MAX_SOURCES} proxies (the wire's source limit), not ${o.proxies.length}`));
  let params;
  try {
    params = normalizeParams(stripUndefined(o.params ?? {}), mode);
  } catch (e) {
    return Promise.reject(e);
  }
  const RTCPeerConnection = o.RTCPeerConnection ?? EnvRTCPeerConnection;
  const logger = o.logger ?? console;
  const links = o.proxies.map((p, i) => createSourceLink(p, i));
  const connectAbort = new AbortController();
  /** @type {import('@mutp/protocol').DownloadController} */
  let ctl;
  let finished = false;
  /** @type {CodedError | null} the caller's abort reason, rejected as it is */
  let abortError = null;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  let timerAt = Infinity;
  /** @type {(v: MutpResult) => void} */
  let resolve;
  /** @type {(e: Error) => void} */
  let reject;
  const result = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  /** sources whose connections outlive an abort: alive when it came (told `done` by the controller) */
  let aliveAtAbort = new Set();
  /** feedback waits here for the packets queued behind it: only each proxy's newest goes */
  const outbox = createFeedbackOutbox(sendTo);
  const onAbort = () => {
    abortError = abortReason(/** @type {AbortSignal} */ (o.signal));
    if (!ctl) return end(abortError, null);
    aliveAtAbort = new Set(ctl.liveSources(elapsed()));
    return run(ctl.abort(abortError.code, String(abortError.message)));
  };
  if (o.signal?.aborted) {
    onAbort();
    return result;
  }
  o.signal?.addEventListener('abort', onAbort, { once: true });
  // the connections open while the controller loads its codec: each waits for it once it is open
  const ready = createDownloadController({
    // streamed: a coded proxy that does not hold the object yet sends while it still gets it from the origin
    mode, url: o.url, range: o.range ?? null, next: o.next ?? null, bundles: o.bundles === true, streamed: true, hashOffThread: typeof o.checksumAsync === 'function',
    params, sourceCount: links.length, downloadId: randomU32(),
    seeds: links.map(() => randomU32()), noProgressTimeoutMs: o.noProgressTimeoutMs,
  }).then((c) => {
    if (finished) {
      c.close();
      return false;
    }
    ctl = c;
    return true;
  }, (e) => {
    end(codedError(e?.code ?? 'ERR_RECEIVER', `cannot start the download: ${e?.message ?? e}`), null);
    return false;
  });
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
        // a new connection names the object, so the proxy fetches it while the connection opens;
        // not a range of one: the proxy would fetch the whole file for it
        first: o.range ? null : o.url,
        // and carries the request once the controller is made (its codec loaded), which the proxy
        // serves as soon as its end opens, a round trip before ours would reach it
        request: () => (ctl ? ctl.requests[link.index] : null),
      };
      const peer = o.peerPool ? await o.peerPool.acquire({ ...connectOpts, fresh }) : await connectPeer(connectOpts);
      if (!(await ready) || finished || ctl.sources[link.index].state !== 'connecting') return peer.close();
      link.peer = peer;
      // a kept connection outlives this download: every listener goes when the download ends
      const onMsg = (/** @type {MessageEvent} */ ev) => {
        if (!finished) run(ctl.datagram(link.index, ev.data instanceof ArrayBuffer ? new Uint8Array(ev.data) : null, elapsed()));
      };
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
      run(ctl.connected(link.index, { reused: 'reused' in peer && peer.reused === true, requestTaken: peer.requestTaken === true }, elapsed()));
    } catch (e) {
      if (!(await ready) || finished) return;
      const err = /** @type {{ code?: string, message?: string } | null | undefined} */ (e);
      run(ctl.connectFailed(link.index, err?.code ?? 'ERR_RTC_CONNECT_FAILED', String(err?.message ?? err), elapsed()));
    }
  }

  /** @param {import('./source-link.js').SourceLink} link @param {string} why */
  function peerGone(link, why) {
    if (!finished) run(ctl.gone(link.index, why, elapsed()));
  }

  /** Carry out the controller's actions, then re-arm its timer. @param {ReturnType<import('@mutp/protocol').DownloadController['tick']>} actions */
  function run(actions) {
    for (const a of actions) {
      switch (a.type) {
        case 'send':
          if (o.timing && o.timing.sentAt === null) o.timing.sentAt = performance.now();
          outbox.send(links[a.source], a.bytes, a.replaceable === true);
          break;
        case 'warn':
          logger.warn(`mutp: proxy ${links[a.source].proxyId}: ${a.message}`);
          break;
        case 'drop':
          // a failed source's connection is suspect, not kept for the next download, unless the
          // proxy said why in words (a refused or missing object): then it goes back to the pool
          letGo(links[a.source], a.healthy !== true);
          break;
        case 'reconnect':
          letGo(links[a.source], true);
          connect(links[a.source], true);
          break;
        case 'deliver':
          try {
            o.onProgress?.({ grossBytes: a.grossBytes, netBytes: a.netBytes, objectBytes: a.objectBytes, chunks: a.chunks });
          } catch (e) {
            logger.warn(`mutp: onProgress threw: ${/** @type {Error} */ (e).message}`);
          }
          break;
        case 'hash':
          hashOffThread(a.unit, a.bytes);
          break;
        case 'complete':
          end(null, a.data);
          break;
        case 'fail':
          end(abortError ?? codedError(a.code, a.message), null);
          break;
      }
    }
    if (!finished) arm();
  }

  /**
   * A decoded generation's checksum, off this thread; the controller holds the generation until it
   * comes. A digest that fails (it should not) is taken inline instead.
   * @param {number} unit @param {Uint8Array} bytes  the controller's copy
   */
  function hashOffThread(unit, bytes) {
    /** @type {(bytes: Uint8Array) => Promise<Uint8Array>} */ (o.checksumAsync)(bytes)
      .catch(() => checksumOf(bytes))
      .then((checksum) => { if (!finished) run(ctl.hashed(unit, checksum, elapsed())); });
  }

  function arm() {
    const w = ctl.wakeAt();
    if (w >= timerAt) return;
    if (timer) clearTimeout(timer);
    timerAt = w;
    timer = w === Infinity ? null : setTimeout(onTimer, Math.max(MIN_TIMER_MS, w - elapsed()));
  }

  function onTimer() {
    timer = null;
    timerAt = Infinity;
    if (!finished) run(ctl.tick(elapsed()));
  }

  /** @param {import('./source-link.js').SourceLink} link @param {Uint8Array} bytes */
  function sendTo(link, bytes) {
    const ch = link.peer?.channel;
    if (!ch || ch.readyState !== 'open') return;
    try {
      ch.send(/** @type {Uint8Array<ArrayBuffer>} */ (bytes));
    } catch {
      // closed between the check and the send; the close handler reports it
    }
  }

  /**
   * Stop listening to a proxy's connection and give it up (discard: not kept for a later download).
   * @param {import('./source-link.js').SourceLink} link @param {boolean} discard
   */
  function letGo(link, discard) {
    link.offPeer?.();
    link.offPeer = null;
    const peer = /** @type {(import('../rtc/connect-peer.js').PeerLink & { discard?: () => void }) | null} */ (link.peer);
    link.peer = null;
    if (!peer) return;
    if (discard && peer.discard) peer.discard();
    else peer.close();
  }

  /**
   * @param {(Error & { code?: string }) | null} err   null on success
   * @param {Uint8Array | null} data
   */
  function end(err, data) {
    if (finished) return;
    finished = true;
    if (timer) clearTimeout(timer);
    outbox.clear();
    o.signal?.removeEventListener('abort', onAbort);
    connectAbort.abort(codedError('ERR_ABORTED', 'the download ended'));
    const error = err ? { code: err.code ?? 'ERR_UNKNOWN', message: String(err.message) } : null;
    const durationMs = elapsed();
    const out = summary();
    const record = () => buildMutpStats({
      clientId: o.clientId ?? null, startedAt, mode, proxies: o.proxies, url: o.url, objectBytes: ctl?.meta?.totalSize ?? (data ? data.byteLength : 0),
      netBytes: data ? data.byteLength : 0, durationMs, error, ...out,
    });
    ctl?.close();
    // a download the caller gave up on keeps the connections that were alive: a page that goes
    // away mid-segment leaves them to the next page; after a failure they are suspect
    closePeers(err ? 0 : DONE_LINGER_MS, (l) => !err || aliveAtAbort.has(l.index));
    if (err) reject(withLazyStats(Object.assign(err, out), record));
    else resolve(withLazyStats({ data, ...out }, record));
  }

  /**
   * @param {number} lingerMs keep the peer connections this long (ms) before closing them (no pool)
   * @param {(l: import('./source-link.js').SourceLink) => boolean} keep  pool: give this link's connection back (else discard it)
   */
  function closePeers(lingerMs, keep) {
    const peers = [];
    for (const l of links) {
      l.offPeer?.();
      if (l.peer) peers.push({ peer: l.peer, keep: keep(l) });
    }
    if (o.peerPool) {
      // kept connections stay open: `done` and later downloads travel on the same channel.
      // After a failure (all gone, a stall) the proxies may still be sending: close instead.
      for (const { peer, keep: kept } of peers) {
        const pooled = /** @type {import('../rtc/peer-pool.js').PooledPeer} */ (peer);
        if (kept) pooled.close();
        else pooled.discard();
      }
      return;
    }
    const closeAll = () => peers.forEach((p) => p.peer.close());
    if (lingerMs > 0) setTimeout(closeAll, lingerMs);
    else closeAll();
  }

  /** What the download measured, for the result and its record. */
  function summary() {
    const receiver = ctl?.receiver;
    const counts = receiver?.counts?.() ?? {};
    const logs = packetLogs(receiver);
    const sources = ctl?.sources ?? links.map(() => ({ bytes: 0, packets: 0, duplicates: 0, error: null }));
    const out = {
      params: { window: params.window, generationSize: mode === 'coded' ? params.generationSize : null,
        feedbackEvery: params.feedbackEvery, payloadSize: params.payloadSize, surplus: mode === 'coded' ? params.surplus : null },
      grossBytes: ctl ? ctl.grossBytes() : 0,
      firstPacketMs: ctl ? ctl.firstPacketMs : null,
      serverFetchMs: ctl ? ctl.serverFetchMs() : [],
      requestSteps: ctl ? ctl.requestSteps() : null,
      packets: counts.packets ?? sources.reduce((s, l) => s + l.packets, 0),
      duplicates: counts.duplicates ?? sources.reduce((s, l) => s + l.duplicates, 0),
      lossEstimate: ctl ? ctl.lossEstimate() : null,
      perProxy: perProxyStats(links, sources),
      packetLog: logs.packetLog,
      feedbackLog: logs.feedbackLog,
      // every accepted layout and checksum had two or more proxies behind it (null: not voted)
      verified: ctl?.vote && ctl.verify ? ctl.vote.verified() : null,
    };
    return out;
  }
}

/**
 * `stats` built on first read: the record's time breakdown walks every packet (about 1.5 ms a
 * segment in Chromium), at the end of the download, and ProxyClientLib's client builds its own
 * record. Not enumerable, so a copy of the result does not build it; assignable.
 * @template {object} T @param {T} target @param {() => object} build @returns {T & { stats: object }}
 */
function withLazyStats(target, build) {
  /** @type {object | null} */
  let built = null;
  Object.defineProperty(target, 'stats', {
    configurable: true,
    get: () => (built ??= build()),
    set(v) { Object.defineProperty(this, 'stats', { value: v, writable: true, enumerable: true, configurable: true }); },
  });
  return /** @type {T & { stats: object }} */ (target);
}

/**
 * @param {{ receivedLog?: { toRecord?: (originMs: number) => { packetLog: PacketLogEntry[], feedbackLog: number[] } } } | null | undefined} rx
 * @returns {{ packetLog: PacketLogEntry[] | null, feedbackLog: number[] | null }}
 */
function packetLogs(rx) {
  const log = rx?.receivedLog;
  if (log && typeof log.toRecord === 'function') return log.toRecord(0);
  return { packetLog: null, feedbackLog: null };
}

/** @param {AbortSignal} signal @returns {CodedError} */
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
