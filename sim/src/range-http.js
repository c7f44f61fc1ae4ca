// Range-split HTTP baseline as the live client runs it: first a digest-list request to every proxy
// at once (it tells the size and makes every proxy fetch the origin; modelled as a 1-byte probe);
// with the lists an earlier download of the object left the client (keptLists: the client keeps
// them 30 s) none goes out, and the ranges start at once. Once a strict majority answered (the
// live client's size vote, createBlockVote: no proxy alone sets the size) the protocol's block
// range scheduler (MSPlayer harmonic-mean sizing, tail duplication, whole 64 KiB digest blocks)
// hands out ranges (a small object in one share per source, by the sources' rates; ranges of
// many round trips once a source's latency is known); every range is one HTTP request on the
// source's connection and pays one RTT, and the connection's TCP window (tcp-stream.js) carries over from range to range. The
// client assembles the winning copy of each range and checks it byte for byte.

import { BLOCK_BYTES, blockCount, createBlockRangeScheduler, createBlockVote } from '@mutp/protocol';
import { startTcpStream, createTcpConn, tcpHandshakeMs, requestArrivesAt } from './tcp-stream.js';

/**
 * @param {import('./network.js').Network} net
 * @param {{size: number, data: Uint8Array, overheadBytes: number, schedulerOptions?: object, tcpCc?: import('./tcp-cc.js').TcpCcKind,
 *   tcpPrior?: Array<import('./tcp-cc.js').TcpCcState | null>, keptLists?: boolean}} job  tcpPrior: per source, a kept connection's window
 *   (null: a new one's); keptLists: the client holds every proxy's digest list of the object (the proxies its cached copy)
 * @returns {Promise<import('./simulate.js').RunResult>}
 */
export async function runRangeHttp(net, { size, data, overheadBytes, schedulerOptions, tcpCc, tcpPrior, keptLists = false }) {
  const q = net.queue;
  const n = net.sources.length;
  // in whole digest blocks, as the live client: a range [b, e) of blocks is bytes [b·BLOCK, min(e·BLOCK, size))
  // the first ranges' shares follow the sources' rates, as the live client's follow Origo's advertised ones
  const sched = createBlockRangeScheduler(blockCount(size), n, { priorRates: net.sources.map((l) => l.rateBps), ...schedulerOptions });
  const bytesOf = (/** @type {{start: number, end: number}} */ r) => ({ start: r.start * BLOCK_BYTES, end: Math.min(r.end * BLOCK_BYTES, size) });
  const out = new Uint8Array(size);
  /** Accepted ranges, to check they tile the object exactly once. @type {Array<[number, number]>} */
  const written = [];
  let grossBytes = 0;
  let ttfbMs = null;
  let requests = 0;
  let copiesLost = 0;
  let doneMs = null;
  /** @type {Array<{range: {start: number, end: number}, got: number, stream: {cancel: () => void}} | null>} */
  const active = new Array(n).fill(null);
  const conns = net.sources.map((_, i) => createTcpConn(net, i, tcpCc, tcpPrior?.[i] ?? null));
  /** when each connection can carry a request (after the handshake on a new one), ms */
  const readyAt = net.sources.map((l) => tcpHandshakeMs(l));
  /** when each proxy has the object (its probe reached it and it fetched the origin; with kept lists, its cached copy), ms */
  const fetchedAt = keptLists ? readyAt : net.sources.map((l, i) => readyAt[i] + requestArrivesAt(net, i, conns[i]) + l.startDelayMs);
  let probed = false;
  /** the live client's size vote: the size is known once a strict majority of the proxies said it */
  const sizeVote = createBlockVote({ sources: n });
  let wakeScheduled = Infinity;

  /** @param {number} i */
  function request(i) {
    if (doneMs !== null || active[i]) return;
    const range = sched.nextRange(i, q.now);
    if (!range) return;
    requests++;
    const bytes = bytesOf(range);
    const len = bytes.end - bytes.start;
    const slot = { range, got: 0, stream: /** @type {{cancel: () => void}} */ (/** @type {unknown} */ (null)) };
    slot.stream = startTcpStream(net, i, len, Math.max(requestArrivesAt(net, i, conns[i], Math.max(q.now, readyAt[i])), fetchedAt[i]), (_offset, count) => {
      if (doneMs !== null || active[i] !== slot) return;
      if (ttfbMs === null) ttfbMs = q.now;
      if (slot.got === 0) sched.onFirstByte(i, q.now); // the request's latency, apart from the rate (as the live client)
      grossBytes += count;
      slot.got += count;
      if (slot.got === len) onDone(i, slot);
    }, overheadBytes, conns[i]);
    active[i] = slot;
  }

  /**
   * @param {number} i
   * @param {{range: {start: number, end: number}, got: number}} slot
   */
  function onDone(i, slot) {
    active[i] = null;
    const { accepted, cancel } = sched.onRangeDone(i, slot.range, slot.range.end - slot.range.start, q.now);
    if (accepted) {
      const { start, end } = bytesOf(slot.range);
      out.set(data.subarray(start, end), start);
      written.push([start, end]);
    }
    for (const h of cancel) {
      const other = active[h];
      if (other) other.stream.cancel();
      active[h] = null;
      copiesLost++;
    }
    if (sched.isComplete()) {
      doneMs = q.now;
      return;
    }
    pollIdle();
  }

  function pollIdle() {
    for (let k = 0; k < n; k++) request(k);
    const wake = sched.wakeAt();
    if (wake < Infinity && wake !== wakeScheduled && active.some((a) => a === null)) {
      wakeScheduled = wake;
      q.at(wake, pollIdle);
    }
  }

  if (size === 0) return { ok: true, error: null, durationMs: 0, grossBytes: 0, netBytes: 0, ttfbMs: null, duplicates: 0, packets: 0, verified: true };
  // the probe: one byte from every proxy; the ranges start once a majority answered
  if (keptLists) {
    probed = true;
    q.at(0, pollIdle);
  } else for (let i = 0; i < n; i++) {
    startTcpStream(net, i, 1, fetchedAt[i], () => {
      grossBytes += 1;
      sizeVote.claimSize(i, size);
      if (probed || sizeVote.size() === null) return;
      probed = true;
      pollIdle();
    }, overheadBytes, conns[i]);
  }
  q.run(() => doneMs !== null, Infinity);
  if (doneMs === null) return { ok: false, error: 'ERR_SIM_STALLED', durationMs: q.now, grossBytes, netBytes: 0, ttfbMs, duplicates: copiesLost, packets: requests, verified: false };
  // Every byte written exactly once (no gap, no overlap), and the bytes equal the object's.
  written.sort((a, b) => a[0] - b[0]);
  let at = 0;
  for (const [a, b] of written) at = a === at ? b : NaN;
  const exact = at === size && Buffer.compare(Buffer.from(out.buffer, out.byteOffset, size), Buffer.from(data.buffer, data.byteOffset, size)) === 0;
  return {
    ok: true,
    error: null,
    durationMs: doneMs,
    grossBytes,
    netBytes: size,
    ttfbMs,
    duplicates: copiesLost,
    packets: requests,
    verified: exact,
    tcpStates: conns.map((c) => c.cc.state()),
    ranges: sched.completedRanges().map(([b, e]) => [b * BLOCK_BYTES, Math.min(e * BLOCK_BYTES, size)]),
  };
}
