// The download frame's answer to the page's requests: checks each request (the page is
// untrusted; any page can embed the frame and talk to it), runs ProxyClientLib, and streams the
// body to the page in order over the MessagePort, whatever the mode. Fleet paths that fail are
// skipped for a while (breakers); a MUTP download whose WebRTC cannot connect is retried at once
// in Parallel HTTP, and one asked for while the warm-up still opens the connections runs in
// Parallel HTTP. Every download, failed, skipped or cancelled, becomes a record for Origo; one
// that ran in another mode or with another N than drawn says which and why.
// No browser API here: the frame wires it to the port, the settings and the background.
import { buildRecord, objectKey } from '@mutp/proxyclientlib';
import { chooseModeAndN, chooseMode, chooseN, maxN, FEW_PROXIES } from '../shared/choose.js';
import { createInOrder } from './in-order.js';
import { parsePageMessage, splitReason } from './page-request.js';
import { createBreakers } from './breaker.js';
import { blameFailure } from './failure-blame.js';
import { createOriginHeads, HEAD_WAIT_MS } from './origin-heads.js';
import { MIXED_CONTENT_CODE } from '../shared/mixed-content.js';
import { createWarmUp, WARMING, RTC_BUSY } from './warm-up.js';
import { createRtcClaims } from './rtc-claims.js';
import { codedError } from '@mutp/common/errors';
import { createHops } from './hop-timing.js';
import { DEFAULT_NO_PROGRESS_MS, MUTP_MODES } from '../shared/settings.js';
import { createServedAhead } from './served-ahead.js';

// progress heartbeat to the page's stall timer: bytes can arrive with none in order yet (a coded
// generation, a later range). In the HTTP modes only verified bytes count: a Range-split share
// streamed while its proxy's origin still sends is held until every proxy's list is in, and a
// fleet whose origin fetches are slower than the direct path would look alive while giving the
// page nothing (its lists wait for the whole object at every proxy)
const ALIVE_EVERY_MS = 250;
/**
 * The body goes to the page in posts of at least this many bytes (bytes; the last one may be
 * shorter). A post is a message into the page's process and a task on the player's thread:
 * loopback, Chromium, 4 proxies, the fleet host's posts took 276 ms (coded, one per 26 KB
 * generation) and 447 ms (uncoded, one per 1100-byte packet) of 8 s of play.
 */
const PAGE_POST_BATCH_BYTES = 64 * 1024;
const MAX_PREFETCHES_PER_PAGE = 64; // init sections a page's manifests may have the proxies fetch: a few renditions × a few playlists
const RTC_FALLBACK_MODE = 'parallel-http'; // the fleet without WebRTC
const AHEAD_HOW = 'ahead'; // a download ahead's `segment` until a request takes it (served-ahead.js)
const ORIGO_CODES = /^ERR_(ORIGO|NO_ORIGO|NO_PROXIES)/;
/**
 * A segment served by proxies whose breakers have half-opened is a probe, and the player's buffer
 * pays for it: such a fleet (one slower than the direct path, say, its origin fetches on a slow
 * link) may again send nothing for the page's whole patience, and with a few 2 s segments
 * buffered, that wait after each backoff can be a stall. So a probe gets this share of the page's
 * patience (noProgressTimeoutMs) to send its first bytes; then the page fetches directly.
 */
const PROBE_PATIENCE_SHARE = 0.5;

/**
 * @typedef {object} FrameState  read at each request: the settings can change meanwhile
 * @property {import('../shared/settings.js').Settings} settings
 * @property {(url: string) => boolean} matches
 * @property {{download: (url: string, opts: object) => Promise<{data: Uint8Array, stats: object, timing?: Record<string, number | null>}>,
 *   preconnect?: (list: {id: string, url: string, ticket: string | null}[], o: {perProxy: number}) => Promise<{id: string, ok: boolean, code: string | null}[]>,
 *   keptConnections?: (url: string) => number,
 *   prefetch?: (list: {id: string, url: string, ticket: string | null}[], objects: {url: string, range: {start: number, end: number} | null}[]) => Promise<{id: string, url: string, ok: boolean, code: string | null}[]>}} client
 * @property {string} [clientId]
 * @property {{list: (where: object) => Promise<{id: string, url: string, ticket: string | null}[]>, invalidate: () => void, worked?: () => void} | null} [proxies]
 *   the cached proxy list; without it ProxyClientLib asks Origo per download
 * @property {typeof fetch} [fetch]  for HEAD /fetch (MUTP modes' origin head)
 */

/** @param {any} e */
const codeOf = (e) => (typeof e?.code === 'string' ? e.code : 'ERR_UNKNOWN');

/**
 * Every per-proxy error of a failed MUTP download is a WebRTC connect failure: the transport
 * cannot work here (no candidate pair, ICE failed), whatever the proxies.
 * @param {any} e
 */
function rtcUnusable(e) {
  const per = Array.isArray(e?.perProxy) ? e.perProxy.filter((p) => p?.error) : [];
  return per.length > 0 && per.every((p) => /^ERR_RTC_/.test(String(p.error.code)));
}

/**
 * @param {object} o
 * @param {() => FrameState} o.state
 * @param {{postMessage: (msg: object, transfer?: Transferable[]) => void}} o.port  to the page
 * @param {(msg: object) => void} o.toBackground
 * @param {{warn: (...a: unknown[]) => void}} o.logger
 * @param {() => number} [o.now]  ms clock for the heartbeat and the breakers
 * @param {ReturnType<typeof createOriginHeads>} [o.heads]
 * @param {ReturnType<typeof createBreakers>} [o.breakers]  shared by the pages one fleet host serves: what failed for one page is skipped for the next
 * @param {ReturnType<typeof createWarmUp>} [o.warmUp]  shared likewise: a second page finds the connections open
 * @param {ReturnType<typeof createRtcClaims>} [o.claims]  shared likewise: the kept connections' downloads, over all pages
 */
export function createRequestServer({ state, port, toBackground, logger, now = () => performance.now(), heads = createOriginHeads(), breakers = createBreakers(), warmUp = createWarmUp({ proxies: () => state().proxies, client: () => state().client, breakers, now, logger }), claims = createRtcClaims() }) {
  /** @type {Map<number, AbortController>} */
  const active = new Map();
  /** @type {Set<string>} objects (URL and range) this page's manifests had the proxies fetch */
  const prefetched = new Set();
  const ahead = createServedAhead({ now, abort: (id, err) => active.get(id)?.abort(err) });
  const toPage = { send: (/** @type {object} */ msg, /** @type {Transferable[] | undefined} */ transfer) => port.postMessage(msg, transfer), record };

  /** @param {unknown} data  a message from the page */
  function onPageMessage(data) {
    const m = parsePageMessage(data);
    if (m.t === 'bad') return logger.warn(`ignoring a page message: ${m.why}`);
    if (m.t === 'abort') {
      const err = codedError(m.code, m.code === 'ERR_NO_PROGRESS' ? 'the page saw no progress and fetched directly' : 'the page aborted the request');
      return ahead.abortTaken(m.id, err) || active.get(m.id)?.abort(err);
    }
    if (m.t === 'warm') return warm();
    if (m.t === 'playing') return warmUp.pagePlaying();
    if (m.t === 'seen') {
      toBackground({ t: 'seen', kind: m.kind, url: m.url, segments: m.segments, templates: m.templates });
      return prefetch(m.inits);
    }
    if (m.t === 'fallback') {
      toBackground({ t: 'fallback', url: m.url, reason: m.reason });
      // a request the frame served was recorded when it failed; one it never saw is recorded now
      if (m.id === null) record(failureRecord({ url: m.url, ...chooseModeAndN(state().settings), error: splitReason(m.reason), startedAt: new Date(), ms: 0, proxies: [] }));
      return undefined;
    }
    return request(m.id, m.url, m.range, m.how, m.next);
  }

  /**
   * A page's request: the download ahead of its object when there is one, else one now.
   * @param {number} id @param {string} url @param {{start: number, end: number} | null} range @param {string} how @param {string | null} next
   */
  function request(id, url, range, how, next) {
    if (ahead.take(objectKey(url, range), { id, how, ...toPage })) return undefined; // the page's abort stops it (abortTaken)
    return serve(id, url, range, how, next);
  }

  /**
   * @param {object} r
   * @param {string | null} [seen]  why the page took it for a segment, on a request's first record: the
   *   background counts the segment as seen from it (one runtime message per download, not two)
   */
  function record(r, seen = null) {
    toBackground({ t: 'record', record: r, ...(seen ? { seen } : {}) });
  }

  /**
   * A record for a download that moved no data (skipped by a breaker, refused, failed early).
   * @param {{url: string, mode: string, n: number, error: {code: string, message: string}, startedAt: Date, ms: number, proxies: {id: string}[], extra?: object}} o
   */
  function failureRecord({ url, mode, n, error, startedAt, ms, proxies, extra }) {
    const r = buildRecord({
      clientId: state().clientId ?? '', startedAt: startedAt.toISOString(), mode: /** @type {any} */ (mode), proxies, url, objectBytes: 0,
      grossBytes: 0, netBytes: 0, durationMs: ms, error,
    });
    return { ...r, clientId: state().clientId ?? null, n: Math.max(1, n), ...extra }; // n: the N asked for, also when no proxy was reached
  }

  /**
   * A manifest's init sections (files, or byte ranges of one): the proxies the downloads will use
   * fetch them from the origin now, before the player asks for the one of the rendition it picks
   * (on a first page load an origin fetch at each proxy, tens of ms). Only what this page's
   * downloads may fetch, at most MAX_PREFETCHES_PER_PAGE per page. Never rejects.
   * @param {{url: string, range: {start: number, end: number} | null}[]} sections
   */
  async function prefetch(sections) {
    const { settings, matches, client, proxies } = state();
    if (!settings.enabled || !proxies || typeof client.prefetch !== 'function') return;
    const keyOf = (/** @type {{url: string, range: {start: number, end: number} | null}} */ x) => objectKey(x.url, x.range);
    const wanted = sections.filter((x) => !prefetched.has(keyOf(x)) && (matches(x.url) || settings.detect !== 'off') && breakers.allows(`host:${new URL(x.url).host}`, now()))
      .slice(0, Math.max(0, MAX_PREFETCHES_PER_PAGE - prefetched.size));
    if (wanted.length === 0 || !breakers.allows('origo', now())) return;
    for (const x of wanted) prefetched.add(keyOf(x));
    // the first ones downloaded whole now, the rest fetched by the proxies only
    const rest = wanted.filter((x) => {
      const a = ahead.start(keyOf(x));
      if (a) void serve(a.id, x.url, x.range, AHEAD_HOW, null, a.out);
      return a === null;
    });
    if (rest.length === 0) return;
    try {
      const usable = (await proxies.list(where(settings))).filter((p) => breakers.allows(`proxy:${p.id}`, now())).slice(0, maxN(settings));
      await client.prefetch(usable, rest);
    } catch (err) {
      logger.warn(`prefetch: no proxy list (${codeOf(err)})`); // the downloads meet the same and record it
    }
  }

  /** The page will ask for segments: have the proxy list, the tickets and the WebRTC connections ready. */
  function warm() {
    const { settings } = state();
    warmUp.start(settings, where(settings), maxN(settings));
  }

  /** @param {import('../shared/settings.js').Settings} settings */
  function where(settings) {
    return settings.proximity && settings.location ? { lat: settings.location.lat, lon: settings.location.lon } : {};
  }

  /**
   * @param {number} id
   * @param {string} url
   * @param {{start: number, end: number} | null} range
   * @param {string} how
   * @param {string | null} next  the segment file the page's player likely asks next: the proxies fetch it meanwhile
   * @param {{send: (msg: object, transfer?: Transferable[]) => void, record: (r: object, seen: string | null) => void}} [out]
   *   where its messages and records go: the page's, or a download ahead's keeping
   */
  async function serve(id, url, range, how, next, out = toPage) {
    const st = state();
    const { settings, matches, client } = st;
    // the page-side wrapper decides too, but the frame is web-accessible: with detection off only the patterns pass
    if (!settings.enabled || (!matches(url) && settings.detect === 'off')) {
      out.send({ t: 'fail', id, code: 'ERR_NOT_MATCHED', message: 'the URL does not match the extension settings' });
      return;
    }
    /** the request's records: its first also says it was seen (a MUTP failure retried over HTTP makes two) */
    let firstRecord = true;
    const report = (/** @type {object} */ r) => {
      out.record(r, firstRecord ? how : null);
      firstRecord = false;
    };
    const hops = createHops(() => performance.now());
    const startedAt = new Date();
    const t0 = now();
    if (!warmUp.started()) warm(); // no warm-up message from the page (a pattern match, another wrapper)
    let mode = chooseMode(settings);
    const wanted = mode;
    let modeWhy = null;
    let n = chooseN(settings, Infinity).n; // until the usable proxies are known
    /** @type {{nWanted?: number, nWhy?: string}} */
    let nNote = {};
    const host = new URL(url).host;
    const extra = { segment: how };
    const notes = () => ({ ...extra, ...(mode !== wanted ? { modeWanted: wanted, modeWhy } : {}), ...nNote });
    /** @param {string} code @param {string} message @param {{id: string}[]} [used] */
    const refuse = (code, message, used = []) => {
      out.send({ t: 'fail', id, code, message });
      report(failureRecord({ url, mode, n, error: { code, message }, startedAt, ms: now() - t0, proxies: used, extra: notes() }));
    };
    for (const key of ['origo', `host:${host}`]) {
      const open = breakers.openCode(key, now());
      if (open) return refuse('ERR_FLEET_SKIPPED', `${key} failed recently (${open}); fetched directly until it is retried`);
    }
    if (MUTP_MODES.includes(mode)) {
      modeWhy = breakers.openCode('rtc', now());
      if (modeWhy) mode = RTC_FALLBACK_MODE; // WebRTC failed recently
      else if (breakers.halfOpen('rtc', now()) && !warmUp.busy()) warm(); // probed by a warm-up, not by this segment
    }

    /** @type {{id: string, url: string, ticket: string | null}[] | number} */
    let proxies = n;
    let probe = false; // a chosen proxy failed recently and its backoff has passed
    /** @type {{url: string}[] | null} the proxies whose kept connections this download claimed */
    let claimed = null;
    if (st.proxies) {
      try {
        const all = await st.proxies.list(where(settings));
        const usable = all.filter((p) => breakers.allows(`proxy:${p.id}`, now()));
        if (usable.length === 0) throw codedError(all.length ? 'ERR_FLEET_SKIPPED' : 'ERR_NO_PROXIES', `all ${all.length} listed proxies failed recently`);
        const drawn = chooseN(settings, usable.length); // only an N these proxies can serve
        n = drawn.n;
        if (drawn.nWhy) nNote = { nWanted: drawn.nWanted, nWhy: drawn.nWhy };
        proxies = usable.slice(0, n);
        probe = proxies.some((p) => breakers.halfOpen(`proxy:${p.id}`, now()));
        if (MUTP_MODES.includes(mode) && typeof client.keptConnections === 'function') {
          claimed = claims.claim(client.keptConnections, proxies) ? proxies : null;
          if (!claimed) {
            // no segment waits on a connect: a proxy has no connection open yet (the warm-up's
            // is opening, or one failed to open or closed since), or each kept one carries another
            // download; then one more each opens meanwhile, for the next, unless the warm-up is
            // still running (its round opens them after the page's start)
            mode = RTC_FALLBACK_MODE;
            const unopened = !proxies.every((p) => client.keptConnections(p.url) > 0);
            modeWhy = unopened ? WARMING : RTC_BUSY;
            if (!warmUp.busy()) client.preconnect?.(proxies, { perProxy: 1 });
          }
        }
      } catch (err) {
        const code = codeOf(err);
        if (ORIGO_CODES.test(code) || code === 'ERR_UNKNOWN') breakers.fail('origo', code, now());
        return refuse(code, String(/** @type {Error} */ (err)?.message ?? err).slice(0, 300));
      }
    }

    const ctrl = new AbortController();
    active.set(id, ctrl);
    let lastAlive = -Infinity;
    let progressed = false; // bytes the page's stall timer hears of came (see ALIVE_EVERY_MS)
    const probeMs = (Number.isFinite(settings.noProgressTimeoutMs) ? settings.noProgressTimeoutMs : DEFAULT_NO_PROGRESS_MS) * PROBE_PATIENCE_SHARE;
    let probeGaveUp = false; // this frame, not the page, stopped the download
    const probeTimer = probe ? setTimeout(() => {
      if (progressed || ctrl.signal.aborted) return;
      probeGaveUp = true;
      ctrl.abort(codedError('ERR_NO_PROGRESS', `proxies that failed recently, tried again, sent nothing for ${probeMs} ms: fetched directly`));
    }, probeMs) : null;
    let sent = false; // bytes went to the page: a retry in another mode would repeat them
    /** @type {{total: number | null, size: number | null, type: string | null}} */
    const head = { total: range ? range.end - range.start + 1 : null, size: null, type: null };
    let gate = Promise.resolve();
    /** @type {ArrayBuffer[]} */
    const held = [];
    let open = true;
    const post = (/** @type {ArrayBuffer} */ buf) => {
      const known = heads.best(url);
      out.send({ t: 'data', id, buf, total: head.total, size: known.size, type: known.type }, [buf]);
    };
    const order = createInOrder((buf) => {
      sent = true;
      if (open) post(buf);
      else held.push(buf);
    }, { batchBytes: PAGE_POST_BATCH_BYTES });
    try {
      for (;;) {
        const known = heads.best(url);
        if (MUTP_MODES.includes(mode) && (known.type === null || (range !== null && known.size === null)) && Array.isArray(proxies) && st.fetch) {
          // the data channel carries only the bytes: ask one proxy for the origin's type (and size, for a Range) meanwhile, briefly holding the first bytes
          open = false;
          const asked = heads.ask(st.fetch, proxies[0], url, ctrl.signal, range).catch(() => null);
          gate = Promise.race([asked, new Promise((r) => setTimeout(r, HEAD_WAIT_MS))]).then(() => {
            open = true;
            for (const b of held.splice(0)) post(b);
          });
        }
        try {
          hops.mark('libraryAt');
          const { data, stats, timing } = await client.download(url, {
            mode, proxies, range, next, signal: ctrl.signal, log: false, ...where(settings),
            onProgress: (/** @type {{objectBytes: number | null, chunks?: {offset: number, bytes: Uint8Array}[]}} */ p) => {
              const t = now();
              const moved = MUTP_MODES.includes(mode) || (p.chunks?.length ?? 0) > 0;
              if (moved) progressed = true;
              if (moved && t - lastAlive >= ALIVE_EVERY_MS) {
                lastAlive = t;
                out.send({ t: 'alive', id });
              }
              if (Number.isSafeInteger(p.objectBytes)) head.total = p.objectBytes;
              // every mode streams: pieces (offset in the body, each byte once, any order) go to the page in order
              if (Array.isArray(p.chunks)) for (const c of p.chunks) order.push(c.offset, c.bytes);
              if (p.chunks?.length) hops.mark('firstChunkAt');
            },
          });
          head.total = data.byteLength;
          order.finish(data);
          await gate;
          out.send({ t: 'end', id });
          hops.mark('endAt');
          hops.library(timing);
          for (const key of ['origo', `host:${host}`, ...(MUTP_MODES.includes(mode) ? ['rtc'] : []), ...(/** @type {any} */ (stats).proxyIds ?? []).map((p) => `proxy:${p}`)]) breakers.succeed(key);
          const got = /** @type {any} */ (stats).n;
          if (Number.isInteger(got) && got < n && !nNote.nWhy) nNote = { nWanted: n, nWhy: FEW_PROXIES }; // Origo listed fewer
          report({ ...stats, ...notes(), ...(settings.hopTiming ? { hops: hops.record(range) } : {}) });
          st.proxies?.worked?.();
          return;
        } catch (err) {
          const e = /** @type {Error & {code?: string, stats?: Record<string, any>, perProxy?: any[]}} */ (err);
          const aborted = ctrl.signal.aborted;
          const code = aborted ? codeOf(ctrl.signal.reason) : codeOf(e);
          const message = String(aborted ? ctrl.signal.reason?.message : e?.message ?? e).slice(0, 300);
          const rec = e?.stats ? { ...e.stats, n: Math.max(1, Number(e.stats.n) || n), error: { code, message } } : failureRecord({ url, mode, n, error: { code, message }, startedAt, ms: now() - t0, proxies: [] });
          report({ ...rec, ...notes() });
          if (aborted) {
            // a stall the page (or a probe's patience) gave up on counts against the path it used
            if (code === 'ERR_NO_PROGRESS') {
              if (MUTP_MODES.includes(mode)) breakers.fail('rtc', code, now());
              else for (const p of rec.proxyIds ?? []) breakers.fail(`proxy:${p}`, code, now());
            }
            if (probeGaveUp) out.send({ t: 'fail', id, code, message }); // nothing was sent: the page fetches it whole
            return;
          }
          learn(e, code, host, mode);
          if (MUTP_MODES.includes(mode) && rtcUnusable(e) && !sent) {
            mode = RTC_FALLBACK_MODE; // the same proxies over HTTP, at once: no stall for the page
            modeWhy = codeOf(e.perProxy?.find((p) => p?.error)?.error);
            continue;
          }
          order.flush(); // every in-order byte we have: the page fetches only the rest directly
          await gate;
          out.send({ t: 'fail', id, code, message });
          return;
        }
      }
    } finally {
      if (probeTimer) clearTimeout(probeTimer);
      active.delete(id);
      if (claimed) claims.release(claimed);
      warmUp.downloadEnded();
    }
  }

  /**
   * Open the breakers a failure names.
   * @param {any} e @param {string} code @param {string} host @param {string} mode
   */
  function learn(e, code, host, mode) {
    const t = now();
    // refused up front, at no cost: a breaker would only hide the reason Origo must count
    if (code === MIXED_CONTENT_CODE) return;
    if (ORIGO_CODES.test(code)) breakers.fail('origo', code, t);
    const per = Array.isArray(e?.perProxy) ? e.perProxy.filter((p) => p?.error && typeof p.proxyId === 'string') : [];
    // a proxy that failed because of the origin or its host serves other segments as well as before
    const blame = blameFailure(e?.perProxy, code, e?.message);
    if (MUTP_MODES.includes(mode) && rtcUnusable(e)) breakers.fail('rtc', per[0]?.error?.code ?? code, t);
    else for (const id of blame.proxies) breakers.fail(`proxy:${id}`, String(per.find((p) => p.proxyId === id)?.error.code), t);
    if (blame.host) breakers.fail(`host:${host}`, code, t);
    if (blame.proxies.length) state().proxies?.invalidate();
  }

  /** The page is gone: stop its downloads (their proxies serve the next page). @param {string} code */
  function close(code) {
    for (const ctrl of active.values()) ctrl.abort(codedError(code, 'the page went away'));
  }

  return { onPageMessage, close, active: () => active.size, breakers: () => breakers.snapshot(now()), warmUp: () => warmUp.last() };
}
