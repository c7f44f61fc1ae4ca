// ProxyClientLib's public client: picks proxies from Origo, runs one transfer mode, builds the
// log record and hands it to the log sender.
import { codedError } from '@mutp/common/errors';
import { errorInfo } from './errors.js';
import { MAX_PREFETCH_URLS, MAX_PROXIES } from './limits.js';
import { fetchProxyList, fetchTickets } from './origo-api.js';
import { createProxyAccess } from './proxy-access.js';
import { proxyEndpoint } from './http/proxy-fetch.js';
import { fetchDigestList } from './http/block-delivery.js';
import { WHOLE_OBJECT_BLOCKS, blocksOfRange, checksumOfAsync, decodeDigestList } from '@mutp/protocol/http';
import { readCapped } from './capped-body.js';
import { buildRecord } from './stats-record.js';
import { createLogSender } from './log-sender.js';
import { downloadParallelHttp } from './http/parallel-http.js';
import { downloadRangeHttp } from './http/range-http.js';
import { createDigestCache, withCurrentLists } from './http/digest-cache.js';
import { loadMutp } from './mutp-loader.js';
import { createPeerPool } from './rtc/peer-pool.js';
import { DEFAULT_PROXIES, MODES, SPARE_PROXIES, parseRange, proxiesToList } from './download-options.js';

export { DEFAULT_PROXIES, MODES, SPARE_PROXIES, parseRange };

/**
 * MUTP clients let the proxies send their packets a few to a data-channel message, which the
 * proxies do while the path loses little (bundle-sizer.js in @mutp/protocol). Each message costs
 * the proxy a native send and the client a hop into JS and an event: in a browser those run on
 * the page's main thread (Chromium, loopback, dash coded: the fleet host's main thread busy 2.8 s
 * per load with one packet per message, 1.5 s with three); in Node they were a quarter to a third
 * of a coded download's CPU (bench:cost, loopback, 32 MiB: proxies 61 ms/MB and the client 43 ms/MB
 * with one packet per message, 46 and 30 with bundles).
 */
const TAKES_BUNDLES = true;
/** Most of a /healthz answer warmHttp reads (bytes): a proxy's is ~200 bytes of JSON; a peer may not make us read on. */
const WARM_HTTP_MAX_BYTES = 64 * 1024;
/** A proxy whose /healthz has not ended in this long (ms) gives no warm connection: warmHttp stops waiting. */
const WARM_HTTP_TIMEOUT_MS = 10_000;
/** A prefetch still running after this long (ms) is given up: its objects are asked for by then in any case. */
const PREFETCH_TIMEOUT_MS = 10_000;

/**
 * @typedef {{id: string, url: string, ticket?: string | null, uploadRateBps?: number | null}} ProxyRef  ticket: Origo's, attached to the proxy's requests; uploadRateBps: Origo's (bytes/s, advertised)
 * @typedef {{start: number, end: number}} ByteRange  end inclusive, like HTTP Range
 * @typedef {{calledAt: number, listedAt: number | null, sentAt: number | null, firstByteAt: number | null, doneAt: number | null}} DownloadTiming
 *   where one download's time went (performance.now() ms of this context): download() called; proxies and tickets in hand;
 *   the request sent to the proxies (MUTP: after the connections were taken from the pool or opened); first body byte
 *   from any proxy; the whole body verified. A few clock reads per download: always kept, never logged.
 */

/**
 * @typedef {object} DownloadOptions
 * @property {string} [mode]  'coded' | 'uncoded' | 'parallel-http' | 'range-http' (checked at run time)
 * @property {number | ProxyRef[]} [proxies]  how many to ask Origo for, or the proxies to use
 * @property {number} [window]  packets; default: from the proxies' upload rates (Origo's list) and an RTT of
 *   DEFAULT_RTT_ESTIMATE_MS (protocol windowFromPaths), else the protocol's default
 * @property {number} [generationSize]
 * @property {number} [feedbackEvery]
 * @property {ByteRange | string | null} [range]  {start, end} (inclusive) or "start-end"
 * @property {AbortSignal} [signal]
 * @property {(p: {grossBytes: number, netBytes: number, objectBytes: number | null,
 *   chunks: {offset: number, bytes: Uint8Array}[]}) => void} [onProgress]  every mode streams the body in `chunks`:
 *   pieces not reported before, each byte once, possibly out of order, offset 0 = the result's first byte;
 *   views valid during the call only (copy at once, never transfer). See docs/architecture.md.
 * @property {number} [lat]
 * @property {number} [lon]
 * @property {boolean} [log]  false: do not post the record to Origo
 * @property {number} [stallTimeoutMs]  a proxy silent this long counts as failed (HTTP modes)
 * @property {string | null} [next]  the URL the caller will likely download next (the stream's next segment
 *   file): the proxies are told to fetch it from the origin meanwhile
 * @property {boolean} [bundles]  MUTP: let the proxies send packets a few to a message (default: yes;
 *   TAKES_BUNDLES says why)
 * @property {ProxyListing} [listing]  Origo's list for this download, asked already (proxies given by number):
 *   the CLI asks it before the client's modules load, so they load during its round trips
 */

/**
 * @typedef {{startedAt: number, list: Promise<import('./origo-api.js').ProxyEntry[]>}} ProxyListing
 *   startedAt: performance.now() when it was asked (Infinity: not asked now, a list kept from before); list: fetchProxyList's
 *   answer for n = proxiesToList(proxies)
 */

/**
 * @param {object} o
 * @param {string | null} [o.origo]      Origo base URL; needed for proxies-by-number and for log upload
 * @param {string} [o.clientId]          random id of this installation (one is made when missing)
 * @param {typeof fetch} [o.fetch]
 * @param {{warn: (...a: unknown[]) => void}} [o.logger]
 * @param {object} [o.logSender]         options for the log sender (retryBaseMs, …)
 * @param {object} [o.rtcConfig]         merged into every RTCPeerConnection config (default in Node: bind to
 *                                       loopback when the proxies are on loopback; none in browsers)
 * @param {boolean} [o.keepConnections]  keep proxy connections open between MUTP downloads (default true;
 *                                       idle ones close after POOL_IDLE_TIMEOUT_MS; close() closes the rest)
 * @param {boolean} [o.keepDigestLists]  keep each object's digest lists (HTTP modes) for DIGEST_CACHE_TTL_MS, so its
 *                                       other ranges vote at once (default true; false: every download asks for them,
 *                                       as for an object this client never saw)
 * @param {(url: string) => {code: string, message: string} | null} [o.blocked]  URLs this context may not fetch
 *   (e.g. plain HTTP from a frame under an HTTPS page): never tried; proxies at such URLs are left out, and a
 *   download with no other way fails with that code, logged to Origo
 * @param {((bytes: Uint8Array) => Promise<Uint8Array>) | null} [o.checksumAsync]  the HTTP modes' block checksums and Coded
 *   MUTP's generation checksums off the calling thread (default: the browser's WebCrypto where the page has it; none on
 *   Node, whose own is native); null: inline
 */
export function createClient({ origo = null, clientId = globalThis.crypto.randomUUID(), fetch = globalThis.fetch, logger = console, logSender: logOpts = {}, rtcConfig,
  keepConnections = true, keepDigestLists = true, blocked = () => null, checksumAsync = checksumOfAsync } = {}) {
  if (origo !== null) {
    try {
      new URL(origo);
    } catch {
      throw codedError('ERR_BAD_ORIGO_URL', `not a URL: ${origo}`);
    }
  }
  const logs = origo ? createLogSender({ origo, fetch, logger, ...logOpts }) : null;
  // the paper's ProxyClientLib kept its proxy connections: a download reuses them (no signalling, ICE, DTLS)
  const peerPool = keepConnections ? createPeerPool() : null;
  const digestCache = keepDigestLists ? createDigestCache() : null; // an object's other ranges vote at once (HLS byte ranges, DASH SegmentBase)

  /** @param {{n?: number, lat?: number, lon?: number, signal?: AbortSignal}} [q] */
  async function proxies(q = {}) {
    if (!origo) throw codedError('ERR_NO_ORIGO', 'no Origo URL configured');
    const refused = blocked(origo); // e.g. a plain-HTTP Origo under an HTTPS page: never tried, and said so
    if (refused) throw codedError(refused.code, `Origo: ${refused.message}`);
    return fetchProxyList({ origo, fetch, logger, clientId, ...q });
  }

  /**
   * @param {string} url
   * @param {DownloadOptions} [opts]
   */
  async function download(url, opts = {}) {
    const mode = /** @type {'coded'|'uncoded'|'parallel-http'|'range-http'} */ (opts.mode ?? 'coded');
    if (!(/** @type {readonly string[]} */ (MODES)).includes(mode)) throw codedError('ERR_BAD_MODE', `unknown mode "${mode}" (one of ${MODES.join(', ')})`);
    checkOriginUrl(url);
    if (opts.next != null) checkOriginUrl(opts.next);
    const range = parseRange(opts.range);
    const id = globalThis.crypto.randomUUID(); // record id, and the downloadId the proxies log
    let startedAt = new Date().toISOString();
    let t0 = performance.now();
    const elapsed = () => performance.now() - t0;
    /** A clock read as ms since the download's start (null: not reached). @param {number | null} at */
    const sinceStart = (at) => (at === null ? null : at - t0);
    /** @type {DownloadTiming} */
    const timing = { calledAt: t0, listedAt: null, sentAt: null, firstByteAt: null, doneAt: null };

    /** @type {ProxyRef[]} */
    let list = [];
    /** @type {ReturnType<typeof createProxyAccess> | null} */
    let access = null;
    /** @type {{code: string, message: string} | null} */
    let refusal = null;
    // an MUTP download's transport, WebRTC stack and codec load while Origo answers
    const transport = mode === 'coded' || mode === 'uncoded' ? loadTransport(mode) : null;
    transport?.catch(() => {}); // awaited below, where a failure counts
    try {
      refusal = origo && !Array.isArray(opts.proxies) ? blocked(origo) : null; // asking Origo for proxies
      if (refusal) throw codedError(refusal.code, `Origo: ${refusal.message}`);
      const picked = await resolveProxies(opts);
      const usable = withoutBlocked([...picked.list, ...picked.spares], picked.list.length);
      refusal = usable.refusal;
      if (refusal && usable.list.length === 0) {
        list = picked.list; // the record names the proxies this context could not use
        throw codedError(refusal.code, refusal.message, { perProxy: list.map((p) => ({ proxyId: p.id, bytes: 0, packets: 0, duplicates: 0, error: refusal })) });
      }
      picked.list = usable.list;
      picked.spares = usable.spares;
      list = picked.list;
      if (list.length === 0) throw codedError('ERR_NO_PROXIES', 'Origo has no live proxies to offer');
      access = createProxyAccess({ proxies: list, spares: picked.spares, fetch, logger,
        renewTickets: origo ? (ids) => fetchTickets({ origo, fetch, logger, ids, clientId, signal: opts.signal }) : null });
      // the clock starts at the chunk request, as in the paper: the Origo lookup is not part of a download
      startedAt = new Date().toISOString();
      t0 = performance.now();
      timing.listedAt = t0;
      const proxiesOut = list.map((p) => ({ id: p.id, url: p.url, uploadRateBps: p.uploadRateBps ?? null }));
      const common = { url, proxies: proxiesOut, range, signal: opts.signal, fetch: access.fetch, elapsed, onProgress: opts.onProgress, stallTimeoutMs: opts.stallTimeoutMs, downloadId: id, digestCache, logger, checksumAsync };
      const next = opts.next ?? null;
      /** @type {Promise<any>} */
      let running;
      if (mode === 'parallel-http' || mode === 'range-http') timing.sentAt = performance.now(); // the HTTP modes ask every proxy at once
      // every mode names the next object on its own requests: a /fetch's &next=, MUTP's hint after its request
      if (mode === 'parallel-http') running = withCurrentLists(downloadParallelHttp, { ...common, next }, digestCache, logger);
      else if (mode === 'range-http') running = withCurrentLists(downloadRangeHttp, { ...common, next }, digestCache, logger);
      else {
        running = (async () => {
          const { downloadMutp, downloadWindow, rtc: { defaultRtcConfig } } = await /** @type {ReturnType<typeof loadTransport>} */ (transport);
          return downloadMutp({ ...common, next, bundles: opts.bundles ?? TAKES_BUNDLES, mode, clientId, logger, peerPool, timing, rtcConfig: rtcConfig ?? defaultRtcConfig(list.map((p) => p.url)),
            params: { window: downloadWindow(mode, list, opts), generationSize: opts.generationSize, feedbackEvery: opts.feedbackEvery } });
        })();
      }
      let result = await running;
      timing.doneAt = performance.now();
      if (result.firstPacketMs !== null) timing.firstByteAt = t0 + result.firstPacketMs;
      // a source that moved off a busy proxy is logged under the proxy that served it
      list = access.used();
      result = { ...result, perProxy: access.relabel(result.perProxy) };
      const durationMs = elapsed();
      const stats = buildRecord({
        id, clientId, startedAt, mode, proxies: list, url, objectBytes: result.data.byteLength,
        params: result.params, grossBytes: result.grossBytes, netBytes: result.data.byteLength, durationMs,
        firstPacketMs: result.firstPacketMs, connectMs: sinceStart(timing.sentAt), serverFetchMs: result.serverFetchMs, packets: result.packets,
        lookupMs: lookupMs(timing, opts.listing), requestSteps: result.requestSteps ?? null,
        duplicates: result.duplicates, lossEstimate: result.lossEstimate, perProxy: result.perProxy,
        packetLog: result.packetLog, feedbackLog: result.feedbackLog, verified: result.verified, error: null,
      });
      if (opts.log !== false) logs?.enqueue(stats);
      return { data: result.data, stats, timing };
    } catch (err) {
      const e = /** @type {Error & {code?: string, perProxy?: any, grossBytes?: number, firstPacketMs?: number, stats?: object}} */ (
        err && typeof err === 'object' ? err : codedError('ERR_UNKNOWN', String(err)));
      if (!e.code) e.code = errorInfo(e).code;
      if (access) {
        list = access.used();
        e.perProxy = access.relabel(e.perProxy);
      }
      const stats = buildRecord({
        id, clientId, startedAt, mode, proxies: list, n: list.length || requestedCount(opts), url, objectBytes: range ? range.end - range.start + 1 : 0,
        grossBytes: e.grossBytes ?? 0, netBytes: 0, durationMs: elapsed(), firstPacketMs: e.firstPacketMs ?? null, connectMs: sinceStart(timing.sentAt),
        lookupMs: lookupMs(timing, opts.listing), perProxy: e.perProxy, error: errorInfo(e),
      });
      // a download that never reached a proxy says nothing about the fleet: not logged, unless this
      // context refused the fleet (a deployment problem Origo must count)
      if (opts.log !== false && (list.length > 0 || (refusal && e.code === refusal.code))) logs?.enqueue(stats);
      e.stats = stats;
      throw e;
    }
  }

  /**
   * The first `count` proxies this context may fetch, the rest as spares; refusal: the first one left out.
   * @param {ProxyRef[]} all @param {number} count
   */
  function withoutBlocked(all, count) {
    /** @type {{code: string, message: string} | null} */
    let refusal = null;
    const ok = all.filter((p) => {
      const r = blocked(p.url);
      if (r) {
        refusal ??= r;
        logger.warn(`proxy ${p.id} left out: ${r.code}: ${r.message}`);
      }
      return r === null;
    });
    return { list: ok.slice(0, count), spares: ok.slice(count), refusal };
  }

  /**
   * The proxies to start with, and spares from Origo's list for sources whose proxy refuses.
   * @param {DownloadOptions} opts
   * @returns {Promise<{ list: ProxyRef[], spares: ProxyRef[] }>}
   */
  async function resolveProxies(opts) {
    const p = opts.proxies ?? DEFAULT_PROXIES;
    if (Array.isArray(p)) {
      if (p.length > MAX_PROXIES) throw codedError('ERR_BAD_OPTION', `at most ${MAX_PROXIES} proxies`);
      const list = p.map((x, i) => {
        if (!x || typeof x.url !== 'string') throw codedError('ERR_BAD_OPTION', `proxies[${i}] needs a url`);
        const rate = x.uploadRateBps;
        return {
          id: typeof x.id === 'string' ? x.id : `proxy-${i}`, url: x.url, ticket: typeof x.ticket === 'string' ? x.ticket : null,
          uploadRateBps: typeof rate === 'number' && rate > 0 && Number.isFinite(rate) ? rate : null, // sizes the MUTP window
        };
      });
      return { list: await withTickets(list, opts.signal), spares: [] };
    }
    if (!Number.isInteger(p) || p < 1 || p > MAX_PROXIES) throw codedError('ERR_BAD_OPTION', `proxies must be an integer 1..${MAX_PROXIES}`);
    const all = await (opts.listing?.list ?? proxies({ n: proxiesToList(p), lat: opts.lat, lon: opts.lon, signal: opts.signal }));
    return { list: all.slice(0, p), spares: all.slice(p) };
  }

  /**
   * Proxies the caller chose get their tickets from Origo (GET /api/tickets), when there is an Origo.
   * Without one (or when Origo cannot answer) they go without tickets: a proxy that requires tickets refuses them
   * with ERR_TICKET_MISSING, which names the cause.
   * @param {ProxyRef[]} list @param {AbortSignal | undefined} signal
   */
  async function withTickets(list, signal) {
    const ids = list.filter((x) => !x.ticket).map((x) => x.id);
    if (!origo || ids.length === 0) return list;
    try {
      const tickets = await fetchTickets({ origo, fetch, logger, ids: [...new Set(ids)], clientId, signal });
      return list.map((x) => (x.ticket ? x : { ...x, ticket: tickets.get(x.id) ?? null }));
    } catch (err) {
      logger.warn(`origo: no tickets for the given proxies (${/** @type {any} */ (err)?.code ?? err})`);
      return list;
    }
  }

  /**
   * Open an HTTP connection to each of these proxies now (a GET of its /healthz, read to the end so
   * the connection goes back to the pool): the first HTTP download to it then starts on an open
   * connection instead of TCP's handshake (and TLS's, for an https proxy), one to two round trips.
   * A proxy this context may not fetch (blocked) is not tried; an answer longer than
   * WARM_HTTP_MAX_BYTES or slower than WARM_HTTP_TIMEOUT_MS is given up (ERR_PROXY_TOO_LARGE,
   * ERR_TIMEOUT). Never rejects: one outcome per proxy.
   * @param {ProxyRef[]} refs @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<{id: string, ok: boolean, code: string | null}[]>}
   */
  function warmHttp(refs, { signal } = {}) {
    return Promise.all(refs.map(async (p) => {
      const refused = blocked(p.url); // never tried, as a download would not be
      if (refused) return { id: p.id, ok: false, code: refused.code };
      const limit = AbortSignal.timeout(WARM_HTTP_TIMEOUT_MS);
      try {
        const res = await fetch(proxyEndpoint(p.url, 'healthz'), { signal: signal ? AbortSignal.any([signal, limit]) : limit, cache: 'no-store' });
        // read to the end (the connection then goes back to the pool), but no further than a proxy's answer goes
        await readCapped(res, WARM_HTTP_MAX_BYTES, { what: `${p.id}'s /healthz` });
        return { id: p.id, ok: res.ok, code: res.ok ? null : `HTTP_${res.status}` };
      } catch (err) {
        return { id: p.id, ok: false, code: limit.aborted ? 'ERR_TIMEOUT' : errorInfo(/** @type {Error} */ (err)).code };
      }
    }));
  }

  /**
   * Open WebRTC connections to these proxies now and keep them in the pool, so the MUTP downloads
   * that follow start without signalling, ICE or DTLS (a page about to play video warms up with
   * this). Also loads the MUTP transport. Never rejects: one outcome per connection.
   * @param {ProxyRef[]} refs  the proxy checks a ticket at signalling: those without one get it from Origo
   * @param {{perProxy?: number, signal?: AbortSignal}} [o]  perProxy: connections per proxy (concurrent downloads, e.g. audio and video)
   * @returns {Promise<{id: string, ok: boolean, code: string | null, reused: boolean}[]>}
   */
  async function preconnect(refs, { perProxy = 1, signal } = {}) {
    if (!peerPool) return [];
    const list = await withTickets(refs, signal);
    const [{ RTCPeerConnection, defaultRtcConfig }] = await Promise.all([import('#rtc'), loadMutp().catch(() => null)]);
    const access = createProxyAccess({ proxies: list, fetch, logger });
    const config = rtcConfig ?? defaultRtcConfig(list.map((p) => p.url));
    // the pool opens what is missing and keeps it idle: a download meanwhile takes a kept connection
    const per = await Promise.all(list.map(async (p) => {
      try {
        const got = await peerPool.fill({ url: p.url, RTCPeerConnection, rtcConfig: config, fetch: access.fetch, signal }, perProxy);
        return got.map((g) => ({ id: p.id, ok: g.error === null, code: g.error ? errorInfo(g.error).code : null, reused: g.reused }));
      } catch (err) {
        return [{ id: p.id, ok: false, code: errorInfo(/** @type {Error} */ (err)).code, reused: false }];
      }
    }));
    return per.flat();
  }

  /**
   * Have these proxies fetch these objects (or byte ranges of them) from their origins now, so the
   * downloads that follow find them cached (a player's first request for a rendition is its init
   * section, an origin fetch at every proxy on a first page load). Each proxy is asked for each
   * one's digest list (GET /fetch?url=…&digests=1[&span=a-b]): it fetches the object, or the
   * digest blocks of the range, and answers only their digests, which are kept for the HTTP
   * modes' vote (digest-cache.js) as a download's own would be. At most MAX_PREFETCH_URLS
   * objects; a URL that is not http(s), a bad range, or a proxy this context may not fetch is
   * not tried; an object whose list from that proxy is kept (a recent download or prefetch) is
   * not asked again (`kept`). Never rejects: one outcome per proxy and object.
   * @param {ProxyRef[]} refs  those without a ticket get it from Origo
   * @param {{url: string, range?: ByteRange | null}[]} objects  range: its bytes only (end inclusive)
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<{id: string, url: string, ok: boolean, code: string | null, kept: boolean}[]>}
   */
  async function prefetch(refs, objects, { signal } = {}) {
    /** @type {Map<string, {url: string, range: ByteRange | null}>} */
    const wanted = new Map();
    for (const { url, range: r } of objects) {
      try {
        checkOriginUrl(url);
        const range = parseRange(r);
        wanted.set(objectKey(url, range), { url, range });
      } catch {
        // not tried, as a download of it would be refused
      }
    }
    const asked = [...wanted.values()].slice(0, MAX_PREFETCH_URLS).map((o) => ({ ...o, span: o.range ? blocksOfRange(o.range) : WHOLE_OBJECT_BLOCKS }));
    const reachable = refs.filter((p) => !blocked(p.url));
    // per proxy, what it is asked for: not what its list is kept for (a recent download or prefetch: it fetched the object moments ago)
    const missing = new Map(reachable.map((p) => [p.url, asked.filter((o) => digestCache?.get(p.url, o.url, o.span) == null)]));
    const keptOutcomes = reachable.flatMap((p) => asked.filter((o) => !missing.get(p.url)?.includes(o)).map(({ url }) => ({ id: p.id, url, ok: true, code: null, kept: true })));
    const toAsk = reachable.filter((p) => (missing.get(p.url)?.length ?? 0) > 0);
    if (toAsk.length === 0) return keptOutcomes;
    const list = await withTickets(toAsk, signal);
    const access = createProxyAccess({ proxies: list, fetch, logger });
    const limit = AbortSignal.timeout(PREFETCH_TIMEOUT_MS);
    const stop = signal ? AbortSignal.any([signal, limit]) : limit;
    const outcomes = await Promise.all(list.flatMap((p) => (missing.get(p.url) ?? []).map(async ({ url, range, span }) => {
      try {
        const bytes = await fetchDigestList({ fetch: access.fetch, proxyUrl: p.url, url, span: range, signal: stop });
        const parsed = decodeDigestList(bytes, span);
        if ('error' in parsed) return { id: p.id, url, ok: false, code: parsed.error.code, kept: false };
        digestCache?.set(p.url, url, parsed.list);
        return { id: p.id, url, ok: true, code: null, kept: false };
      } catch (err) {
        return { id: p.id, url, ok: false, code: limit.aborted ? 'ERR_TIMEOUT' : errorInfo(/** @type {Error} */ (err)).code, kept: false };
      }
    })));
    return [...keptOutcomes, ...outcomes];
  }

  return {
    download,
    proxies,
    preconnect,
    warmHttp,
    prefetch,
    /** Wait until queued log records reached Origo (true) or the timeout passed (false). */
    flushLogs: (/** @type {number} */ timeoutMs) => (logs ? logs.flush(timeoutMs) : Promise.resolve(true)),
    /** Records not yet acknowledged by Origo. */
    pendingLogs: () => (logs ? logs.pending.length : 0),
    /** The records not yet acknowledged by Origo, oldest first (a copy): a caller about to exit keeps them. */
    logRecords: () => (logs ? logs.pending : []),
    /**
     * Queue records kept from an earlier run (by id: one Origo already stored is acked as a duplicate).
     * @param {{id: string}[]} records
     */
    queueLogs: (records) => { for (const r of records) logs?.enqueue(r); },
    /** Send every queued record not in a POST already, now; resolves when those POSTs settled. */
    sendLogs: () => (logs ? logs.sendAll() : Promise.resolve()),
    /**
     * Hand every queued record to the log sender's `sendBeacon` (createClient's logSender option), whose
     * answer nobody reads: they stay queued. Without one, as sendLogs.
     */
    beaconLogs: () => (logs ? logs.beaconAll() : Promise.resolve()),
    /** Log upload counters: {sent, stored, duplicates, rejected, dropped, failures}. */
    logCounters: () => (logs ? { ...logs.counters } : null),
    /** Kept WebRTC connections to one proxy, idle or carrying a download. @param {string} url */
    keptConnections: (url) => peerPool?.keptFor(url) ?? 0,
    /** Pooled proxy connections: {connects, reuses, discarded (lent connections closed as failed or suspect)} and how many are idle now. */
    connectionCounters: () => (peerPool ? { ...peerPool.counters(), idle: peerPool.idleCount } : null),
    /**
     * Close the kept connections now: the next MUTP download connects anew (a one-off download's
     * start). proxyUrls: only those to these proxies (default: all).
     * @param {string[]} [proxyUrls]
     */
    closeIdleConnections: (proxyUrls) => peerPool?.closeIdle(proxyUrls),
    close: () => {
      peerPool?.close();
      logs?.close();
    },
    clientId,
  };
}

/**
 * Origo's part before the download's clock (ms): from the lookup's start (an earlier listing's, if
 * the caller asked it) to the proxies in hand; null when they never came.
 * @param {DownloadTiming} timing @param {ProxyListing | undefined} listing
 */
function lookupMs(timing, listing) {
  return timing.listedAt === null ? null : timing.listedAt - Math.min(timing.calledAt, listing?.startedAt ?? Infinity);
}

/** N as asked (for the record of a download that got no proxy). @param {DownloadOptions} opts */
function requestedCount(opts) {
  return Array.isArray(opts.proxies) ? Math.max(1, opts.proxies.length) : Number.isInteger(opts.proxies) ? /** @type {number} */ (opts.proxies) : DEFAULT_PROXIES;
}

/** @param {string} url */
function checkOriginUrl(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    throw codedError('ERR_BAD_URL', `not a URL: ${url}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw codedError('ERR_BAD_URL', `only http(s) URLs can be downloaded: ${url}`);
}

/**
 * One string per object or byte range of it, for sets and maps of what was asked for already.
 * @param {string} url @param {ByteRange | null | undefined} range  end inclusive
 */
export function objectKey(url, range) {
  return range ? `${range.start}-${range.end} ${url}` : url;
}

/**
 * The MUTP transport, the environment's WebRTC stack (HTTP modes need neither) and, for a coded
 * download, its codec, loaded at once: the codec loads once per process, and the download's
 * controller then finds it loaded.
 * @param {'coded' | 'uncoded'} mode
 */
async function loadTransport(mode) {
  const [mutp, rtc] = await Promise.all([loadMutp(), import('#rtc')]);
  if (mode === 'coded') await mutp.loadCodec().catch(() => {}); // a codec that fails to load fails the download, with its code
  return { ...mutp, rtc };
}
