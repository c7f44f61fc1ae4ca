// One MUTP session per data channel: parse each message, serve `request`s with a protocol
// sender, pump its packets as fast as the channel's capped queue allows, apply feedback,
// stop on `done`, pass a `hint` on to the object store, and write one proxy record per download.
// A client that asks for bundles gets its packets a few to a data-channel message. A coded
// download of a whole object the proxy does not hold yet is streamed to a client that takes it:
// the layout as soon as the origin's head is in, then each generation (its checksum first) as its
// bytes come.

import { checksumTable, computeLayout, createBundleSizer, createBundleWriter, createInflightLimit, dataDatagramBytes, inflightFloorPackets, normalizeParams, reusedDatagrams, uplinkDatagramRate, MAX_DATAGRAM_BYTES, META_COPIES } from '@mutp/protocol';
import { checksumTableOf } from '../objects/digest-cache.js';
import { createChannelSender } from './channel-sender.js';
import { codedError } from '@mutp/common/errors';
import {
  BLOCKED_RECHECK_MS, INFLIGHT_RECHECK_MS, OWED_CHECKSUMS_RECHECK_MS, MAX_INBOUND_MESSAGE_BYTES, MAX_OUTBOUND_MESSAGE_BYTES, YIELD_EVERY_PACKETS,
} from './limits.js';

/** Warnings about bad peer data per session, then one "suppressed" line: a hostile peer must not flood the log. */
const MAX_WARNINGS_PER_SESSION = 10;

/**
 * @typedef {object} ProtocolApi  the parts of @mutp/protocol a session uses (injectable for tests)
 * @property {(msg: any) => Uint8Array} encodeMessage
 * @property {(bytes: Uint8Array) => { ok: boolean, msg?: any, error?: { code: string, message: string } }} decodeMessage
 * @property {(o: any) => Promise<any>} createSender
 *
 * @typedef {object} SessionDeps
 * @property {{ get(url: string, o?: { signal?: AbortSignal, range?: { start: number, end: number } | null }): Promise<{ bytes: Uint8Array, serverFetchMs: number, fromCache: boolean, range?: { start: number, end: number } | null, total?: number | null }>,
 *   readAheadAfter?: (url: string, asked: { start: number, end: number }, total: number | null) => boolean,
 *   open?: (url: string, o?: { signal?: AbortSignal }) => Promise<import('../objects/object-store.js').OpenedObject> }} objects
 *   range: only these bytes are needed; the answer's range says which bytes it holds (else the whole object)
 * @property {{ record(r: object): unknown }} logs
 * @property {(url: string) => unknown} [hintNext]  a client named the object it will likely ask next (objects/next-hint.js)
 * @property {{ activeSessions: number, bytesSent: number }} stats
 * @property {{ id?: string }} [config]
 * @property {{ info: Function, warn: Function, error: Function }} logger
 */

/**
 * @param {object} opts
 * @param {RTCDataChannel} opts.channel
 * @param {SessionDeps} opts.deps
 * @param {ProtocolApi} opts.protocol
 * @param {string} [opts.remote]     who is on the other end, for log lines
 * @param {() => number} [opts.now]  monotonic ms
 * @param {boolean} [opts.pacing]    space packets at the delivery rate (the in-flight limit's pacing): for a
 *   transport that sends whatever it is given at once (the tuned build with SCTP's max burst off)
 * @param {number | null} [opts.uplinkBps]  the proxy's upload rate as configured (bytes/s): the pacing never goes above it
 * @param {(() => Promise<number | null>) | null} [opts.rttHint]  the connection's round trip as its transport measured it (ms):
 *   with uplinkBps, a first download on a path not measured yet starts with a round trip's worth in flight
 * @param {{ cache: ReturnType<typeof import('@mutp/protocol').createPathCache>, key: string } | null} [opts.paths]  the proxy's paths to its
 *   clients and this client's key: a download starts from the latest one measured to this client, on any
 *   of its connections (else from this channel's own last download, else from scratch)
 * @returns {{ stop(reason: string): void, receive(bytes: Uint8Array): void }}  receive: a client message that came another way (its offer's request)
 */
export function createMutpSession({ channel, deps, protocol, remote = 'peer', now = () => performance.now(), pacing = false, uplinkBps = null, rttHint = null, paths = null }) {
  const { encodeMessage, decodeMessage, createSender } = protocol;
  const logger = deps.logger;
  const out = createChannelSender(channel);
  let warnings = 0;
  let stopped = false;
  /** @type {Download | null} */
  let active = null;
  /** the connection's round trip as measured while connecting (ms), once known */
  let rttHintMs = /** @type {number | null} */ (null);
  rttHint?.().then((ms) => { rttHintMs = ms; }, () => {});
  /** the last finished download: a re-sent request for it gets its error, or its meta, again (the first may have been lost) */
  let last = /** @type {{ downloadId: number, error: { code: string, message: string } | null, metaBytes: Uint8Array[] | null } | null} */ (null);
  /** what the downloads so far learnt about this channel's path: the next one starts from it */
  let path = /** @type {{ rate: number, minRttMs: number } | null} */ (null);
  // bundles for a client that takes them, while this channel's path loses little (bundle-sizer.js)
  const sizer = createBundleSizer();

  /**
   * @typedef {object} Download
   * @property {number} downloadId
   * @property {any} req
   * @property {any} sender            null until the object is fetched
   * @property {Uint8Array[] | null} metaBytes   the meta datagrams (the checksum table comes in slices)
   * @property {AbortController} abort
   * @property {string} startedAt
   * @property {number} t0
   * @property {number | null} objectAt  when the object (streamed: the origin's head) was in hand
   * @property {number} objectBytes
   * @property {number | null} serverFetchMs
   * @property {boolean} fromCache
   * @property {number | null} firstSendMs  request → the meta handed to the channel (origin fetch, hashing, the sender's set-up)
   * @property {number} packetsSent
   * @property {number} bytesSent
   * @property {boolean} ended
   * @property {(() => void) | null} wake   resolves the pump's wait for feedback
   * @property {ReturnType<typeof createInflightLimit>} inflight
   * @property {boolean} hinted    the client named its next object already (one hint per download)
   * @property {(() => void) | null} unsubscribe  stops hearing of the origin's bytes (streamed)
   */

  /** @param {string} what */
  function warn(what) {
    warnings++;
    if (warnings <= MAX_WARNINGS_PER_SESSION) logger.warn(`rtc session ${remote}: ${what}`);
    else if (warnings === MAX_WARNINGS_PER_SESSION + 1) logger.warn(`rtc session ${remote}: further warnings suppressed`);
  }

  /** @param {Uint8Array} bytes */
  function send(bytes) {
    if (!out.send(bytes)) return false;
    deps.stats.bytesSent += bytes.length;
    return true;
  }

  /** @param {number} downloadId @param {string} code @param {string} message */
  function sendError(downloadId, code, message) {
    try {
      send(encodeMessage({ type: 'error', downloadId, code, message }));
    } catch (e) {
      logger.error(`rtc session ${remote}: cannot encode error ${code}: ${/** @type {Error} */ (e).message}`);
    }
  }

  channel.addEventListener('message', (/** @type {MessageEvent} */ ev) => {
    const data = ev.data;
    if (!(data instanceof ArrayBuffer)) return warn('ignored a non-binary message');
    onMessage(new Uint8Array(data));
  });

  /** One message from the client (the channel's, or the request its offer carried). @param {Uint8Array} bytes */
  function onMessage(bytes) {
    if (stopped) return;
    if (bytes.byteLength > MAX_INBOUND_MESSAGE_BYTES) return warn(`ignored a ${bytes.byteLength}-byte message`);
    const r = decodeMessage(bytes);
    if (!r.ok) return warn(`ignored a malformed message: ${r.error.code} ${r.error.message}`);
    const msg = r.msg;
    switch (msg.type) {
      case 'request':
        return onRequest(msg);
      case 'feedback':
        return onFeedback(msg);
      case 'done':
        if (active && msg.downloadId === active.downloadId) finish(active, null);
        return;
      case 'hint':
        // best effort: one per download, for the one being served (one that overtook its request is dropped)
        if (!active || msg.downloadId !== active.downloadId || active.hinted) return;
        active.hinted = true;
        deps.hintNext?.(msg.url);
        return;
      default:
        return warn(`ignored a ${msg.type} message (proxies only accept request, feedback, done, hint)`);
    }
  }

  /** @param {any} msg a decoded feedback message */
  function onFeedback(msg) {
    if (!active || msg.downloadId !== active.downloadId || !active.sender) return; // stale: feedback for a past download
    if (msg.mode !== active.req.mode) return warn('ignored feedback of the wrong mode');
    const echo = msg.echo?.[active.req.sourceIndex];
    active.inflight.onEcho(echo, now());
    if (echo <= active.packetsSent) sizer.onEcho(echo); // an echo of packets never sent is the client's lie
    try {
      active.sender.handleFeedback(msg, now());
    } catch (e) {
      return warn(`feedback refused: ${/** @type {Error} */ (e).message}`);
    }
    active.inflight.onLost(active.sender.stats.lostByEcho);
    sizer.onLost(active.sender.stats.lostByEcho);
    active.wake?.();
  }

  /** @param {any} req */
  function onRequest(req) {
    if (active && req.downloadId === active.downloadId) {
      // the client re-sent its request: some of our meta datagrams may have been lost
      if (active.metaBytes) sendMeta(active);
      return;
    }
    if (last && req.downloadId === last.downloadId) {
      if (last.error) sendError(req.downloadId, last.error.code, last.error.message);
      else for (let i = 0; i < META_COPIES; i++) for (const b of last.metaBytes ?? []) send(b); // a client that still lacks some of it
      return;
    }
    if (active) finish(active, { code: 'ERR_SUPERSEDED', message: 'the client started another download on this channel' });
    /** @type {Download} */
    const dl = {
      downloadId: req.downloadId, req, sender: null, metaBytes: null, abort: new AbortController(),
      startedAt: new Date().toISOString(), t0: now(), objectAt: null, objectBytes: 0, serverFetchMs: null, fromCache: false, firstSendMs: null,
      packetsSent: 0, bytesSent: 0, ended: false, wake: null, inflight: createInflightLimit(), hinted: false, unsubscribe: null,
    };
    active = dl;
    sizer.startDownload();
    deps.stats.activeSessions++;
    serve(dl).catch((e) => {
      const err = /** @type {any} */ (e);
      const code = typeof err?.code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(err.code) ? err.code : 'ERR_INTERNAL';
      if (code === 'ERR_INTERNAL') logger.error(`rtc session ${remote}: ${err?.stack ?? err}`);
      finish(dl, { code, message: String(err?.message ?? err) });
    });
  }

  /** The meta datagrams, each META_COPIES times: the client's vote waits for them. @param {Download} dl */
  function sendMeta(dl) {
    for (let i = 0; i < META_COPIES; i++) for (const b of dl.metaBytes ?? []) send(b);
  }

  /** @param {Download} dl */
  async function serve(dl) {
    const { req } = dl;
    // a client that takes a streamed meta, a coded download of a whole object: it may start before the object is here
    const opened = req.streamed && req.mode === 'coded' && !req.range && deps.objects.open
      ? await deps.objects.open(req.url, { signal: dl.abort.signal }) : null;
    if (dl.ended) return;
    if (opened && opened.filled() < opened.bytes.byteLength) {
      dl.objectAt = now();
      return serveStreamed(dl, opened);
    }
    // a byte range is fetched from the origin alone, not the whole file (a single-file stream)
    const obj = opened ? await opened.done : await deps.objects.get(req.url, { signal: dl.abort.signal, range: req.range ?? null });
    if (dl.ended) return;
    dl.objectAt = now();
    dl.serverFetchMs = obj.serverFetchMs;
    dl.fromCache = obj.fromCache;
    // a range of a single-file stream: the next one is likely asked next
    if (obj.range && req.range) deps.objects.readAheadAfter?.(req.url, req.range, obj.total ?? null);
    // a ranged copy may hold more than the asked range (a cached larger range of the object)
    const at = obj.range ? obj.range.start : 0;
    const data = sliceRange(obj.bytes, req.range ? { start: req.range.start - at, end: req.range.end - at } : null);
    dl.objectBytes = data.byteLength;
    const params = normalizeParams(req.params, req.mode);
    const tableKey = `${req.mode} ${req.range ? `${req.range.start}-${req.range.end}` : 'all'} ${params.payloadSize} ${params.generationSize}`;
    const checksums = checksumTableOf(obj.bytes, tableKey, () => checksumTable(data, computeLayout(req.mode, data.byteLength, params)));
    dl.sender = await createSender({
      mode: req.mode, data, params, sourceIndex: req.sourceIndex, sourceCount: req.sourceCount,
      seed: req.seed, downloadId: req.downloadId, checksums, keepsHeld: req.holds === true,
    });
    if (dl.ended) return;
    startSending(dl);
    if (req.method === 'HEAD') return finish(dl, null);
    await pump(dl);
  }

  /**
   * Serve a coded download while its object still comes from the origin: the layout now, then
   * each time bytes come, the checksums of the generations they completed (each META_COPIES
   * times), and the pump woken for those generations. serverFetchMs is the time to the origin's
   * response head.
   * @param {Download} dl @param {import('../objects/object-store.js').OpenedObject} opened
   */
  async function serveStreamed(dl, opened) {
    const { req } = dl;
    dl.serverFetchMs = opened.headMs;
    dl.objectBytes = opened.bytes.byteLength;
    dl.sender = await createSender({
      mode: req.mode, data: opened.bytes, params: normalizeParams(req.params, req.mode), sourceIndex: req.sourceIndex, sourceCount: req.sourceCount,
      seed: req.seed, downloadId: req.downloadId, streamed: true, keepsHeld: req.holds === true,
    });
    if (dl.ended) return;
    startSending(dl);
    const more = () => {
      if (dl.ended) return;
      for (const m of dl.sender.haveBytes(opened.filled())) {
        const b = encodeMessage({ ...m, downloadId: dl.downloadId });
        dl.metaBytes?.push(b); // a re-sent request gets it again
        for (let i = 0; i < META_COPIES; i++) send(b);
      }
      dl.wake?.();
    };
    dl.unsubscribe = opened.subscribe(more);
    more();
    opened.done.then(more, (/** @type {any} */ err) => finish(dl, { code: typeof err?.code === 'string' ? err.code : 'ERR_ORIGIN', message: String(err?.message ?? err) }));
    if (req.method === 'HEAD') return finish(dl, null);
    await pump(dl);
  }

  /** The in-flight limit from the path known, then the meta. @param {Download} dl */
  function startSending(dl) {
    const feedbackEvery = dl.sender.params.feedbackEvery;
    const start = paths?.cache.get(paths.key, now()) ?? path;
    const uplinkRate = uplinkDatagramRate(uplinkBps, dataDatagramBytes(dl.req.mode, dl.sender.params));
    dl.inflight = createInflightLimit({ floorPackets: inflightFloorPackets(feedbackEvery), echoLagPackets: feedbackEvery, path: start, pacing, uplinkRate, rttHintMs, now: now() });
    const metas = dl.sender.metaMessages({ serverFetchMs: dl.serverFetchMs });
    dl.metaBytes = metas.map((/** @type {any} */ m) => encodeMessage({ ...m, downloadId: dl.downloadId }));
    // a client that asked hears where this request's time went here, before the meta (its record's time breakdown)
    if (dl.req.timing) dl.metaBytes.unshift(encodeMessage({ type: 'timing', downloadId: dl.downloadId, ...waitOf(dl) }));
    sendMeta(dl);
    dl.firstSendMs = now() - dl.t0;
  }

  /** What this request waited for so far (ms): the origin (0 from the cache), then its answer's preparation. @param {Download} dl */
  function waitOf(dl) {
    const at = dl.objectAt ?? dl.t0;
    return { originMs: Math.round(Math.max(0, at - dl.t0)), prepareMs: Math.round(Math.max(0, now() - at)) };
  }

  /**
   * Send packets while the channel's queue is under its cap; wait for bufferedamountlow when it is
   * full, and for feedback (or a short recheck) when the sender's window allows nothing.
   * @param {Download} dl
   */
  async function pump(dl) {
    let sinceYield = 0;
    // a client that takes bundles gets its packets a few to a message (each as it would go alone)
    // while the path loses little, else one to a message like any other client
    const bundle = dl.req.bundles ? createBundleWriter(dl.downloadId) : null;
    // send() copies the bytes at once: one buffer serves every packet
    const single = reusedDatagrams();
    const flush = () => {
      const b = bundle?.take();
      if (b) send(b);
    };
    while (!dl.ended) {
      if (dl.sender.finished) {
        flush();
        // the client has every packet, but this proxy's origin has not sent all the bytes yet: their
        // checksums go out as they come (more() wakes us; an origin that fails ends the download)
        if (dl.sender.owesChecksums()) {
          await waitForFeedback(dl, OWED_CHECKSUMS_RECHECK_MS);
          continue;
        }
        return finish(dl, null);
      }
      if (!out.open) return finish(dl, { code: 'ERR_CHANNEL_CLOSED', message: 'the data channel closed mid-download' });
      if (!out.canSend()) {
        flush();
        await out.drained();
        sinceYield = 0;
        continue;
      }
      if (!dl.inflight.allows(now())) {
        flush();
        await waitForFeedback(dl, Math.min(INFLIGHT_RECHECK_MS, Math.max(0, dl.inflight.wakeAt() - now())));
        sinceYield = 0;
        continue;
      }
      const bundling = bundle !== null && sizer.bundling;
      if (bundle && (!bundling || !bundle.fits(MAX_DATAGRAM_BYTES))) flush();
      // the sender writes the header and the coded payload straight into the packet's buffer (its
      // own, or its place in the bundle): the bytes of encodeMessage(nextPacket()), without the copy
      const bytes = dl.sender.nextDatagram(now(), bundling ? bundle.alloc : single);
      if (!bytes) {
        flush();
        // blocked by the window: wait for feedback, or until a timeout can free a packet
        const wakeIn = typeof dl.sender.wakeAt === 'function' ? dl.sender.wakeAt() - now() : BLOCKED_RECHECK_MS;
        await waitForFeedback(dl, Math.min(BLOCKED_RECHECK_MS, Math.max(1, wakeIn)));
        sinceYield = 0;
        continue;
      }
      if (bytes.length > MAX_OUTBOUND_MESSAGE_BYTES) throw codedError('ERR_PACKET_TOO_LARGE', `packet of ${bytes.length} bytes`);
      if (!bundling && !send(bytes)) continue; // closed: the loop ends above
      dl.packetsSent++; // = the sender's seq of this packet (1, 2, …)
      dl.inflight.onSent(dl.packetsSent, now());
      dl.bytesSent += bytes.length;
      if (++sinceYield >= YIELD_EVERY_PACKETS) {
        sinceYield = 0;
        flush();
        await new Promise((resolve) => setImmediate(resolve)); // let inbound feedback in
      }
    }
  }

  /** @param {Download} dl @param {number} ms @returns {Promise<void>} */
  function waitForFeedback(dl, ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        dl.wake = null;
        resolve();
      }
      dl.wake = done;
    });
  }

  /**
   * @param {Download} dl
   * @param {{ code: string, message: string } | null} error
   */
  function finish(dl, error) {
    if (dl.ended) return;
    dl.ended = true;
    const measured = dl.inflight.pathEstimate();
    if (measured) {
      path = measured;
      paths?.cache.set(paths.key, measured, now()); // a download that measured nothing leaves the older one to age
    }
    dl.abort.abort();
    dl.unsubscribe?.();
    dl.wake?.();
    try {
      dl.sender?.close?.(); // frees codec memory
    } catch {
      // a sender that cannot close has nothing left to free
    }
    if (active === dl) active = null;
    last = { downloadId: dl.downloadId, error, metaBytes: dl.metaBytes };
    deps.stats.activeSessions--;
    if (error && error.code !== 'ERR_CHANNEL_CLOSED') sendError(dl.downloadId, error.code, error.message);
    try {
      deps.logs.record({
        downloadId: String(dl.downloadId), startedAt: dl.startedAt, mode: dl.req.mode, url: dl.req.url,
        objectBytes: dl.objectBytes, sourceIndex: dl.req.sourceIndex, n: dl.req.sourceCount, params: dl.req.params,
        packetsSent: dl.packetsSent, bytesSent: dl.bytesSent, durationMs: now() - dl.t0,
        serverFetchMs: dl.serverFetchMs, fromCache: dl.fromCache, firstSendMs: dl.firstSendMs, inflightHeldMs: dl.inflight.heldMs(now()), error,
      });
    } catch (e) {
      logger.error(`rtc session ${remote}: could not record the download: ${/** @type {Error} */ (e).message}`);
    }
  }

  return {
    receive: onMessage,
    stop(reason) {
      if (stopped) return;
      stopped = true;
      if (active) finish(active, { code: 'ERR_CHANNEL_CLOSED', message: `session stopped: ${reason}` });
    },
  };
}

/**
 * The requested byte range of an object (end inclusive, clamped to the object like HTTP).
 * @param {Uint8Array} bytes
 * @param {{ start: number, end: number } | null} range
 */
export function sliceRange(bytes, range) {
  if (!range) return bytes;
  if (range.start >= bytes.byteLength) {
    throw codedError('ERR_RANGE_NOT_SATISFIABLE', `range starts at ${range.start}, the object has ${bytes.byteLength} bytes`);
  }
  return bytes.subarray(range.start, Math.min(range.end, bytes.byteLength - 1) + 1);
}
