// The extension's settings: defaults and the one validator. Settings come from storage, which
// the options page writes; every reader parses them here, so a bad value never reaches the code.
import { MAX_PROXIES } from '@mutp/proxyclientlib/limits';
import { patternError } from './patterns.js';
import { isSite } from './sites.js';

export const ALL_MODES = /** @type {const} */ (['coded', 'uncoded', 'parallel-http', 'range-http']);
/** @type {readonly string[]} over WebRTC: the modes a warm-up connects for and the WebRTC breaker guards */
export const MUTP_MODES = Object.freeze(['coded', 'uncoded']);
export const CAMPAIGN_MODES = /** @type {const} */ (['parallel-http', 'uncoded', 'coded']); // paper IV: the three modes of the measurement campaign
export const CAMPAIGN_N = /** @type {const} */ ([1, 2, 4, 6]); // paper IV: N drawn from {1, 2, 4, 6} per chunk
// No default patterns: segments are detected generically. YouTube's `*.googlevideo.com/videoplayback`
// cannot work: its URLs are bound to the viewer's IP address and fetched by POST (UMP/SABR).
export const DEFAULT_PATTERNS = Object.freeze([]);
export const DETECT_MODES = /** @type {const} */ (['all-sites', 'listed-sites', 'off']);
export const DEFAULT_ORIGO_URL = 'http://127.0.0.1:8080'; // `npm start`'s Origo
export const DEFAULT_NO_PROGRESS_MS = 4000; // a few seconds without a byte → direct fetch; a player's buffer covers this
const MIN_NO_PROGRESS_MS = 500; // below this a healthy fleet would fall back on every WebRTC connect
const MAX_NO_PROGRESS_MS = 60_000; // above this a stalled video is visible to the user
const MAX_PATTERNS = 64; // a settings page list, not a filter list
const MAX_SITES = 500; // a user's own list of sites
export const MAX_N = MAX_PROXIES; // ProxyClientLib's own cap

/**
 * @typedef {object} Settings
 * @property {boolean} enabled
 * @property {string} origoUrl
 * @property {'random' | typeof ALL_MODES[number]} mode
 * @property {string[]} randomModes     modes drawn from when mode is 'random'
 * @property {'random' | number} n
 * @property {number[]} randomN         N drawn from when n is 'random'
 * @property {string[]} patterns       URLs always served through the fleet (on sites not denied)
 * @property {typeof DETECT_MODES[number]} detect  where segments are detected from manifests and URLs
 * @property {string[]} sites           hosts for detect 'listed-sites'
 * @property {string[]} denySites       hosts where nothing is touched
 * @property {number} noProgressTimeoutMs
 * @property {boolean} proximity        send the coarse location to Origo (paper III.C)
 * @property {{lat: number, lon: number} | null} location
 * @property {boolean} [hopTiming]     each segment's record carries where its time went (`hops`, docs/extension-testing.md): for the bench
 */

/** @returns {Settings} */
export function defaultSettings() {
  return {
    enabled: true, origoUrl: DEFAULT_ORIGO_URL, mode: 'random', randomModes: [...CAMPAIGN_MODES],
    n: 'random', randomN: [...CAMPAIGN_N], patterns: [...DEFAULT_PATTERNS], detect: 'all-sites', sites: [], denySites: [],
    noProgressTimeoutMs: DEFAULT_NO_PROGRESS_MS, proximity: false, location: null, hopTiming: false,
  };
}

/**
 * Validate stored (untrusted) settings field by field: a bad field falls back to its default
 * and is reported, the others are kept.
 * @param {unknown} raw
 * @returns {{settings: Settings, problems: string[]}}
 */
export function parseSettings(raw) {
  const d = defaultSettings();
  /** @type {string[]} */
  const problems = [];
  if (raw == null) return { settings: d, problems };
  if (typeof raw !== 'object') return { settings: d, problems: ['settings are not an object'] };
  const r = /** @type {Record<string, any>} */ (raw);
  const s = { ...d };
  const take = (key, ok, why) => {
    if (!(key in r) || r[key] === undefined) return;
    if (ok(r[key])) s[key] = r[key];
    else problems.push(`${key}: ${why}`);
  };
  take('enabled', (v) => typeof v === 'boolean', 'must be true or false');
  take('origoUrl', (v) => origoUrlError(v) === null, 'must be an http(s) URL');
  take('mode', (v) => v === 'random' || ALL_MODES.includes(v), `must be random or one of ${ALL_MODES.join(', ')}`);
  take('randomModes', (v) => Array.isArray(v) && v.length > 0 && v.every((m) => ALL_MODES.includes(m)), 'must be a non-empty list of modes');
  take('n', (v) => v === 'random' || (Number.isInteger(v) && v >= 1 && v <= MAX_N), `must be random or an integer 1..${MAX_N}`);
  take('randomN', (v) => Array.isArray(v) && v.length > 0 && v.every((x) => Number.isInteger(x) && x >= 1 && x <= MAX_N), 'must be a non-empty list of integers');
  take('patterns', (v) => Array.isArray(v) && v.length <= MAX_PATTERNS && v.every((p) => typeof p === 'string' && patternError(p) === null), 'must be a list of valid URL patterns');
  take('detect', (v) => DETECT_MODES.includes(v), `must be one of ${DETECT_MODES.join(', ')}`);
  take('sites', (v) => Array.isArray(v) && v.length <= MAX_SITES && v.every(isSite), 'must be a list of host names');
  take('denySites', (v) => Array.isArray(v) && v.length <= MAX_SITES && v.every(isSite), 'must be a list of host names');
  take('noProgressTimeoutMs', (v) => Number.isInteger(v) && v >= MIN_NO_PROGRESS_MS && v <= MAX_NO_PROGRESS_MS, `must be an integer ${MIN_NO_PROGRESS_MS}..${MAX_NO_PROGRESS_MS} ms`);
  take('proximity', (v) => typeof v === 'boolean', 'must be true or false');
  take('hopTiming', (v) => typeof v === 'boolean', 'must be true or false');
  take('location', (v) => v === null || (v && Number.isFinite(v.lat) && Number.isFinite(v.lon) && Math.abs(v.lat) <= 90 && Math.abs(v.lon) <= 180), 'must be null or {lat, lon}');
  s.randomModes = [...s.randomModes];
  s.randomN = [...s.randomN];
  s.patterns = [...s.patterns];
  s.sites = [...s.sites];
  s.denySites = [...s.denySites];
  s.location = s.location ? { lat: s.location.lat, lon: s.location.lon } : null;
  return { settings: s, problems };
}

/** @param {unknown} v @returns {string | null} */
export function origoUrlError(v) {
  if (typeof v !== 'string' || v.length > 2048) return 'not a string of at most 2048 characters';
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:' ? null : 'only http(s) URLs';
  } catch {
    return 'not a URL';
  }
}
