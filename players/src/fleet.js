// A proxy fleet for one page, without the extension. The extension's fleet host (ProxyClientLib
// with its pooled WebRTC connections, the cached proxy list, the breakers, the warm-up) runs in a
// worker of the page where the browser allows it, else in the page itself (host-thread.js), and a
// player's loader asks it for segments. Host and loader talk over a MessageChannel exactly as the
// extension's download frame and page do, so every rule of the extension (checks, fallbacks and
// their reasons, breakers) applies unchanged. The records go to Origo from the page.
//
// Timing for the players' bandwidth estimators: a fleet segment's first byte comes once the
// proxies fetched the whole object from the origin (and hashed it), a wait in proportion to its
// size: transfer rather than latency. hls.js subtracts the time to first byte from a segment's
// time as latency, and dash.js times throughput from the first progress event, so both would
// rate a slow fleet at the speed of its last hop and overshoot into stalls (a slow, uncached
// fleet: both climbed to a rendition it could not carry, and stalled). So the integrations
// report no latency: the whole time from the ask counts as transfer, as Shaka's progress samples
// count it anyway. A real round trip then counts as transfer too: an estimate errs low, not high.
import { startFleetHost } from './host-thread.js';
import { createFrameLink } from '@mutp/extension/frame-link';
import { watchFirstPlay } from '@mutp/extension/media-elements';
import { serveThroughFleet } from '@mutp/extension/fleet-serve';
import { parseSettings } from '@mutp/extension/settings';
import { createSegmentDetector } from '@mutp/extension/segment-detector';
import { MAX_MANIFEST_CHARS } from '@mutp/extension/manifests';
import { emptyStats, addRecord, addFallback, addSeen, fallbackCode } from '@mutp/extension/tab-stats';
import { createLogSender } from '@mutp/proxyclientlib/log-sender';
import { keepRecords, pageStorage, takeKeptRecords } from './kept-records.js';
import { concat } from '@mutp/proxyclientlib/capped-body';
import { codedError } from '@mutp/common/errors';

const FLEET_STARTS = /** @type {const} */ (['create', 'first-frame']); // createFleet's startOn
const PLAYER_HOW = 'player'; // a record's `segment`: the player's own loader asked for it as a segment
const CLOSE_FLUSH_MS = 2000; // close(), or a page hidden, waits this long for the records still queued for Origo
// A page's records go to Origo once a second, not a POST per segment: during a player's start-up
// its first segments come tens of ms apart, and each POST costs the page's thread, the browser and
// Origo a request while the player works for its first frame. A page that is hidden or goes
// away sends what it holds at once.
const RECORD_BATCH_MS = 1000;
const KEEPALIVE_MAX_BYTES = 60 * 1024; // a browser outlives the page for keepalive requests and beacons of at most 64 KiB in all

/**
 * @typedef {object} FleetOptions
 * @property {string} origo  Origo's URL (the site's, over HTTPS on an HTTPS page)
 * @property {'random' | 'coded' | 'uncoded' | 'parallel-http' | 'range-http'} [mode]  default: one drawn per segment from randomModes
 * @property {string[]} [randomModes]  default: the paper's campaign modes (Parallel HTTP, Uncoded and Coded MUTP)
 * @property {'random' | number} [n]  proxies per segment; default: one drawn per segment from randomN
 * @property {number[]} [randomN]  default: 1, 2, 4, 6
 * @property {number} [noProgressTimeoutMs]  no byte for this long: the segment goes direct (default 4000)
 * @property {string} [clientId]  the records' client id (default: a new random one per fleet)
 * @property {boolean} [records]  ship a record per segment to Origo (default true)
 * @property {import('./kept-records.js').KeptStorage | null} [storage]  where the records Origo has not taken wait when the page
 *   goes away (default: the page's localStorage; null: nowhere)
 * @property {boolean} [hopTiming]  each record says where its segment's time went (`hops`; for bench:plugins)
 * @property {{warn: (...a: unknown[]) => void}} [logger]
 * @property {boolean} [worker]  false: the fleet runs in the page; default: in a worker where the browser lets a page hand it data channels (host-thread.js)
 * @property {'create' | 'first-frame'} [startOn]  when the fleet's host (its worker, ProxyClientLib) starts: 'create' (default), as
 *   the fleet is made; 'first-frame', when the page's media first plays, and the segments asked before then go direct (ERR_FLEET_STARTING).
 *   A first load's first frame then waits on no fleet work: making the host beside a starting player cost its first frame
 *   50–150 ms on a busy 2-core machine (docs/players.md), against a few direct segments per page
 * @property {typeof import('@mutp/proxyclientlib').createClient} [makeClient]  tests (the fleet then runs in the page)
 */

/**
 * @typedef {object} SegmentBody  a segment the fleet delivered
 * @property {Uint8Array} data  the whole body, byte-exact
 * @property {{status: number, statusText: string, headers: [string, string][]}} head  the origin's head as a direct fetch gives it
 * @property {number} startAt  performance.now() when asked
 * @property {number} firstAt  …when its first byte reached the loader
 * @property {number} endAt    …when its last did
 * @property {string | null} rest  why the rest of the body came directly (a fleet failure after its first bytes), or null
 */

/**
 * @typedef {object} Progress  given while a body arrives
 * @property {number} loaded  bytes so far
 * @property {number | null} total  bytes in the body, where the origin said
 * @property {number} firstAt  performance.now() of the first byte
 * @property {number} at  …of this piece
 */

/**
 * @param {FleetOptions} options
 */
export function createFleet(options) {
  const settings = settingsFrom(options);
  const startOn = options.startOn ?? 'create';
  if (!FLEET_STARTS.includes(startOn)) throw codedError('ERR_BAD_OPTION', `startOn must be one of ${FLEET_STARTS.join(', ')}`);
  const logger = options.logger ?? { warn: (...a) => console.warn('[mutp]', ...a) };
  const warn = (/** @type {string} */ msg) => logger.warn(msg);
  const clientId = options.clientId ?? globalThis.crypto.randomUUID();
  const pageChannel = new MessageChannel();
  const controlChannel = new MessageChannel();
  const link = createFrameLink({ requestFrame: () => {}, warn });
  const detector = createSegmentDetector();
  const logs = options.records === false ? null : createLogSender({ origo: settings.origoUrl, fetch: keptAlive, sendBeacon: pageBeacon(), logger, batchDelayMs: RECORD_BATCH_MS });
  const storage = options.storage === undefined ? pageStorage() : options.storage;
  const kept = logs && storage ? keepUnsentRecords(logs, settings.origoUrl, storage, warn) : null;
  const events = new EventTarget();
  const closing = new AbortController(); // ends the downloads under way when the fleet closes
  let stats = emptyStats();
  /** @type {Record<string, number>} bytes of segments through the fleet, by the mode that served them */
  const fleetBytes = {};
  /** @type {Record<string, number>} bytes of segments the player's own loader fetched, by why */
  const directBytes = {};

  // the page's ends of the host's two ports: both replaced when a worker dies with the host's ends
  let pagePort = pageChannel.port1;
  let control = controlChannel.port1;
  link.attach(pagePort);
  control.onmessage = (e) => onHostMessage(e.data);
  /** @type {ReturnType<typeof startFleetHost> | null} the host, once started */
  let host = null;
  /** @type {(place: Promise<'worker' | 'page'>) => void} */
  let hostStarted = () => {};
  /** @type {Promise<'worker' | 'page'>} */
  const place = new Promise((resolve) => { hostStarted = resolve; });
  const startHost = () => {
    if (host) return;
    host = startFleetHost({ page: pageChannel.port2, control: controlChannel.port2, reconnect, settings, clientId, underMixedContentRule: pageUnderMixedContentRule(), logger,
      ...(options.makeClient ? { makeClient: options.makeClient } : {}), ...(options.worker === false ? { worker: false } : {}) });
    hostStarted(host.place);
    // the proxy list, tickets and HTTP connections are fetched now: at once, while the player's
    // own script and manifest load (waiting for the player to attach cost hls.js ~100 ms of a first
    // load on loopback: the list came after its playlist), or as the page's media starts
    link.warm();
  };
  const doc = globalThis.document;
  if (startOn === 'create' || !doc) startHost();
  // the WebRTC connects wait for the page's start, its media playing (warm-up.js); so does the
  // host itself when asked to
  if (doc) watchFirstPlay(doc, () => { if (closing.signal.aborted) return; startHost(); link.playing(); });

  /** What the host sends its page's background: records (one per download), fallbacks, manifests seen. @param {any} m */
  function onHostMessage(m) {
    if (m?.t !== 'bg' || !m.msg || typeof m.msg !== 'object') return;
    const msg = m.msg;
    if (msg.t === 'record' && msg.record && typeof msg.record.id === 'string') {
      const r = msg.record;
      if (typeof msg.seen === 'string') stats = addSeen(stats, 'segment', msg.seen);
      stats = addRecord(stats, r);
      if (!r.error && Number.isFinite(r.netBytes)) fleetBytes[r.mode] = (fleetBytes[r.mode] ?? 0) + r.netBytes;
      logs?.enqueue(r);
      emit('record', r);
    } else if (msg.t === 'fallback' && typeof msg.url === 'string' && typeof msg.reason === 'string') {
      countFallback(msg.url, msg.reason);
    } else if (msg.t === 'seen' && msg.kind === 'manifest') stats = addSeen(stats, 'manifest');
  }

  /**
   * Fresh ports for a host whose worker died with the old ones: the link's requests sent there
   * fail (ERR_FRAME_RESET: their segments go direct at once) and the next go to the new host.
   */
  function reconnect() {
    const page = new MessageChannel();
    const next = new MessageChannel();
    control.close();
    control = next.port1;
    control.onmessage = (e) => onHostMessage(e.data);
    pagePort = page.port1;
    link.attach(pagePort); // closes the old one
    return { page: page.port2, control: next.port2 };
  }

  /** A segment that went direct: counted, and told to listeners. @param {string} url @param {string} reason */
  function countFallback(url, reason) {
    stats = addFallback(stats, url, reason);
    emit('fallback', { url, reason });
  }

  /** @param {string} type @param {unknown} detail */
  function emit(type, detail) {
    events.dispatchEvent(new CustomEvent(type, { detail }));
  }

  /**
   * One segment through the fleet, read whole. Resolves `{direct: reason}` when the fleet did
   * not start it (nothing was delivered: the caller's own loader fetches it, and reports its
   * bytes with `countDirect`); a failure after the first bytes is continued from a direct fetch
   * here, so the body is always whole. Rejects with the abort reason when `signal` aborts.
   * @param {string} url  absolute
   * @param {{range?: {start: number, end: number} | null, signal?: AbortSignal, onProgress?: (p: Progress) => void}} [o]  range: inclusive
   * @returns {Promise<SegmentBody | {direct: string}>}
   */
  async function fetchSegment(url, { range = null, signal, onProgress } = {}) {
    // the host reports neither of these (closed, or not started): counted here as it counts its fallbacks
    const goDirect = (/** @type {string} */ reason) => { countFallback(url, reason); return { direct: reason }; };
    const closed = () => goDirect('ERR_FLEET_CLOSED: the fleet was closed');
    if (closing.signal.aborted) return closed();
    if (!host) return goDirect('ERR_FLEET_STARTING: the fleet starts with the page\'s media (startOn: first-frame)');
    const startAt = performance.now();
    /** @type {string | null} */
    let reason = null;
    let loaded = 0;
    try {
      const either = signal ? AbortSignal.any([signal, closing.signal]) : closing.signal;
      const served = await serveThroughFleet({
        link: { ...link, reportFallback: (u, why, id) => { reason = why; link.reportFallback(u, why, id); } },
        url, range, signal: either, noProgressMs: settings.noProgressTimeoutMs, how: PLAYER_HOW, next: detector.nextOf(url), warn,
        direct: () => fetch(url, { headers: range ? { range: `bytes=${range.start}-${range.end}` } : {}, signal: either }),
      });
      if (served === null) return { direct: reason ?? 'ERR_FALLBACK: the fleet did not serve it' };
      const length = Number(served.head.headers.find(([k]) => k === 'content-length')?.[1]);
      const total = Number.isSafeInteger(length) ? length : null;
      /** @type {Uint8Array[]} */
      const chunks = [];
      let firstAt = 0;
      for await (const c of served.body) {
        const at = performance.now();
        if (loaded === 0) firstAt = at;
        chunks.push(c);
        loaded += c.byteLength;
        onProgress?.({ loaded, total, firstAt, at });
      }
      const data = concat(chunks, loaded);
      const got = { data, head: served.head, startAt, firstAt, endAt: performance.now(), rest: reason };
      emit('segment', { url, range, via: 'fleet', head: served.head, rest: reason, bytes: loaded, ms: got.endAt - startAt, firstByteMs: firstAt - startAt, data });
      return got;
    } catch (err) {
      // closed before a byte arrived: the player's own loader takes it; after, the caller sees the failure and asks again
      if (closing.signal.aborted && !signal?.aborted && loaded === 0) return closed();
      throw err;
    }
  }

  return {
    fetchSegment,
    /**
     * The player's own loader fetched a segment the fleet did not serve (`fetchSegment` gave `{direct}`).
     * @param {string} url @param {number} bytes @param {string} reason  the `direct` reason
     * @param {ArrayBuffer | Uint8Array | null} [data]  the body as the player got it (for 'segment' listeners)
     */
    countDirect(url, bytes, reason, data = null) {
      const code = fallbackCode(reason);
      directBytes[code] = (directBytes[code] ?? 0) + bytes;
      emit('segment', { url, via: 'direct', reason, bytes, data });
    },
    /**
     * A manifest the player read (HLS playlist or DASH MPD): the fleet learns the segments that
     * follow each other (the proxies fetch the next one meanwhile) and the init sections (fetched
     * at once), and warms up. A manifest it cannot read is the player's business.
     * @param {'hls' | 'dash'} kind @param {string} url  the response's URL @param {string} text
     */
    learn(kind, url, text) {
      if (closing.signal.aborted || typeof text !== 'string' || text.length > MAX_MANIFEST_CHARS) return;
      try {
        const got = detector.learn(kind, url, text);
        link.note({ t: 'seen', kind: 'manifest', url, segments: got.segments.length, templates: got.templates.length, inits: got.inits });
      } catch (err) {
        warn(`cannot read the manifest ${url.slice(0, 200)}: ${/** @type {Error} */ (err)?.message}`);
      }
      link.warm();
    },
    /** Where the fleet's downloads run, once they do: 'worker' (off the page's thread) or 'page'. @returns {Promise<'worker' | 'page'>} */
    runsIn: () => place,
    /** Have the proxy list, tickets and connections ready: a player about to ask for segments. */
    warm: () => { if (!closing.signal.aborted) link.warm(); },
    /** Counters since the fleet was made: segments and bytes through the fleet and direct, and why. */
    stats() {
      return { ...stats, fleetBytes: { ...fleetBytes }, directBytes: { ...directBytes }, records: logs ? { ...logs.counters, queued: logs.pending.length } : null };
    },
    /** 'segment' (each segment handed to the player), 'record' (each fleet download's record, as Origo gets it), 'fallback' (why a segment went direct). */
    addEventListener: events.addEventListener.bind(events),
    removeEventListener: events.removeEventListener.bind(events),
    /** Stop: downloads end, connections close, queued records get CLOSE_FLUSH_MS to reach Origo. */
    async close() {
      if (closing.signal.aborted) return;
      closing.abort(codedError('ERR_FLEET_CLOSED', 'the fleet was closed'));
      control.postMessage({ t: 'bye' });
      host?.close();
      pagePort.close();
      control.close();
      if (logs) {
        await logs.flush(CLOSE_FLUSH_MS);
        kept?.close();
        logs.close();
      }
    },
  };
}

/**
 * Sends the records earlier fleets of this site kept for this Origo, and keeps this fleet's own
 * that Origo has not taken whenever the page is hidden or goes away (a hidden page may be
 * discarded without another event); it sends them then too, not at the batch's time, and keeps
 * anew what is left once that POST ended while the page is still hidden. A page that goes away
 * (pagehide) sends them by beacon, which Origo gets even as the tab closes; a page only hidden,
 * in kept-alive POSTs whose answers say what Origo took. A page shown again drops its copy, the
 * records being in memory still. close() keeps what is left and stops listening.
 * @param {ReturnType<typeof createLogSender>} logs @param {string} origo @param {import('./kept-records.js').KeptStorage} storage
 * @param {(msg: string) => void} warn
 */
function keepUnsentRecords(logs, origo, storage, warn) {
  const fleetId = globalThis.crypto.randomUUID();
  const { records, malformed } = takeKeptRecords(storage, origo);
  for (const r of records) logs.enqueue(r);
  if (malformed) warn(`dropped ${malformed} malformed kept record(s) for ${origo}`);
  const keep = () => {
    const r = keepRecords(storage, origo, fleetId, logs.pending);
    if (r.dropped) warn(`could not keep ${r.dropped} record(s) Origo has not taken${r.error ? `: ${r.error}` : ''}`);
  };
  const doc = globalThis.document;
  const hidden = () => doc?.visibilityState === 'hidden';
  let leaving = false; // pagehide came and no pageshow since: the records went by beacon already
  let pageHideDone = true;
  // begun in the handler: a page being unloaded runs no timer, so a flush's would never fire
  const keepWhatIsLeft = (/** @type {Promise<void>} */ sent) => sent.then(() => { if (hidden()) keep(); }); // the copy shrinks to what Origo has not taken
  const onPageHide = () => {
    pageHideDone = false;
    leaving = true;
    keepWhatIsLeft(logs.beaconAll()); // first: Firefox fires pagehide before visibilitychange as a tab closes
    keep();
    pageHideDone = true;
  };
  // Firefox, closing a tab, now and then stops a pagehide handler midway with no exception and
  // runs the next one: this one, added after it and run on visibilitychange too, does again what
  // it did not finish.
  const onPageHideAgain = () => { if (!pageHideDone) onPageHide(); };
  const onPageShow = () => { leaving = false; };
  const onVisibility = () => {
    if (!hidden()) keepRecords(storage, origo, fleetId, []);
    else if (leaving) onPageHideAgain();
    else {
      keep();
      keepWhatIsLeft(logs.sendAll());
    }
  };
  globalThis.addEventListener?.('pagehide', onPageHide);
  globalThis.addEventListener?.('pagehide', onPageHideAgain);
  globalThis.addEventListener?.('pageshow', onPageShow);
  doc?.addEventListener?.('visibilitychange', onVisibility);
  return {
    close() {
      globalThis.removeEventListener?.('pagehide', onPageHide);
      globalThis.removeEventListener?.('pagehide', onPageHideAgain);
      globalThis.removeEventListener?.('pageshow', onPageShow);
      doc?.removeEventListener?.('visibilitychange', onVisibility);
      keep();
    },
  };
}

/**
 * The page's beacon for the records of a page that goes away (navigator.sendBeacon), for bodies a
 * browser sends after the page is gone; none where the page has no navigator.sendBeacon.
 * @returns {((url: string, body: string) => boolean) | undefined}
 */
function pageBeacon() {
  const nav = globalThis.navigator;
  if (typeof nav?.sendBeacon !== 'function') return undefined;
  return (url, body) => body.length <= KEEPALIVE_MAX_BYTES && nav.sendBeacon(url, body);
}

/**
 * The page's fetch, for the records: a small POST is kept alive, so the records of a page that
 * closes still reach Origo (the extension's go to its background; the page has no other place).
 * @param {string | URL | Request} url @param {RequestInit} [init]
 */
function keptAlive(url, init) {
  const small = typeof init?.body === 'string' && init.body.length <= KEEPALIVE_MAX_BYTES;
  return globalThis.fetch(url, small ? { ...init, keepalive: true } : init);
}

/**
 * The extension's settings, checked by the extension's own validator.
 * @param {FleetOptions} o
 */
function settingsFrom(o) {
  if (!o || typeof o !== 'object') throw codedError('ERR_BAD_OPTION', 'createFleet needs an options object with origo');
  if (typeof o.origo !== 'string') throw codedError('ERR_NO_ORIGO', 'createFleet needs origo: the Origo URL');
  const raw = { enabled: true, origoUrl: o.origo, mode: o.mode, randomModes: o.randomModes, n: o.n, randomN: o.randomN, noProgressTimeoutMs: o.noProgressTimeoutMs, hopTiming: o.hopTiming, detect: 'all-sites' };
  const { settings, problems } = parseSettings(raw);
  if (problems.length > 0) throw codedError(problems[0].startsWith('origoUrl') ? 'ERR_BAD_ORIGO_URL' : 'ERR_BAD_OPTION', problems.join('; '));
  return settings;
}

/** An HTTPS page: the browser blocks its requests to plain-HTTP Origo and proxies that are not loopback. */
function pageUnderMixedContentRule() {
  return globalThis.isSecureContext === true && globalThis.location?.protocol === 'https:';
}
