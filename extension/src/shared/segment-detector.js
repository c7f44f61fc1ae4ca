// Which of a page's requests are video segments: those named by the HLS playlists and DASH
// manifests the page fetched (learned here), else by the URL's extension, else a Range request
// on a page that made a MediaSource. And which segment file a player asks after one: the next
// in its playlist or SegmentList, or a $Number$ template's next number; while the player starts
// (before its first media segment), a VOD rendition's first media segment after its init
// section. Knowledge is per page and bounded.
import { manifestKind, parseManifest, pathOf, withoutFragment } from './manifests.js';

// media container extensions players fetch segments as (HLS TS/fMP4/packed audio, DASH, CMAF)
export const SEGMENT_EXTENSIONS = Object.freeze(['.ts', '.m4s', '.mp4', '.m4a', '.m4v', '.cmfv', '.cmfa', '.aac', '.mp3', '.webm']);
const MAX_KNOWN_URLS = 50_000; // a long VOD SegmentList; beyond it the oldest are forgotten
const MAX_TEMPLATES = 2_000; // representations × (media, init) of the manifests seen

/** @typedef {'manifest' | 'extension' | 'range'} SegmentReason  why a URL counts as a segment */

export function createSegmentDetector() {
  /** @type {Set<string>} */
  const known = new Set();
  /** @type {Set<string>} */
  const playlists = new Set();
  /** a segment file → the file played after it (another URL: a single-file stream's next range is the proxy's read-ahead) */
  /** @type {Map<string, string>} */
  const successors = new Map();
  /**
   * an init section → its rendition's first media segment. Hinted only while the player starts: an
   * init asked later is a rendition switch, which goes on from the playing position, not the start.
   * @type {Map<string, string>}
   */
  const firstAfterInit = new Map();
  let started = false; // the player asked for a segment that is not a known init section
  /** @type {RegExp[]} */
  let templates = [];
  let mediaSource = false;
  const counts = { manifests: 0 };

  /**
   * @param {string} url
   * @param {string | null} contentType
   */
  function manifestOf(url, contentType) {
    const kind = manifestKind(url, contentType);
    if (kind) return kind;
    return playlists.has(withoutFragment(url)) ? 'hls' : null; // a variant playlist named by its master, without .m3u8
  }

  /**
   * Learn from a manifest response the page received.
   * @param {'hls' | 'dash'} kind
   * @param {string} url  the response's URL (after redirects): the base of relative references
   * @param {string} text
   */
  function learn(kind, url, text) {
    const got = parseManifest(kind, text, url);
    counts.manifests += 1;
    for (const u of got.segments) {
      if (known.size >= MAX_KNOWN_URLS) known.delete(/** @type {string} */ (known.values().next().value));
      known.add(u);
    }
    for (const p of got.playlists) if (playlists.size < MAX_KNOWN_URLS) playlists.add(p);
    for (const seq of got.sequences) {
      for (let i = 1; i < seq.length; i++) {
        if (seq[i] === seq[i - 1]) continue;
        if (successors.size >= MAX_KNOWN_URLS) successors.delete(/** @type {string} */ (successors.keys().next().value));
        successors.set(seq[i - 1], seq[i]);
      }
    }
    for (const [init, first] of got.starts) {
      if (firstAfterInit.size >= MAX_KNOWN_URLS) firstAfterInit.delete(/** @type {string} */ (firstAfterInit.keys().next().value));
      firstAfterInit.set(init, first);
    }
    templates = [...templates, ...got.templates].slice(-MAX_TEMPLATES);
    return got;
  }

  /**
   * @param {string} url  absolute
   * @param {boolean} hasRange  the request carries a Range header
   * @returns {SegmentReason | null}
   */
  function segmentReason(url, hasRange) {
    const u = withoutFragment(url);
    if (known.has(u) || templates.some((re) => re.test(u))) return 'manifest';
    if (manifestOf(u, null)) return null;
    const p = pathOf(u).toLowerCase();
    if (SEGMENT_EXTENSIONS.some((ext) => p.endsWith(ext))) return 'extension';
    if (hasRange && mediaSource) return 'range';
    return null;
  }

  /**
   * The segment file a player likely asks after `url`, if the manifests say (null: unknown). Called
   * once per segment request the page makes: a request that is not an init section marks the
   * player as started.
   * @param {string} url  absolute
   * @returns {string | null}
   */
  function nextOf(url) {
    const u = withoutFragment(url);
    const first = firstAfterInit.get(u);
    if (first !== undefined) return started ? null : first;
    started = true;
    const listed = successors.get(u);
    if (listed !== undefined) return listed;
    for (const re of templates) {
      const at = re.exec(u)?.indices?.groups?.n;
      if (!at) continue;
      const digits = u.slice(at[0], at[1]);
      const n = Number(digits) + 1;
      if (!Number.isSafeInteger(n)) return null;
      return u.slice(0, at[0]) + String(n).padStart(digits.length, '0') + u.slice(at[1]);
    }
    return null;
  }

  return {
    manifestOf, learn, segmentReason, nextOf,
    /** The page made a MediaSource: Range requests from now on are taken for media. */
    noteMediaSource: () => { mediaSource = true; },
    counts: () => ({ ...counts, knownUrls: known.size, templates: templates.length, successors: successors.size, starts: firstAfterInit.size }),
  };
}
