// Range-split HTTP baseline: the protocol's range scheduler (MSPlayer harmonic-mean sizing,
// tail duplication) hands out byte ranges; every range is one HTTP request and pays one RTT.
// The client assembles the winning copy of each range and checks it byte for byte.

import { createRangeScheduler } from '@mutp/protocol';
import { startTcpStream } from './tcp-stream.js';

/**
 * @param {import('./network.js').Network} net
 * @param {{size: number, data: Uint8Array, overheadBytes: number, schedulerOptions?: object}} job
 * @returns {Promise<import('./simulate.js').RunResult>}
 */
export async function runRangeHttp(net, { size, data, overheadBytes, schedulerOptions }) {
  const q = net.queue;
  const n = net.sources.length;
  const sched = createRangeScheduler({ size, sourceCount: n, ...schedulerOptions });
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
  const started = new Array(n).fill(false);
  let wakeScheduled = Infinity;

  /** @param {number} i */
  function request(i) {
    if (doneMs !== null || active[i]) return;
    const range = sched.nextRange(i, q.now);
    if (!range) return;
    requests++;
    const link = net.sources[i];
    const fetchMs = started[i] ? 0 : link.startDelayMs; // the proxy fetches the origin once
    started[i] = true;
    const len = range.end - range.start;
    const slot = { range, got: 0, stream: /** @type {{cancel: () => void}} */ (/** @type {unknown} */ (null)) };
    slot.stream = startTcpStream(net, i, len, q.now + link.delayMs + fetchMs, (_offset, count) => {
      if (doneMs !== null || active[i] !== slot) return;
      if (ttfbMs === null) ttfbMs = q.now;
      if (slot.got === 0) sched.onFirstByte(i, q.now);
      grossBytes += count;
      slot.got += count;
      if (slot.got === len) onDone(i, slot);
    }, overheadBytes);
    active[i] = slot;
  }

  /**
   * @param {number} i
   * @param {{range: {start: number, end: number}, got: number}} slot
   */
  function onDone(i, slot) {
    active[i] = null;
    const { accepted, cancel } = sched.onRangeDone(i, slot.range, slot.got, q.now);
    if (accepted) {
      const { start, end } = slot.range;
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
  pollIdle();
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
    ranges: sched.completedRanges(),
  };
}
