import { LRUCache } from 'lru-cache';
import { codedError } from '@mutp/common/errors';
import { MAX_READ_AHEADS_IN_FLIGHT, readAheadRange } from './read-ahead.js';
import { assemble, gapsIn, hullOf } from './range-cover.js';
import { freshnessOf, updatedHeaders } from './freshness.js';

/**
 * How long a copy serves the downloads it was fetched for (ms), whatever the origin says of its
 * freshness: a download in an HTTP mode asks a proxy more than once (its share, then its digest
 * list; a helper's range), and those requests must see one version of the object. Longer than a
 * segment's download; short, so that a client that keeps its id does not keep an old version.
 */
export const ONE_DOWNLOAD_REUSE_MS = 60_000;

/**
 * How long a host whose last answer was `no-store` gets no read-ahead or prefetch (ms): a copy
 * fetched ahead belongs to no download, so the download that comes could not use it and would
 * fetch it again. Ten minutes: a stream's origin does not change its caching often.
 */
export const NO_STORE_HOST_MS = 10 * 60_000;
/** Hosts remembered as answering `no-store` (count): a wildcard allowlist may reach many CDN hosts. */
const NO_STORE_HOSTS_MAX = 256;

/**
 * @typedef {{ start: number, end: number }} ByteRange  end inclusive
 * @typedef {import('./freshness.js').CacheHeaders} CacheHeaders
 * @typedef {{ bytes: Uint8Array, contentType: string, serverFetchMs: number, range: ByteRange | null, total: number | null,
 *   freshUntil: number, cacheHeaders: CacheHeaders, etag: string | null, lastModified: string | null,
 *   storable: boolean, arrivedAt: number, downloads: Set<string> }} Entry
 *   range: the bytes are this range of the object, null: the whole object; total: the object's size (null: unknown);
 *   freshUntil: on the store's clock, when the origin must be asked again (freshness.js); cacheHeaders: the
 *   origin's fields that said so; etag / lastModified: its validators, for asking whether the copy is current;
 *   storable: the origin allows keeping it (no-store does not); arrivedAt: when it came or was last validated;
 *   downloads: the downloads (the clients' ids) it was fetched or validated for
 * @typedef {Entry & { fromCache: boolean }} StoredObject
 * @typedef {(url: string, opts?: { signal?: AbortSignal, range?: ByteRange | null, onBody?: (body: import('../origin/growing-body.js').GrowingBody) => void,
 *   validators?: { etag: string | null, lastModified: string | null } | null }) =>
 *   Promise<{ bytes: Uint8Array, contentType: string, finalUrl?: string, range?: ByteRange | null, total?: number | null,
 *   notModified?: boolean, cacheHeaders?: CacheHeaders, receivedAt?: number }>} Fetcher
 *   range: ask the origin for these bytes only; a fetcher (or origin) that answers the whole object says range null;
 *   onBody: the body as it comes (a fetcher may never call it: then only the whole object is there);
 *   validators: a stale copy's: the fetcher asks whether it is current, and says notModified (no bytes) when it is;
 *   cacheHeaders / receivedAt: the response's freshness fields and wall-clock arrival (none: freshness.js's default)
 * @typedef {object} OpenedObject  an object as it comes from the origin (or whole, from the cache)
 * @property {Uint8Array} bytes       the whole object's buffer, filled from its start
 * @property {string} contentType
 * @property {() => number} filled     bytes there now
 * @property {(fn: (filled: number) => void) => () => void} subscribe  fn after each chunk; returns unsubscribe
 * @property {Promise<StoredObject>} done  the whole object (rejects: the origin failed midway)
 * @property {number} headMs          ms from the fetch's start to the origin's response head (a cached copy: its fetch time)
 * @property {boolean} fromCache
 */

/**
 * The proxy's copy of origin objects: a byte-bounded LRU cache plus single-flight, so that
 * clients and modes asking for one URL at once share one origin download (each
 * requested URL is fetched once). A copy is used while the origin's caching fields say it is
 * fresh (freshness.js); a stale whole object with a validator is asked about (a 304 keeps it), any
 * other stale copy is fetched again. Whatever its freshness, a copy serves the downloads it was
 * fetched for (ONE_DOWNLOAD_REUSE_MS); a response the origin says not to store serves only them.
 * A caller that needs only a range (a download of a byte range, a plain HEAD/GET /fetch with
 * one) may ask for it: the origin is then asked for those bytes only (a range of a long
 * single-file stream, not the whole file), kept under the URL and the range, unless the whole
 * object, or a cached range holding the asked one, is there already or the same is on its way.
 * Cached ranges that hold part of the asked one are used too: the origin is asked for the bytes
 * they lack only (one request spanning every gap), and the range made of them is kept.
 * A cache miss past `maxOriginFetches` concurrent origin downloads is refused (503 ERR_PROXY_BUSY)
 * instead of queued: the client has other proxies, and a queue would only hide the overload.
 * After a range, the bytes after it may be read ahead (read-ahead.js), and an object a client
 * names as its next may be fetched (prefetch), in the origin slots clients leave free; a fetch on
 * its way that holds an asked range is waited for.
 * @param {{ fetcher: Fetcher, maxBytes: number, now?: () => number, maxOriginFetches?: number,
 *   readAheadBytes?: number }} opts  readAheadBytes: the largest read-ahead (0: none)
 */
export function createObjectStore({ fetcher, maxBytes, now = () => performance.now(), maxOriginFetches = Infinity, readAheadBytes = 0 }) {
  /** @type {LRUCache<string, Entry>} */
  const cache = new LRUCache({
    maxSize: Math.max(1, maxBytes),
    // A 0-byte object still takes a slot; lru-cache needs a positive size.
    sizeCalculation: (v) => Math.max(1, v.bytes.byteLength),
    dispose: (_v, key) => forgetRange(key),
  });
  /** url → the cache keys of its ranged entries */
  /** @type {Map<string, Set<string>>} */
  const rangesOf = new Map();
  const urlOfKey = (/** @type {string} */ key) => key.slice(0, key.lastIndexOf(' bytes='));
  /** Keeps a fetched or made range under `key`, listed under its URL while the cache holds it. @param {string} url @param {string} key @param {Entry} entry */
  function keepRange(url, key, entry) {
    cache.set(key, entry);
    if (cache.has(key)) rangesOf.set(url, (rangesOf.get(url) ?? new Set()).add(key));
  }
  /** @param {string} key */
  function forgetRange(key) {
    if (!key.includes(' bytes=')) return;
    const keys = rangesOf.get(urlOfKey(key));
    keys?.delete(key);
    if (keys?.size === 0) rangesOf.delete(urlOfKey(key));
  }
  /**
   * A cached range of `url` that holds `range` (up to the object's end), usable by `downloadId`.
   * @param {string} url @param {ByteRange} range @param {string | undefined} downloadId
   */
  function cachedRangeHolding(url, range, downloadId) {
    for (const key of rangesOf.get(url) ?? []) {
      const e = usableAt(key, downloadId);
      if (e?.range && holds(e.range, range, e.total)) return e;
    }
    return undefined;
  }
  /**
   * The cached ranges of `url` that `downloadId` may use, and their size, when they agree on it
   * and on their ETag (an origin that replaced the object between them: none is used together).
   * Looked at, not used: their recency stays.
   * @param {string} url @param {string | undefined} downloadId
   * @returns {{ pieces: Entry[], total: number | null }}
   */
  function cachedPieces(url, downloadId) {
    /** @type {Entry[]} */
    const pieces = [];
    for (const key of [...(rangesOf.get(url) ?? [])]) {
      const e = cache.peek(key);
      if (e && !usable(e, downloadId)) dropIfDone(key, e);
      else if (e?.range) pieces.push(e);
    }
    const totals = new Set(pieces.map((e) => e.total).filter((t) => t !== null));
    const versions = new Set(pieces.map((e) => e.etag).filter((t) => t !== null));
    return totals.size > 1 || versions.size > 1 ? { pieces: [], total: null } : { pieces, total: totals.size ? [...totals][0] : null };
  }
  /** @param {ByteRange} r @param {number | null} total  the range within the object */
  const clip = (r, total) => (total === null ? r : { start: r.start, end: Math.min(r.end, total - 1) });

  /** origin fetches on their way, by cache key: the URL and the range asked (null: the whole object); body: as it comes */
  /** @type {Map<string, { url: string, range: ByteRange | null, promise: Promise<Entry>, body: import('../origin/growing-body.js').GrowingBody | null,
   *   headMs: number, heads: Set<() => void>, downloads: Set<string> }>} */
  const inFlight = new Map();
  let originFetches = 0;
  let readAheads = 0;
  let readAheadFailures = 0;
  let readAheadsInFlight = 0;
  /** host → until when it gets nothing fetched ahead (NO_STORE_HOST_MS) */
  /** @type {Map<string, number>} */
  const noStoreHosts = new Map();
  /** Notes whether `url`'s host keeps its answers storable. @param {string} url @param {boolean} storable */
  function noteStorable(url, storable) {
    const host = hostOf(url);
    noStoreHosts.delete(host);
    if (storable) return;
    noStoreHosts.set(host, now() + NO_STORE_HOST_MS);
    if (noStoreHosts.size > NO_STORE_HOSTS_MAX) noStoreHosts.delete(/** @type {string} */ (noStoreHosts.keys().next().value));
  }
  /** Did `url`'s host answer `no-store` lately? @param {string} url */
  const answersNoStore = (url) => now() < (noStoreHosts.get(hostOf(url)) ?? -Infinity);
  const keyOf = (/** @type {string} */ url, /** @type {ByteRange | null} */ range) => (range ? `${url} bytes=${range.start}-${range.end}` : url);

  /** A download waits for a fetch on its way: the copy it brings is that download's too. @param {{ downloads: Set<string> }} flight @param {string | undefined} downloadId */
  function joinFlight(flight, downloadId) {
    if (downloadId !== undefined) flight.downloads.add(downloadId);
  }

  /** A fetch on its way for a range of `url` holding `range` (a read-ahead, or a wider range). @param {string} url @param {ByteRange} range */
  function inFlightHolding(url, range) {
    for (const f of inFlight.values()) if (f.url === url && f.range && holds(f.range, range, null)) return f;
    return undefined;
  }

  /** @param {Entry} e */
  const isFresh = (e) => now() < e.freshUntil;
  /** May this copy answer a request of `downloadId` (none: a request of no download) now? @param {Entry} e @param {string | undefined} downloadId */
  const usable = (e, downloadId) => isFresh(e)
    || (downloadId !== undefined && e.downloads.has(downloadId) && now() - e.arrivedAt <= ONE_DOWNLOAD_REUSE_MS);
  /** Can the origin be asked whether this stale copy is current? @param {Entry} e */
  const askable = (e) => e.storable && e.range === null && (e.etag !== null || e.lastModified !== null);
  /** Forgets a copy no request may use any more, unless the origin can be asked about it. @param {string} key @param {Entry} e */
  function dropIfDone(key, e) {
    if (now() - e.arrivedAt > ONE_DOWNLOAD_REUSE_MS && !askable(e)) cache.delete(key);
  }
  /** The copy under `key`, when a request of `downloadId` may use it. @param {string} key @param {string | undefined} downloadId */
  function usableAt(key, downloadId) {
    const e = cache.get(key);
    if (!e || usable(e, downloadId)) return e;
    dropIfDone(key, e);
    return undefined;
  }
  /** A stale whole copy of `url` with a validator: asking the origin about it may keep it. @param {string} url */
  function staleWhole(url) {
    const e = cache.peek(url);
    return e && !isFresh(e) && askable(e) ? e : undefined;
  }

  /**
   * The cached copy that answers `range` of `url` (null: the whole object) for `downloadId`, if any.
   * @param {string} url @param {ByteRange | null} range @param {string | undefined} downloadId
   */
  function cached(url, range, downloadId) {
    return usableAt(url, downloadId) ?? (range ? usableAt(keyOf(url, range), downloadId) ?? cachedRangeHolding(url, range, downloadId) : undefined);
  }

  /**
   * The entry an origin's answer makes: a new copy, or (a 304) the stale one, fresh again.
   * @param {Awaited<ReturnType<Fetcher>>} o @param {Entry | null} stale  the copy asked about
   * @param {number} fetchMs @param {Set<string>} downloads  the downloads that waited for it
   * @returns {Entry}
   */
  function entryOf(o, stale, fetchMs, downloads) {
    const cacheHeaders = o.notModified && stale ? updatedHeaders(stale.cacheHeaders, o.cacheHeaders ?? {}) : o.cacheHeaders ?? {};
    const f = freshnessOf(cacheHeaders, o.receivedAt ?? 0);
    const fresh = {
      freshUntil: now() + f.freshMs, cacheHeaders, etag: f.etag, lastModified: f.lastModified, storable: f.storable, arrivedAt: now(), downloads,
    };
    if (o.notModified && stale) return { ...stale, ...fresh, serverFetchMs: fetchMs };
    if (o.notModified) throw codedError('ERR_ORIGIN_STATUS', 'origin answered 304 to a request for the object');
    const part = o.range ?? null;
    return { bytes: o.bytes, contentType: o.contentType, serverFetchMs: fetchMs, range: part, total: o.total ?? (part ? null : o.bytes.byteLength), ...fresh };
  }

  /**
   * One origin fetch, shared by everyone who waits for it; its answer is kept.
   * @param {string} url @param {ByteRange | null} range
   * @param {Entry | null} [stale]  a stale whole copy of url to ask the origin about (a conditional request)
   * @param {string} [downloadId]  the download it is for
   */
  function startFetch(url, range, stale = null, downloadId = undefined) {
    if (inFlight.size >= maxOriginFetches) {
      throw codedError('ERR_PROXY_BUSY', `more than ${maxOriginFetches} concurrent origin fetches; try another proxy`);
    }
    const key = keyOf(url, range);
    originFetches++;
    const started = now();
    /** @type {{ url: string, range: ByteRange | null, promise: Promise<Entry>, body: any, headMs: number, heads: Set<() => void>, downloads: Set<string> }} */
    const flight = { url, range, promise: /** @type {any} */ (null), body: null, headMs: 0, heads: new Set(), downloads: new Set(downloadId === undefined ? [] : [downloadId]) };
    const onBody = (/** @type {import('../origin/growing-body.js').GrowingBody} */ body) => {
      flight.body = body;
      flight.headMs = now() - started;
      for (const h of flight.heads) h();
    };
    const validators = stale ? { etag: stale.etag, lastModified: stale.lastModified } : null;
    const promise = fetcher(url, { ...(range ? { range } : {}), onBody, ...(validators ? { validators } : {}) }).then((o) => {
      const entry = entryOf(o, stale, now() - started, flight.downloads);
      noteStorable(url, entry.storable);
      // an origin that ignored the range sent the whole object: kept as such
      if (entry.range) keepRange(url, key, entry);
      else cache.set(url, entry);
      return entry;
    });
    flight.promise = promise;
    inFlight.set(key, flight);
    // Failures are not cached: the next request tries the origin again.
    promise.finally(() => inFlight.delete(key)).catch(() => {});
    return promise;
  }

  /**
   * @param {string} url
   * @param {{ signal?: AbortSignal, range?: ByteRange | null, downloadId?: string }} [opts] signal aborts this caller's
   *   wait, not the shared fetch; range: only these bytes are needed; downloadId: the download asking
   *   (its other requests are answered from the same copy)
   * @returns {Promise<StoredObject>}  the whole object, or (range asked) a range of it that holds
   *   the asked one (entry.range says which)
   */
  async function get(url, opts = {}) {
    url = normalizeKey(url);
    const range = opts.range ?? null;
    const { downloadId } = opts;
    const hit = cached(url, range, downloadId);
    if (hit) return { ...hit, fromCache: true };
    const own = inFlight.get(url) ?? inFlight.get(keyOf(url, range));
    const wider = own || !range ? undefined : inFlightHolding(url, range);
    for (const f of [own, wider]) if (f) joinFlight(f, downloadId);
    if (wider) {
      try {
        return { ...(await abortable(wider.promise, opts.signal)), fromCache: false };
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        // the wider fetch failed (past the object's end, the origin's cap): ask for this range itself
      }
    }
    const made = range && !own ? fromPieces(url, range, opts.signal, downloadId) : null; // decided now: a get beside this one shares its fetch
    if (made) {
      const got = await made;
      if (got) return got;
    }
    const stale = own ? undefined : staleWhole(url);
    const entry = await abortable(own?.promise ?? startFetch(url, stale ? null : range, stale, downloadId), opts.signal);
    return { ...entry, fromCache: false };
  }

  /**
   * `range` of `url` made of the cached ranges that hold part of it, with the origin asked for the
   * bytes they lack (one request spanning every gap). Kept, and the ranges it holds whole
   * forgotten (its copy has their bytes). null (at once): no cached range holds any of it; a
   * promise of null: the pieces do not make it after all (the object changed or ended earlier).
   * @param {string} url @param {ByteRange} range @param {AbortSignal | undefined} signal @param {string | undefined} downloadId
   * @returns {Promise<StoredObject | null> | null}
   */
  function fromPieces(url, range, signal, downloadId) {
    const { pieces, total } = cachedPieces(url, downloadId);
    const asked = clip(range, total);
    if (pieces.length === 0 || asked.end < asked.start) return null;
    const gaps = gapsIn(asked, pieces.map((e) => /** @type {ByteRange} */ (e.range)));
    if (gaps.length === 1 && gaps[0].start === asked.start && gaps[0].end === asked.end) return null;
    const hull = hullOf(gaps);
    const flight = hull ? inFlightHolding(url, hull) : undefined;
    if (flight) joinFlight(flight, downloadId);
    const rest = hull ? abortable(flight?.promise ?? startFetch(url, hull, null, downloadId), signal) : Promise.resolve(null);
    return rest.then((fetched) => {
      if (fetched && !fetched.range) return { ...fetched, fromCache: false }; // the origin sent the whole object
      if (fetched && total !== null && fetched.total !== total) return null; // the object changed: asked for itself
      if (fetched && fetched.etag !== null && pieces.some((e) => e.etag !== null && e.etag !== fetched.etag)) return null; // so did this one
      return keepMade(url, range, pieces, fetched, total, downloadId);
    });
  }

  /**
   * Keeps the range made of `pieces` and the origin's answer for their gaps (null: none needed).
   * @param {string} url @param {ByteRange} range @param {Entry[]} pieces @param {Entry | null} fetched @param {number | null} total
   * @param {string | undefined} downloadId
   * @returns {StoredObject | null}
   */
  function keepMade(url, range, pieces, fetched, total, downloadId) {
    const all = fetched ? [...pieces, fetched] : pieces;
    const size = fetched?.total ?? total;
    const span = clip(range, size);
    if (gapsIn(span, all.map((e) => /** @type {ByteRange} */ (e.range))).length > 0) return null; // shorter than said
    const entry = {
      bytes: assemble(span, all.map((e) => ({ range: /** @type {ByteRange} */ (e.range), bytes: e.bytes }))),
      contentType: all[0].contentType, serverFetchMs: fetched?.serverFetchMs ?? 0, range: span, total: size,
      // fresh while every piece is, and for this download while it may use every piece; a range
      // is fetched again when stale, never asked about; its ETag is its pieces' (they agree), so a
      // range made later of it and others is one version
      freshUntil: Math.min(...all.map((e) => e.freshUntil)), cacheHeaders: {}, etag: all.find((e) => e.etag !== null)?.etag ?? null, lastModified: null,
      storable: all.every((e) => e.storable), arrivedAt: Math.min(...all.map((e) => e.arrivedAt)), downloads: new Set(downloadId === undefined ? [] : [downloadId]),
    };
    const key = keyOf(url, span);
    for (const k of [...(rangesOf.get(url) ?? [])]) {
      const r = cache.peek(k)?.range;
      if (r && k !== key && r.start >= span.start && r.end <= span.end) cache.delete(k);
    }
    keepRange(url, key, entry);
    return { ...entry, fromCache: fetched === null };
  }

  /**
   * The whole object as it comes: resolves once the origin's response head is in (its body then
   * fills as it comes), or with the whole object when it is cached, the fetch gives no body as it
   * comes (no length said), or it ends first.
   * @param {string} url
   * @param {{ signal?: AbortSignal, downloadId?: string }} [opts]  signal aborts this caller's wait, not the shared
   *   fetch; downloadId: as get's
   * @returns {Promise<OpenedObject>}
   */
  async function open(url, opts = {}) {
    url = normalizeKey(url);
    const { downloadId } = opts;
    const hit = usableAt(url, downloadId);
    if (hit) return whole({ ...hit, fromCache: true });
    const flight = inFlight.get(url) ?? (startFetch(url, null, staleWhole(url), downloadId), /** @type {any} */ (inFlight.get(url)));
    joinFlight(flight, downloadId);
    const done = doneOf(flight); // a caller that waits for the head sees a failure below
    if (!flight.body) {
      /** @type {() => void} */
      let onHead = () => {};
      const head = new Promise((resolve) => { onHead = () => resolve(undefined); flight.heads.add(onHead); });
      try {
        await abortable(Promise.race([head, done]), opts.signal);
      } finally {
        flight.heads.delete(onHead);
      }
      if (!flight.body) return whole(await done); // ended before any head (cached whole), or failed (rejects)
    }
    return coming(flight, done);
  }

  /**
   * The whole object while its origin still sends it, when a fetch of it is on its way and its
   * body comes (null: cached, not asked, asked for a range only, or no head yet): a range of an
   * HTTP mode need not wait for its last byte.
   * @param {string} url @param {string} [downloadId]  the download asking (as get's)
   * @returns {OpenedObject | null}
   */
  function openComing(url, downloadId) {
    url = normalizeKey(url);
    const flight = inFlight.get(url);
    if (usableAt(url, downloadId) || !flight?.body) return null;
    joinFlight(flight, downloadId);
    return coming(flight, doneOf(flight));
  }

  /**
   * A flight's whole object, as a fresh fetch's; a caller that took the body sees a failure through it.
   * @param {{ promise: Promise<Entry> }} flight
   * @returns {Promise<StoredObject>}
   */
  function doneOf(flight) {
    const done = flight.promise.then((e) => ({ ...e, fromCache: false }));
    done.catch(() => {});
    return done;
  }

  /**
   * A flight's body as an opened object.
   * @param {{ body: import('../origin/growing-body.js').GrowingBody | null, headMs: number }} flight  its body is there
   * @param {Promise<StoredObject>} done
   * @returns {OpenedObject}
   */
  function coming(flight, done) {
    const body = /** @type {import('../origin/growing-body.js').GrowingBody} */ (flight.body);
    return { bytes: body.bytes, contentType: body.contentType, filled: () => body.filled, subscribe: (fn) => body.subscribe(fn), done, headMs: flight.headMs, fromCache: false };
  }

  /** A whole object as an opened one. @param {StoredObject} o @returns {OpenedObject} */
  function whole(o) {
    return { bytes: o.bytes, contentType: o.contentType, filled: () => o.bytes.byteLength, subscribe: () => () => {}, done: Promise.resolve(o), headMs: o.serverFetchMs, fromCache: o.fromCache };
  }

  /**
   * After `asked` of `url` was served from a ranged copy: fetch what likely comes next, unless it
   * is held or on its way, read-ahead is off, or clients may need the origin slots.
   * @param {string} url @param {ByteRange} asked @param {number | null} total  the object's size, if known
   * @returns {boolean} whether a read-ahead started
   */
  function readAheadAfter(url, asked, total) {
    if (readAheadBytes <= 0) return false;
    url = normalizeKey(url);
    const ahead = readAheadRange(asked, total, readAheadBytes);
    if (!ahead || usableAt(url, undefined) || inFlight.has(url)) return false; // the whole object is here or coming
    // the bytes cached ranges hold, or fetches on their way bring, are not fetched again
    const coming = [...inFlight.values()].filter((f) => f.url === url && f.range).map((f) => /** @type {ByteRange} */ (f.range));
    const held = [...cachedPieces(url, undefined).pieces.map((e) => /** @type {ByteRange} */ (e.range)), ...coming];
    if (gapsIn(ahead.next, held).length === 0) return false;
    const rest = hullOf(gapsIn(ahead.fetch, held));
    return rest !== null && readAhead(url, rest);
  }

  /**
   * A client named the object it will likely ask next (the next segment file of a stream): fetch
   * it whole now, unless it is held or on its way, read-ahead is off, or clients may need the
   * origin slots.
   * @param {string} url
   * @returns {boolean} whether a fetch started
   */
  function prefetch(url) {
    if (readAheadBytes <= 0) return false;
    url = normalizeKey(url);
    if (usableAt(url, undefined) || inFlight.has(url)) return false;
    return readAhead(url, null);
  }

  /** One fetch nobody waits for yet, in an origin slot clients leave free, unless its host answers no-store. @param {string} url @param {ByteRange | null} range */
  function readAhead(url, range) {
    if (readAheadsInFlight >= MAX_READ_AHEADS_IN_FLIGHT || inFlight.size >= maxOriginFetches - 1 || answersNoStore(url)) return false;
    readAheads++;
    readAheadsInFlight++;
    // a failed read-ahead costs nothing but its count: the request that comes asks the origin itself
    // (startFetch cannot refuse here: a slot was checked free above)
    startFetch(url, range, range ? null : staleWhole(url)).catch(() => { readAheadFailures++; }).finally(() => { readAheadsInFlight--; });
    return true;
  }

  return {
    get,
    open,
    openComing,
    readAheadAfter,
    prefetch,
    /** @returns {{ entries: number, bytes: number, maxBytes: number, originFetches: number, inFlight: number, readAheads: number, readAheadFailures: number }} */
    stats: () => ({ entries: cache.size, bytes: cache.calculatedSize, maxBytes, originFetches, inFlight: inFlight.size, readAheads, readAheadFailures }),
    /** Is a fresh copy of the whole object here? @param {string} url */
    has: (url) => usableAt(normalizeKey(url), undefined) !== undefined,
    clear: () => cache.clear(),
  };
}

/**
 * @template T
 * @param {Promise<T>} promise
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<T>}
 */
function abortable(promise, signal) {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(codedError('ERR_ABORTED', 'request aborted'));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(codedError('ERR_ABORTED', 'request aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Does copy range `outer` hold every byte of `inner`? Past outer's end only when outer reaches the
 * object's end (`total`, when known): the object has no bytes there.
 * @param {ByteRange} outer @param {ByteRange} inner @param {number | null} total
 */
function holds(outer, inner, total) {
  return inner.start >= outer.start && (inner.end <= outer.end || (total !== null && outer.end === total - 1));
}

/** @param {string} url */
function hostOf(url) {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/**
 * One cache key per resource however the URL was spelled (case of scheme/host, default port).
 * @param {string} url
 */
function normalizeKey(url) {
  try {
    return new URL(url).href;
  } catch {
    return url; // the fetcher refuses it with ERR_BAD_URL
  }
}
