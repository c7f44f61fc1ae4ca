// Segment URLs from the manifests a page fetches: HLS playlists (RFC 8216, incl. EXT-X-BYTERANGE,
// EXT-X-MAP and LL-HLS parts) and DASH MPDs (SegmentTemplate, SegmentList with mediaRange,
// SegmentBase with indexRange). Pure text in, URLs and URL templates out: no DOM, no network.

export const MAX_MANIFEST_CHARS = 16 * 1024 * 1024; // a long VOD MPD with SegmentList is a few MB; more is not a manifest

const HLS_TYPES = ['application/vnd.apple.mpegurl', 'application/x-mpegurl', 'audio/mpegurl', 'audio/x-mpegurl'];
const DASH_TYPES = ['application/dash+xml'];

/**
 * Which manifest a response is, by its URL's path and its Content-Type.
 * @param {string} url
 * @param {string | null} contentType
 * @returns {'hls' | 'dash' | null}
 */
export function manifestKind(url, contentType) {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (HLS_TYPES.includes(type)) return 'hls';
  if (DASH_TYPES.includes(type)) return 'dash';
  const p = pathOf(url).toLowerCase();
  if (p.endsWith('.m3u8') || p.endsWith('.m3u')) return 'hls';
  if (p.endsWith('.mpd')) return 'dash';
  return null;
}

/** @param {string} url */
export function pathOf(url) {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

/** @param {string} url @returns {string} the URL without its fragment (a request never carries one) */
export function withoutFragment(url) {
  const i = url.indexOf('#');
  return i < 0 ? url : url.slice(0, i);
}

/** @param {string} ref @param {string} base */
function resolve(ref, base) {
  try {
    return withoutFragment(new URL(ref, base).href);
  } catch {
    return null;
  }
}

/**
 * @typedef {{url: string, range: {start: number, end: number} | null}} InitSection  range: its bytes of the file (end inclusive), null: the whole file
 * @typedef {{segments: string[], templates: RegExp[], playlists: string[], sequences: string[][], starts: [string, string][],
 *   inits: InitSection[]}} Learned
 *   segments: exact URLs; templates: whole-URL matchers (DASH SegmentTemplate; a single $Number$ is
 *   the group `n`, with its indices); playlists: more manifests; sequences: media segment URLs in
 *   play order (an HLS playlist, a DASH SegmentList), so a segment's successor is known;
 *   starts: [init section file, first media segment file] of each rendition of a VOD stream (a
 *   player that starts it asks them one after the other; a live stream starts near its end);
 *   inits: the init section of each rendition of a VOD stream, a file or a byte range of one
 *   (what a player asks first of the rendition it picks; a DASH MPD's in turns from each
 *   AdaptationSet, so the first few cover the audio as well as the video)
 */

/** @returns {Learned} */
const nothingLearned = () => ({ segments: [], templates: [], playlists: [], sequences: [], starts: [], inits: [] });

/**
 * An HLS BYTERANGE "n@o" or a DASH range "a-b" as bytes (end inclusive); null for anything else
 * (an HLS range without its offset goes on from a previous one, which an init section has not).
 * @param {string | null | undefined} text
 */
function initRange(text) {
  const m = /^(?:(\d{1,15})@(\d{1,15})|(\d{1,15})-(\d{1,15}))$/.exec((text ?? '').trim());
  if (!m) return null;
  const [start, end] = m[1] !== undefined ? [Number(m[2]), Number(m[2]) + Number(m[1]) - 1] : [Number(m[3]), Number(m[4])];
  return end >= start ? { start, end } : null;
}

/** @param {string} line @param {string} key */
function attr(line, key) {
  const m = new RegExp(`(?:^|[:,])${key}="([^"]*)"`).exec(line);
  return m ? m[1] : null;
}

/**
 * @param {string} text  an HLS playlist
 * @param {string} base  its URL (after redirects)
 * @returns {Learned}
 */
export function parseHls(text, base) {
  const out = nothingLearned();
  if (!text.trimStart().startsWith('#EXTM3U')) return out;
  /** @type {string[]} */
  const media = []; // the playlist's media segments in play order (not its init section or parts)
  /** @type {[string, string] | null} the first init section (EXT-X-MAP) file and the media segment after it */
  let start = null;
  /** @type {InitSection | null} the init section before the first media segment, a whole file or a byte range of one */
  let section = null;
  let vod = false; // the whole stream is listed: a player starts at its first segment
  let nextIsPlaylist = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      if (line.startsWith('#EXT-X-STREAM-INF')) nextIsPlaylist = true;
      if (line === '#EXT-X-ENDLIST' || line === '#EXT-X-PLAYLIST-TYPE:VOD') vod = true;
      const uri = attr(line, 'URI');
      if (uri === null) continue;
      // EXT-X-KEY and EXT-X-SESSION-KEY name keys, EXT-X-SESSION-DATA JSON: not media
      if (/^#EXT-X-(MEDIA|I-FRAME-STREAM-INF|RENDITION-REPORT):/.test(line)) push(out.playlists, resolve(uri, base));
      else if (/^#EXT-X-(MAP|PART|PRELOAD-HINT):/.test(line)) push(out.segments, resolve(uri, base));
      if (line.startsWith('#EXT-X-MAP:') && media.length === 0 && section === null) {
        const u = resolve(uri, base);
        const ranged = attr(line, 'BYTERANGE');
        const range = ranged === null ? null : initRange(ranged);
        if (u !== null && (ranged === null || range !== null)) section = { url: u, range };
      }
      continue;
    }
    const u = resolve(line, base);
    push(nextIsPlaylist ? out.playlists : out.segments, u);
    if (!nextIsPlaylist) push(media, u);
    // a next-file hint names whole files only: a BYTERANGE section is part of a file that may hold the whole stream
    if (!nextIsPlaylist && media.length === 1 && section?.range === null && u !== null && u !== section.url) start = [section.url, u];
    nextIsPlaylist = false;
  }
  if (media.length > 1) out.sequences.push(media);
  if (vod && start) out.starts.push(start);
  if (vod && section) out.inits.push(section);
  return out;
}

/** @param {string[]} list @param {string | null} v */
function push(list, v) {
  if (v !== null) list.push(v);
}

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
/** @param {string} s */
function unescapeXml(s) {
  return s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, e) => {
    if (e[0] !== '#') return ENTITIES[e.toLowerCase()];
    const cp = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1));
    return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
  });
}

/** @param {string} s @returns {Record<string, string>} */
function attrsOf(s) {
  /** @type {Record<string, string>} */
  const a = {};
  for (const m of s.matchAll(/([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) a[m[1].replace(/^.*:/, '')] = unescapeXml(m[2] ?? m[3]);
  return a;
}

const escapeRe = (/** @type {string} */ s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A SegmentTemplate `media`/`initialization` as a whole-URL matcher: $RepresentationID$ is
 * that representation's id, $Number$, $Time$, $Bandwidth$ and $SubNumber$ (with or without a
 * %0Nd width) are digits, $$ is a dollar sign.
 * @param {string} template
 * @param {string} base
 * @param {string | null} repId
 * @returns {RegExp | null}
 */
export function templateMatcher(template, base, repId) {
  /** @type {string[]} */
  const parts = [];
  // a single $Number$ is captured: the next segment's URL is this one with the number + 1
  const numbered = (template.match(/\$Number(%0\d+d)?\$/g) ?? []).length === 1;
  // swap each $…$ for a marker the URL parser leaves alone, resolve, then swap the markers for patterns
  const marked = template.replace(/\$(RepresentationID|Number|Time|Bandwidth|SubNumber)?(%0\d+d)?\$/g, (_, name) => {
    parts.push(name === undefined ? '\\$' : name === 'RepresentationID' ? (repId === null ? '[^/?#]+' : escapeRe(repId)) : name === 'Number' && numbered ? '(?<n>\\d+)' : '\\d+');
    return `MUTPx${parts.length - 1}x`;
  });
  const abs = resolve(marked, base);
  if (abs === null) return null;
  const re = escapeRe(abs).replace(/MUTPx(\d+)x/g, (_, i) => parts[Number(i)]);
  return new RegExp(`^${re}${abs.includes('?') ? '' : '(?:\\?[^#]*)?'}$`, 'd');
}

/**
 * @param {string} text  a DASH MPD
 * @param {string} base  its URL (after redirects)
 * @returns {Learned}
 */
export function parseDash(text, base) {
  const out = nothingLearned();
  /**
   * @typedef {{name: string, base: string, media: string | null, init: string | null, startNumber: string | null,
   *   id: string | null, bandwidth: string | null, owns: boolean, list: string[], initFile: string | null,
   *   initBytes: {start: number, end: number} | null}} Frame
   *   list: a Representation's SegmentURL files in play order; initFile, initBytes: its SegmentList's or
   *   SegmentBase's Initialization (sourceURL, range; a range without sourceURL is of the Representation's file)
   * @type {Frame[]}
   */
  const stack = [{ name: '#doc', base, media: null, init: null, startNumber: null, id: null, bandwidth: null, owns: false, list: [], initFile: null, initBytes: null }];
  const top = () => stack[stack.length - 1];
  /** @type {string | null} */
  let baseText = null;
  let live = false; // a dynamic MPD: a player starts near the live edge, not at the first segment
  /** each AdaptationSet's init sections (keyed by its frame), in document order */
  /** @type {Map<Frame, InitSection[]>} */
  const initsBySet = new Map();
  /** The init sections taken in turns from each AdaptationSet: a capped prefetch of a long video ladder keeps the audio's. */
  const done = () => {
    out.inits = interleave([...initsBySet.values()]);
    return out;
  };
  /** A Representation is complete: its templates, or its own file (SegmentBase with indexRange, fetched by Range). @param {Frame} f */
  const representationDone = (f) => {
    if (f.media !== null || f.init !== null) {
      for (const t of [f.media, f.init]) {
        const re = t === null ? null : templateMatcher(t, f.base, f.id);
        if (re) out.templates.push(re);
      }
    } else if (!f.owns && f.base !== withoutFragment(base)) {
      push(out.segments, f.base);
    }
    if (f.list.length > 1) out.sequences.push(f.list);
    if (live) return;
    const templated = f.media !== null && f.init !== null;
    // a next-file hint names whole files only: an Initialization range may be of a file holding the whole stream
    const first = templated
      ? [expandTemplate(/** @type {string} */ (f.init), f, null), expandTemplate(/** @type {string} */ (f.media), f, f.startNumber ?? '1')]
      : [f.initBytes ? null : f.initFile, f.list[0] ?? null];
    if (first[0] !== null && first[1] !== null && first[0] !== first[1]) out.starts.push([first[0], first[1]]);
    const section = templated ? first[0] : (f.initFile ?? (f.initBytes ? f.base : null));
    if (section !== null) {
      const set = top(); // its AdaptationSet (the Representation's own frame is off the stack)
      if (!initsBySet.has(set)) initsBySet.set(set, []);
      initsBySet.get(set)?.push({ url: section, range: templated ? null : f.initBytes });
    }
  };
  for (const m of text.matchAll(/<(\/?)([\w:.-]+)([^>]*?)(\/?)>|<!--[\s\S]*?-->|<!\[CDATA\[([\s\S]*?)\]\]>|([^<]+)/g)) {
    const [, close, rawName, rest, selfClose, cdata, txt] = m;
    if (txt !== undefined || cdata !== undefined) {
      if (baseText !== null) baseText += txt !== undefined ? unescapeXml(txt) : cdata;
      continue;
    }
    if (rawName === undefined) continue; // a comment
    const name = rawName.replace(/^.*:/, '');
    if (close) {
      const f = stack.pop();
      if (!f || stack.length === 0) return done(); // unbalanced: keep what was learned
      if (name === 'BaseURL' && baseText !== null) {
        const b = resolve(baseText.trim(), top().base);
        if (b !== null) top().base = b;
        baseText = null;
      } else if (name === 'Representation') {
        representationDone(f);
      }
      continue;
    }
    if (name === '?xml' || rawName.startsWith('?') || rawName.startsWith('!')) continue;
    const a = attrsOf(rest);
    const parent = top();
    /** @type {Frame} */
    const f = { name, base: parent.base, media: parent.media, init: parent.init, startNumber: parent.startNumber, id: parent.id,
      bandwidth: parent.bandwidth, owns: false, list: [], initFile: null, initBytes: null };
    if (name === 'MPD') {
      live = a.type === 'dynamic';
    } else if (name === 'Representation') {
      f.id = a.id ?? null;
      f.bandwidth = a.bandwidth ?? null;
    } else if (name === 'SegmentTemplate') {
      // applies to its parent and everything inside it
      if (a.media !== undefined) parent.media = a.media;
      if (a.initialization !== undefined) parent.init = a.initialization;
      if (a.startNumber !== undefined) parent.startNumber = a.startNumber;
    } else if (name === 'SegmentURL' || name === 'Initialization' || name === 'RepresentationIndex') {
      const ref = a.media ?? a.sourceURL;
      if (name === 'Initialization') {
        const rep = representationOf(stack);
        if (rep) {
          rep.initBytes = a.range === undefined ? null : initRange(a.range);
          rep.initFile = ref === undefined ? null : resolve(ref, parent.base);
          if (a.range !== undefined && rep.initBytes === null) rep.initFile = null; // a range we cannot read: no init section known
        }
      }
      if (ref !== undefined) {
        const u = resolve(ref, parent.base);
        push(out.segments, u);
        const rep = markOwned(stack);
        if (rep && name === 'SegmentURL') push(rep.list, u);
      } else if (name === 'SegmentURL') {
        push(out.segments, parent.base); // only a mediaRange: a byte range of the Representation's file
      }
    } else if (name === 'BaseURL') {
      baseText = '';
    }
    if (!selfClose) stack.push(f);
    else if (name === 'Representation') representationDone(f);
  }
  return done();
}

/**
 * The lists' items taken in turns, first of each, then second of each, …
 * @template T @param {T[][]} lists @returns {T[]}
 */
function interleave(lists) {
  const out = [];
  for (let i = 0; lists.some((l) => i < l.length); i++) for (const l of lists) if (i < l.length) out.push(l[i]);
  return out;
}

/**
 * One URL of a SegmentTemplate: $RepresentationID$, $Bandwidth$ and $Number$ (with its %0Nd
 * width) filled in, resolved against the Representation's base.
 * @param {string} template
 * @param {{base: string, id: string | null, bandwidth: string | null}} rep
 * @param {string | null} number  decimal digits; null: the template must not need one
 * @returns {string | null} null: it needs a value not known here ($Time$, $SubNumber$, a missing one)
 */
export function expandTemplate(template, rep, number) {
  let unknown = false;
  const filled = template.replace(/\$(RepresentationID|Number|Time|Bandwidth|SubNumber)?(%0(\d+)d)?\$/g, (_, name, _fmt, width) => {
    const value = name === undefined ? '$' : name === 'RepresentationID' ? rep.id : name === 'Bandwidth' ? rep.bandwidth : name === 'Number' ? number : null;
    if (value === null || (name !== undefined && name !== 'RepresentationID' && !/^\d+$/.test(value))) {
      unknown = true;
      return '';
    }
    return width === undefined ? value : value.padStart(Number(width), '0');
  });
  return unknown ? null : resolve(filled, rep.base);
}

/**
 * A segment list inside a Representation: the Representation's own URL is not a segment then.
 * @template {{name: string, owns: boolean}} F @param {F[]} stack @returns {F | null} that Representation
 */
function markOwned(stack) {
  const rep = representationOf(stack);
  if (rep) rep.owns = true;
  return rep;
}

/** @template {{name: string}} F @param {F[]} stack @returns {F | null} the Representation being read */
function representationOf(stack) {
  for (let i = stack.length - 1; i >= 0; i--) if (stack[i].name === 'Representation') return stack[i];
  return null;
}

/**
 * @param {'hls' | 'dash'} kind
 * @param {string} text
 * @param {string} base
 * @returns {Learned}
 */
export function parseManifest(kind, text, base) {
  if (text.length > MAX_MANIFEST_CHARS) return nothingLearned();
  return kind === 'hls' ? parseHls(text, base) : parseDash(text, base);
}
