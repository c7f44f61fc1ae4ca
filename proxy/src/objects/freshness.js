// How long a proxy may answer from its copy of an origin's object before asking the origin again:
// HTTP caching (RFC 9111) as a shared cache sees it. An origin that replaces a file, or says
// `no-cache`, gets its new bytes to clients; one that says `no-store` is not kept. Pure: the
// caller says when the response came.

/** Heuristic freshness for a response with Last-Modified and no explicit lifetime: this share of its age (RFC 9111 §4.2.2's "typical" 10%). */
export const HEURISTIC_LIFETIME_SHARE = 0.1;

/** The most a heuristic gives (ms): a day, as common caches cap it; a file untouched for years is still asked about daily. */
export const HEURISTIC_MAX_MS = 24 * 3600 * 1000;

/**
 * Freshness (ms) of a response that says nothing of its lifetime and has no Last-Modified: two
 * minutes (Varnish's default TTL). Long enough that the proxies of one download and a player's
 * next requests share one origin fetch; short enough that a replaced file reaches clients soon.
 */
export const UNDATED_FRESH_MS = 120_000;

/** The response header fields that decide freshness and revalidation (lower case), kept with a copy. */
export const CACHE_HEADER_NAMES = Object.freeze(['cache-control', 'expires', 'date', 'age', 'last-modified', 'etag', 'vary']);

/**
 * @typedef {{ [name: string]: string | undefined }} CacheHeaders  CACHE_HEADER_NAMES' values (lower-case names)
 * @typedef {{ storable: boolean, freshMs: number, etag: string | null, lastModified: string | null }} Freshness
 *   storable: may be kept at all; freshMs: how long from its arrival it may be used without asking
 *   the origin (0: ask each time); etag / lastModified: the validators a conditional request sends
 */

/**
 * The cache header fields of a response, as one string each (a repeated field joined with ", ").
 * @param {Record<string, string | string[] | undefined>} headers  Node's lower-case response headers
 * @returns {CacheHeaders}
 */
export function cacheHeadersOf(headers) {
  /** @type {CacheHeaders} */
  const out = {};
  for (const name of CACHE_HEADER_NAMES) {
    const v = headers[name];
    if (v !== undefined) out[name] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/**
 * A stored response's header fields updated by a 304's (RFC 9111 §4.3.4: the 304's replace them).
 * @param {CacheHeaders} stored @param {CacheHeaders} fresh
 * @returns {CacheHeaders}
 */
export function updatedHeaders(stored, fresh) {
  return { ...stored, ...fresh };
}

/**
 * @param {CacheHeaders} headers
 * @param {number} receivedAtMs  wall-clock ms (epoch) when the response's head came
 * @returns {Freshness}
 */
export function freshnessOf(headers, receivedAtMs) {
  const cc = parseCacheControl(headers['cache-control']);
  const etag = headers.etag?.trim() || null;
  const lastModified = headers['last-modified']?.trim() || null;
  // Vary: * says no later request matches this response; private is for one user's cache only
  const storable = !cc.has('no-store') && !cc.has('private') && headers.vary?.trim() !== '*';
  if (!storable) return { storable, freshMs: 0, etag, lastModified };
  const date = httpDate(headers.date) ?? receivedAtMs;
  const lifetime = cc.has('no-cache') ? 0 : explicitLifetime(cc, headers.expires, date) ?? heuristicLifetime(lastModified, date);
  const ageS = seconds(headers.age) ?? 0;
  const age = ageS * 1000 + Math.max(0, receivedAtMs - date);
  return { storable, freshMs: Math.max(0, lifetime - age), etag, lastModified };
}

/**
 * s-maxage, max-age or Expires (ms); null when the response states none. An Expires that does not
 * parse ("0" included) is in the past (RFC 9111 §5.3).
 * @param {Map<string, string>} cc @param {string | undefined} expires @param {number} date
 */
function explicitLifetime(cc, expires, date) {
  for (const name of ['s-maxage', 'max-age']) {
    if (!cc.has(name)) continue;
    const s = seconds(cc.get(name));
    return s === null ? 0 : s * 1000;
  }
  if (expires === undefined) return null;
  const at = httpDate(expires);
  return at === null ? 0 : Math.max(0, at - date);
}

/** @param {string | null} lastModified @param {number} date */
function heuristicLifetime(lastModified, date) {
  const modified = lastModified === null ? null : httpDate(lastModified);
  if (modified === null) return UNDATED_FRESH_MS;
  return Math.min(HEURISTIC_MAX_MS, Math.max(0, date - modified) * HEURISTIC_LIFETIME_SHARE);
}

/**
 * Cache-Control's directives, names in lower case, quoted values unquoted ("" when none).
 * @param {string | undefined} text
 * @returns {Map<string, string>}
 */
export function parseCacheControl(text) {
  /** @type {Map<string, string>} */
  const out = new Map();
  if (!text) return out;
  let i = 0;
  while (i < text.length) {
    // a directive: a name, then optionally = and a token or a quoted string (which may hold commas);
    // each turn takes at least one character (a separator, a name or an =)
    const name = /^[\s,]*([^\s=,]*)\s*/.exec(text.slice(i));
    i += /** @type {RegExpExecArray} */ (name)[0].length;
    let value = '';
    if (text[i] === '=') {
      const v = /^=\s*("(?:[^"\\]|\\.)*"?|[^,]*)/.exec(text.slice(i));
      i += /** @type {RegExpExecArray} */ (v)[0].length;
      const raw = /** @type {RegExpExecArray} */ (v)[1].trim();
      value = raw.startsWith('"') ? raw.replace(/^"|"$/g, '').replace(/\\(.)/g, '$1') : raw;
    }
    const key = /** @type {RegExpExecArray} */ (name)[1].toLowerCase();
    if (key !== '' && !out.has(key)) out.set(key, value); // the first of a repeated directive counts
  }
  return out;
}

/** Whole non-negative seconds (delta-seconds), or null. @param {string | undefined} text */
function seconds(text) {
  if (text === undefined || !/^\s*\d+\s*$/.test(text)) return null;
  return Math.min(Number(text), 2 ** 31); // RFC 9111 §1.2.2: larger values mean 2^31
}

/** An HTTP date as epoch ms, or null. @param {string | undefined} text */
function httpDate(text) {
  if (!text) return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
}
