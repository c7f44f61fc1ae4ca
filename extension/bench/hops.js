// The players bench's per-hop split of a segment's time: the extension's marks (a record's
// `hops`, settings.hopTiming; extension/src/frame/hop-timing.js) lined up with the page's own
// request and response times (play.js), on the wall clock's time origin of each document.

/** Each hop: its name, and the marks it runs from and to ('page*' are the player's request and whole response). */
export const HOPS = /** @type {const} */ ([
  ['page → fleet', 'pageStart', 'receivedAt'], // page wrapper, port, the fleet host's queue
  ['fleet checks', 'receivedAt', 'libraryAt'], // breakers, the cached proxy list
  ['proxies + tickets', 'libraryAt', 'listedAt'], // ProxyClientLib's list/tickets
  ['connect + send', 'listedAt', 'sentAt'], // MUTP: connections from the pool (or opened) and the request
  ['first byte', 'sentAt', 'firstByteAt'], // the proxies' answer (origin fetch on a proxy's miss)
  ['first verified', 'firstByteAt', 'firstChunkAt'], // digest vote (HTTP) or meta vote and decode (MUTP)
  ['rest of body', 'firstChunkAt', 'doneAt'],
  ['end posted', 'doneAt', 'endAt'], // the head wait (MUTP) and the in-order finish
  ['port → player', 'endAt', 'pageEnd'], // the last bytes through the port and the page's response
]);

/** @param {string | null} header  `bytes=a-b` @returns {string | null} `a-b` */
const rangeKey = (header) => (header ? /^bytes=(\d+-\d+)$/.exec(header.trim())?.[1] ?? header : null);

/**
 * The records whose page response matches (same URL and range; the first unmatched response of
 * that pair), each with its marks on the page's clock (`pageStart`, `pageEnd`: the player's
 * request and whole response) and the segment's key.
 * @param {{url: string, mode?: string, hops?: Record<string, any>}[]} records
 * @param {{url: string, range: string | null, startAt?: number, endAt?: number}[]} responses
 * @returns {{record: {url: string, mode?: string}, key: string, at: Record<string, number | undefined>}[]}
 */
function matched(records, responses) {
  const used = new Set();
  const out = [];
  for (const r of records) {
    const h = r.hops;
    if (!h || !Number.isFinite(h.origin)) continue;
    const i = responses.findIndex((p, k) => !used.has(k) && p.url === r.url && rangeKey(p.range) === h.range);
    if (i < 0) continue;
    used.add(i);
    const p = responses[i];
    /** @type {Record<string, number | undefined>} */
    const at = { pageStart: p.startAt, pageEnd: p.endAt };
    for (const [k, v] of Object.entries(h)) if (k.endsWith('At') && Number.isFinite(v)) at[k] = h.origin + v;
    out.push({ record: r, key: `${r.url} ${h.range ?? ''}`, at });
  }
  return out;
}

/**
 * Each hop's duration (ms) for the segments whose record and page response match, and when the
 * page asked for it (`pageStart`, wall clock ms).
 * @param {{url: string, hops?: Record<string, any>}[]} records
 * @param {{url: string, range: string | null, startAt?: number, endAt?: number}[]} responses
 * @returns {Record<string, number>[]}
 */
export function hopDurations(records, responses) {
  return matched(records, responses).map(({ at }) => {
    /** @type {Record<string, number>} */
    const d = {};
    for (const [name, from, to] of HOPS) if (at[from] !== undefined && at[to] !== undefined) d[name] = /** @type {number} */ (at[to]) - /** @type {number} */ (at[from]);
    if (at.pageStart !== undefined && at.pageEnd !== undefined) d.total = at.pageEnd - at.pageStart;
    if (at.pageStart !== undefined) d.pageStart = at.pageStart;
    return d;
  });
}

/**
 * A segment's time after its first byte (the proxies' first answer → the whole body in the
 * player's hands), with the mode that served it (the record's: a MUTP download may have run in
 * Parallel HTTP while WebRTC warmed) and its key (URL and range), for comparing the same
 * segments across modes.
 * @param {{url: string, mode?: string, hops?: Record<string, any>}[]} records
 * @param {{url: string, range: string | null, startAt?: number, endAt?: number}[]} responses
 * @returns {{key: string, mode: string, ms: number}[]}
 */
export function afterFirstByte(records, responses) {
  return matched(records, responses)
    .filter(({ at }) => at.firstByteAt !== undefined && at.pageEnd !== undefined)
    .map(({ record, key, at }) => ({ key, mode: String(record.mode), ms: /** @type {number} */ (at.pageEnd) - /** @type {number} */ (at.firstByteAt) }));
}
