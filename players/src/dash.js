// dash.js through the fleet: its XHRLoader, extended, fetches init and media segments through
// the fleet; everything else (MPDs, index ranges, open ranges, requests with credentials or with
// headers the proxies do not send) goes to dash.js's own XHRLoader, and the fleet reads the MPDs
// (which segment follows which: the proxies fetch the next one meanwhile). dash.js's HTTPLoader
// times a request by the callbacks it gives the loader (the first progress event is the first
// byte, each one a throughput trace, loadend the end), so the fleet's pieces are reported as
// progress events when they arrive, as an XMLHttpRequest's are. Low-latency segments
// (availabilityTimeComplete="false") go to dash.js's FetchLoader, unseen here: still being made
// when asked, they are not the fleet's anyway.
//
//   const fleet = createFleet({ origo: 'https://origo.example' });
//   const player = dashjs.MediaPlayer().create();
//   fleetDashLoader(player, fleet); // before player.initialize()
import { parseRangeHeader } from '@mutp/extension/response-head';

/**
 * @typedef {ReturnType<typeof import('./fleet.js').createFleet>} Fleet
 * @typedef {(this: unknown, event?: unknown) => void} Handler
 * @typedef {object} CustomData  what HTTPLoader keeps in a request for its loader
 * @property {{type?: string}} [request]  dash.js's own request (its type: 'MediaSegment', 'MPD', …)
 * @property {Handler} [onprogress] @property {Handler} [onloadend] @property {Handler} [onabort] @property {Handler} [ontimeout]
 * @property {() => void} [abort]  set by the loader: how HTTPLoader aborts this request
 * @typedef {object} MediaRequest  dash.js's CommonMediaRequest, as HTTPLoader gives it to load()
 * @property {string} url @property {string} method @property {string | null} responseType @property {string | null} credentials
 * @property {Record<string, string> | null} headers  Range among them ('bytes=a-b', inclusive)
 * @property {number} timeout  ms, 0: none @property {unknown} body @property {CustomData} customData
 * @typedef {object} MediaResponse  dash.js's CommonMediaResponse: load() fills it before loadend
 * @property {string | null} url @property {number | null} status @property {string} statusText
 * @property {Record<string, string>} headers @property {unknown} data
 * @typedef {object} XhrLoader  the methods of dash.js's XHRLoader that an extension replaces
 * @property {(req: MediaRequest, res: MediaResponse) => unknown} load @property {(req?: MediaRequest) => void} abort
 * @property {() => void} reset @property {() => void} resetInitialSettings
 */

const SERVED_TYPES = new Set(['MediaSegment', 'InitializationSegment']); // dash.js's request types for segment bodies
const MPD_TYPE = 'MPD';

/**
 * Have dash.js's XHRLoader fetch segments through the fleet. Call before `player.initialize()`;
 * dash.js keeps the first extension of a name, so an earlier `extend('XHRLoader', …)` wins.
 * It turns off dash.js's use of the Resource Timing API for throughput: dash.js would time a
 * segment by the first entry with its URL, which for one the fleet served is another fetch of
 * it (the fleet's direct continuation, an earlier download); without it every segment, fleet
 * or direct, is timed the same way, by its progress events.
 * @param {{extend: (name: string, child: object, override: boolean) => void, updateSettings: (s: object) => void}} player  a dash.js MediaPlayer
 * @param {Fleet} fleet
 */
export function fleetDashLoader(player, fleet) {
  fleet.warm(); // the player was just made: it asks for an MPD and segments next
  player.updateSettings({ streaming: { abr: { throughput: { useResourceTimingApi: false } } } });
  // With override, dash.js makes its own XHRLoader (this.parent), then replaces the parent's
  // methods by ours: the parent's own methods are kept here before that happens.
  player.extend('XHRLoader', /** @this {{parent: XhrLoader}} */ function () {
    const p = this.parent;
    return fleetXhrLoader(fleet, { load: p.load, abort: p.abort, reset: p.reset, resetInitialSettings: p.resetInitialSettings });
  }, true);
}

/** The loader methods dash.js takes; `base` is dash.js's own XHRLoader. @param {Fleet} fleet @param {XhrLoader} base @returns {XhrLoader} */
export function fleetXhrLoader(fleet, base) {
  /** @type {Map<MediaRequest, {ctrl: AbortController, on: CustomData, timer: ReturnType<typeof setTimeout> | undefined, loaded: number, total: number | null}>} */
  const inFleet = new Map();

  /** The request is no longer the fleet's: its job, or undefined when it already was not. @param {MediaRequest} req */
  function release(req) {
    const job = inFleet.get(req);
    if (job) clearTimeout(job.timer);
    inFleet.delete(req);
    return job;
  }

  /** @param {MediaRequest} req @param {MediaResponse} res */
  function load(req, res) {
    const range = fleetRange(req);
    const url = absolute(req.url);
    if (range === undefined || url === null) return viaBase(req, res, null);
    const on = { ...req.customData }; // the handlers as they are now, as an XMLHttpRequest takes them
    const job = { ctrl: new AbortController(), on, timer: undefined, loaded: 0, total: null };
    inFleet.set(req, job);
    req.customData.abort = () => abortOne(req);
    if (req.timeout > 0) {
      job.timer = setTimeout(() => { // as XMLHttpRequest.timeout: timeout, then loadend with no status (dash.js retries)
        if (!release(req)) return;
        job.ctrl.abort(new DOMException('dash.js request timeout', 'TimeoutError'));
        on.ontimeout?.(progressEvent(job.loaded, job.total));
        on.onloadend?.();
      }, req.timeout);
    }
    on.onprogress?.(progressEvent(0, null)); // dash.js's first byte now: no latency ("Timing for the players' bandwidth estimators" in fleet.js)
    fleet.fetchSegment(url, {
      range, signal: job.ctrl.signal,
      onProgress: (p) => {
        if (inFleet.get(req) !== job) return;
        job.loaded = p.loaded;
        job.total = p.total;
        on.onprogress?.(progressEvent(p.loaded, p.total)); // now: dash.js reads the clock itself
      },
    }).then((got) => {
      if (!release(req)) return;
      if ('direct' in got) return void viaBase(req, res, got.direct);
      const d = got.data;
      res.url = req.url;
      res.status = got.head.status;
      res.statusText = got.head.statusText;
      res.headers = headerObject(got.head.headers);
      res.data = d.byteOffset === 0 && d.byteLength === d.buffer.byteLength ? d.buffer : d.slice().buffer;
      on.onloadend?.();
    }, () => {
      if (release(req)) on.onloadend?.(); // no status: a network error to dash.js, which retries
    });
    return true;
  }

  /**
   * dash.js's own loader fetches it; on success the fleet counts it (`reason`: why the fleet did not
   * serve it) or reads it (an MPD). @param {MediaRequest} req @param {MediaResponse} res @param {string | null} reason
   */
  function viaBase(req, res, reason) {
    const type = req.customData.request?.type;
    const end = req.customData.onloadend;
    if (reason !== null || type === MPD_TYPE) {
      req.customData.onloadend = function (event) {
        try {
          if (res.status >= 200 && res.status <= 299) noteDirect(req, res, type, reason);
        } finally { end?.call(this, event); }
      };
    }
    return base.load(req, res);
  }

  /** @param {MediaRequest} req @param {MediaResponse} res @param {string | undefined} type @param {string | null} reason */
  function noteDirect(req, res, type, reason) {
    const data = res.data;
    if (reason !== null) fleet.countDirect(absolute(req.url) ?? req.url, data instanceof ArrayBuffer ? data.byteLength : 0, reason, data instanceof ArrayBuffer ? data : null);
    if (type !== MPD_TYPE) return;
    const text = typeof data === 'string' ? data : data instanceof ArrayBuffer ? new TextDecoder().decode(data) : null;
    const url = absolute(res.url || req.url);
    if (text !== null && url !== null) fleet.learn('dash', url, text);
  }

  /** As XMLHttpRequest.abort() under dash.js's XHRLoader: no more progress or loadend, one abort. @param {MediaRequest} req */
  function abortOne(req) {
    const job = release(req);
    if (!job) return;
    job.ctrl.abort(new DOMException('dash.js aborted the request', 'AbortError'));
    job.on.onabort?.(progressEvent(job.loaded, job.total));
  }

  const abortAll = () => { for (const req of [...inFleet.keys()]) abortOne(req); };

  return {
    load,
    abort(req) { // HTTPLoader's progress timeout names the request; dash.js's own loader aborts its latest
      if (req && inFleet.has(req)) return abortOne(req);
      if (!req) abortAll();
      base.abort(req);
    },
    resetInitialSettings() { abortAll(); base.resetInitialSettings(); },
    reset() { abortAll(); base.reset(); },
  };
}

/**
 * The byte range of a request the fleet can serve, null for a whole file, or undefined when it
 * does not serve it: not a segment body, not a GET, an open range, credentials, a body, or a
 * header other than Range (the proxies send none of these). @param {MediaRequest} req
 * @returns {{start: number, end: number} | null | undefined}
 */
export function fleetRange(req) {
  if (req.method !== 'GET' || req.responseType !== 'arraybuffer' || req.body != null || req.credentials === 'include' || !SERVED_TYPES.has(req.customData?.request?.type ?? '')) return undefined;
  /** @type {{start: number, end: number} | null} */
  let range = null;
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    if (!value) continue; // dash.js's XHRLoader does not send empty headers
    const r = name.toLowerCase() === 'range' ? parseRangeHeader(value) : 'unsupported';
    if (r === null || r === 'unsupported') return undefined;
    range = r;
  }
  return range;
}

/** @param {string} url */
function absolute(url) {
  try { return new URL(url, globalThis.location?.href).href; } catch { return null; } // not a URL: dash.js's loader says so
}

/** What an XMLHttpRequest's progress event tells HTTPLoader. @param {number} loaded @param {number | null} total */
function progressEvent(loaded, total) {
  return { type: 'progress', lengthComputable: total !== null, loaded, total: total ?? 0 };
}

/** Headers as dash.js's XHRLoader gives them (getAllResponseHeaders: lower case, repeats joined). @param {[string, string][]} list */
function headerObject(list) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const [k, v] of list) {
    const name = k.toLowerCase();
    out[name] = name in out ? `${out[name]}, ${v}` : v;
  }
  return out;
}
