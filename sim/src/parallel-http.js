// Parallel HTTP baseline (paper III): every source sends the whole object; the first
// response to finish wins and the others are aborted at that moment.

import { startTcpStream, tcpHandshakeMs, createTcpConn, requestArrivesAt } from './tcp-stream.js';

/**
 * @param {import('./network.js').Network} net
 * @param {{size: number, data: Uint8Array, overheadBytes: number, tcpCc?: import('./tcp-cc.js').TcpCcKind}} job
 * @returns {Promise<import('./simulate.js').RunResult>}
 */
export async function runParallelHttp(net, { size, data, overheadBytes, tcpCc }) {
  const q = net.queue;
  const n = net.sources.length;
  let grossBytes = 0;
  let ttfbMs = null;
  let doneMs = null;
  let winner = -1;
  const received = new Array(n).fill(0);
  /** @type {Array<{cancel: () => void}>} */
  const streams = [];
  for (let i = 0; i < n; i++) {
    const link = net.sources[i];
    // The request reaches the proxy after one delay (after the handshake's round trip on a new
    // connection); it fetches the origin, then streams.
    const conn = createTcpConn(net, i, tcpCc);
    const startAt = tcpHandshakeMs(link) + requestArrivesAt(net, i, conn) + link.startDelayMs;
    streams.push(startTcpStream(net, i, size, startAt, (_offset, count) => {
      if (doneMs !== null) return;
      if (ttfbMs === null) ttfbMs = q.now;
      grossBytes += count;
      received[i] += count;
      if (received[i] === size) {
        doneMs = q.now;
        winner = i;
        for (let k = 0; k < n; k++) if (k !== i) streams[k].cancel();
      }
    }, overheadBytes, conn));
  }
  if (size === 0) return emptyResult();
  q.run(() => doneMs !== null, Infinity);
  if (doneMs === null) return { ...emptyResult(), ok: false, error: 'ERR_SIM_STALLED' };
  return {
    ok: true,
    error: null,
    durationMs: doneMs,
    grossBytes,
    netBytes: size,
    ttfbMs,
    duplicates: n - 1,
    packets: n,
    verified: data.length === size, // the winner's stream carries the object unchanged
    winner,
  };
}

function emptyResult() {
  return { ok: true, error: null, durationMs: 0, grossBytes: 0, netBytes: 0, ttfbMs: null, duplicates: 0, packets: 0, verified: true, winner: -1 };
}
