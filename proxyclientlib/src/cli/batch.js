// Several objects in one `mutp get`: the file names they are saved under and the run's summary.
// Pure: the CLI (main.js) does the downloading and writing.

/** What a file name keeps of a URL's last path segment: anything else becomes "_". */
const UNSAFE_NAME_CHARS = /[^A-Za-z0-9._-]/g;
/** A name longer than this is cut: ext4 and most file systems allow 255 bytes. */
const MAX_NAME_CHARS = 200;
/** The name of an object whose URL ends in "/" (or has no usable segment). */
const INDEX_NAME = 'index';

/**
 * A file name for each URL, in order: its last path segment, decoded and reduced to safe
 * characters (never a path, never "." or ".."); a name taken by an earlier URL of the run gets
 * ".1", ".2", … as wget does.
 * @param {string[]} urls  http(s) URLs (checked by the caller)
 * @returns {string[]}
 */
export function outputNames(urls) {
  const taken = new Set();
  return urls.map((url) => {
    const segment = new URL(url).pathname.split('/').pop() ?? '';
    let base = decoded(segment).replace(UNSAFE_NAME_CHARS, '_').slice(0, MAX_NAME_CHARS);
    if (base === '' || /^\.+$/.test(base)) base = INDEX_NAME;
    let name = base;
    for (let k = 1; taken.has(name); k++) name = `${base}.${k}`;
    taken.add(name);
    return name;
  });
}

/** A path segment with its %-escapes undone (as given when malformed). @param {string} segment */
function decoded(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * @typedef {object} BatchSummary
 * @property {number} objects      URLs asked for
 * @property {number} ok           downloaded and verified
 * @property {number} failed       tried and failed
 * @property {number} notTried     left when the run was interrupted
 * @property {number} netBytes     bytes of the objects downloaded
 * @property {number} grossBytes   bytes received for them (duplicates included)
 * @property {number} wallMs       from the first download's start to the last one's end
 * @property {number} goodputBps   netBytes over wallMs, bytes/s (set-up between objects included)
 * @property {number} normalizedGoodput  netBytes / grossBytes (0 when nothing was received)
 * @property {{opened: number, reused: number} | null} connections  WebRTC connections the run
 *   opened and reused (MUTP modes; null for HTTP)
 */

/**
 * @param {number} objects  URLs asked for
 * @param {Array<{stats: {netBytes: number, grossBytes: number}, failed: boolean}>} results  one per download tried, in order
 * @param {number} wallMs
 * @param {{opened: number, reused: number} | null} connections
 * @returns {BatchSummary}
 */
export function summarize(objects, results, wallMs, connections) {
  const ok = results.filter((r) => !r.failed);
  const netBytes = ok.reduce((a, r) => a + r.stats.netBytes, 0);
  const grossBytes = results.reduce((a, r) => a + (r.stats.grossBytes ?? 0), 0);
  return {
    objects, ok: ok.length, failed: results.length - ok.length, notTried: objects - results.length,
    netBytes, grossBytes, wallMs,
    goodputBps: wallMs > 0 ? (netBytes / wallMs) * 1000 : 0,
    normalizedGoodput: grossBytes > 0 ? netBytes / grossBytes : 0,
    connections,
  };
}
