// Init sections downloaded ahead: when the page reads a manifest, the frame downloads the first
// init sections it names through the fleet at once, while the player still sets up, and keeps
// what each download would have sent the page. When the player asks for one, it gets that
// download: what came so far at once, the rest as it comes. A DASH player asks for its init
// sections before any media segment; this way that request need not wait, after the player asks,
// for a fleet round trip (the proxies, and their origin fetch on a first load).
// A download no request took leaves no record (the proxies' own records show it), as the
// proxies' digest prefetch leaves none. No timers: entries past their time go at the next call.

import { codedError } from '@mutp/common/errors';

/** At most this many sections per page are downloaded ahead (a few renditions' and the audio's); the rest only prefetched at the proxies. */
export const AHEAD_MAX_PER_PAGE = 8;
/** A download ahead not asked for within this long (ms) is dropped: the player chose other renditions. */
export const AHEAD_KEEP_MS = 30_000;
/** A section ahead larger than this (bytes) is no init section: its download stops, and a request for it downloads anew. */
export const AHEAD_MAX_BYTES = 256 * 1024;

/** Why a download ahead is stopped before a request took it: the `abort` callback's reasons. */
export const AHEAD_STOPPED = Object.freeze({
  UNASKED: `no request took the download ahead within ${AHEAD_KEEP_MS} ms`,
  TOO_LARGE: `the download ahead passed ${AHEAD_MAX_BYTES} bytes: no init section`,
});

/**
 * @typedef {{send: (msg: {t: string, id: number, buf?: ArrayBuffer}, transfer?: Transferable[]) => void,
 *   record: (r: object, seen: string | null) => void}} Out  where a download's messages and records go
 * @typedef {{id: number, startedAt: number, sent: {msg: any, transfer?: Transferable[]}[], records: {r: object, seen: string | null}[],
 *   bytes: number, ended: 'end' | 'fail' | null, to: (Out & {id: number, how: string}) | null}} Entry
 */

/**
 * @param {object} o
 * @param {() => number} o.now  ms
 * @param {(id: number, err: Error) => void} o.abort  stops the download with this id
 */
export function createServedAhead({ now, abort }) {
  /** @type {Map<string, Entry>} by object key, until a request takes it */
  const byKey = new Map();
  /** @type {Map<number, Entry>} by the page's request id, from its take until the download ends */
  const byRequest = new Map();
  let started = 0;
  let nextId = -1; // the page's ids are ≥ 0

  /** Entries past their time: dropped, their downloads stopped. */
  function prune() {
    for (const [key, e] of byKey) {
      if (now() - e.startedAt <= AHEAD_KEEP_MS) continue;
      byKey.delete(key);
      if (!e.ended) abort(e.id, codedError('ERR_ABORTED', AHEAD_STOPPED.UNASKED));
    }
  }

  /**
   * Where a download ahead's messages and records go: kept until a request takes it, then to it.
   * @param {string} key @param {Entry} e
   * @returns {Out}
   */
  function outOf(key, e) {
    return {
      send(msg, transfer) {
        if (msg.t === 'end' || msg.t === 'fail') {
          e.ended = msg.t;
          if (e.to) byRequest.delete(e.to.id);
        }
        if (e.to) return e.to.send({ ...msg, id: e.to.id }, transfer);
        e.bytes += msg.buf?.byteLength ?? 0;
        e.sent.push({ msg, transfer });
        if (e.bytes > AHEAD_MAX_BYTES && byKey.get(key) === e) {
          byKey.delete(key);
          if (!e.ended) abort(e.id, codedError('ERR_ABORTED', AHEAD_STOPPED.TOO_LARGE));
        }
      },
      record(r, seen) {
        if (e.to) e.to.record(asked(r, e.to.how), seen === null ? null : e.to.how);
        else e.records.push({ r, seen });
      },
    };
  }

  /**
   * A download ahead for this object, or null when the page had its share or has it already.
   * Run the download with the entry's `id` and `out`.
   * @param {string} key
   * @returns {{id: number, out: Out} | null}
   */
  function start(key) {
    prune();
    if (started >= AHEAD_MAX_PER_PAGE || byKey.has(key)) return null;
    started += 1;
    /** @type {Entry} */
    const e = { id: nextId--, startedAt: now(), sent: [], records: [], bytes: 0, ended: null, to: null };
    byKey.set(key, e);
    return { id: e.id, out: outOf(key, e) };
  }

  /**
   * The download ahead of this object for the page's request `id`, once: what it sent so far goes
   * to `to` now with the request's id, the rest as it comes. Null when there is none, or it failed
   * before the request (a new download then meets the breakers as they are now).
   * @param {string} key @param {Out & {id: number, how: string}} to
   * @returns {{id: number, running: boolean} | null}  the download's id, and whether it still runs
   */
  function take(key, to) {
    prune();
    const e = byKey.get(key);
    if (!e) return null;
    byKey.delete(key);
    if (e.ended === 'fail') return null;
    e.to = to;
    if (e.ended === null) byRequest.set(to.id, e);
    for (const { msg, transfer } of e.sent.splice(0)) to.send({ ...msg, id: to.id }, transfer);
    for (const { r, seen } of e.records.splice(0)) to.record(asked(r, to.how), seen === null ? null : to.how);
    return { id: e.id, running: e.ended === null };
  }

  /**
   * The page aborted its request `id`: the download ahead it took, if it still runs, stops.
   * @param {number} id @param {Error} err
   * @returns {boolean}  whether the request had taken one that still ran
   */
  function abortTaken(id, err) {
    const e = byRequest.get(id);
    if (!e) return false;
    byRequest.delete(id);
    abort(e.id, err);
    return true;
  }

  return { start, take, abortTaken };
}

/**
 * A record of a download ahead, as the request that took it reports it: it says so, the
 * request's `segment` (why the page took it for one), and no hop marks (they time the request
 * from the page, which came after the download began).
 * @param {object} r @param {string} how
 */
function asked(r, how) {
  const { hops: _hops, ...rest } = /** @type {Record<string, unknown>} */ (r);
  return { ...rest, segment: how, ahead: true };
}
