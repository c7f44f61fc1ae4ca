// A TCP-like HTTP response body: MSS-sized segments serialised at the source's rate, capped
// by the Mathis et al. (1997) steady-state bound MSS/RTT * sqrt(3/2) / sqrt(p) when the link
// loses packets. Loss itself is not dropped here (TCP retransmits); it only lowers the rate.

/** TCP payload per segment on a 1500-byte Ethernet MTU (1500 - 20 IP - 20 TCP), bytes. */
export const TCP_MSS_BYTES = 1460;
/** Mathis constant sqrt(3/2) for periodic loss with delayed ACKs off. */
const MATHIS_C = Math.sqrt(1.5);

/**
 * Rate a TCP flow reaches on a link, bytes/s.
 * @param {import('./network.js').SourceLink} link
 */
export function tcpRateBps(link) {
  if (link.loss <= 0) return link.rateBps;
  const rttS = Math.max((2 * link.delayMs) / 1000, 1e-3); // guard: 0 ms RTT would be unbounded
  return Math.min(link.rateBps, (TCP_MSS_BYTES / rttS) * (MATHIS_C / Math.sqrt(link.loss)));
}

/**
 * Stream `length` bytes from source i, starting at simulated time `startMs` at the source.
 * onBytes(offset, count) runs per segment at the client; cancel() stops it (the client
 * closes the connection: later arrivals are dropped; the source stops one delay later).
 * @param {import('./network.js').Network} net
 * @param {number} i
 * @param {number} length
 * @param {number} startMs
 * @param {(offset: number, count: number) => void} onBytes
 * @param {number} overheadBytes  per-segment header bytes on the wire
 */
export function startTcpStream(net, i, length, startMs, onBytes, overheadBytes) {
  const link = net.sources[i];
  const rate = tcpRateBps(link);
  const q = net.queue;
  let sent = 0;
  let closedAtClient = false;
  let stopAtSource = Infinity;
  function sendNext() {
    if (sent >= length || q.now >= stopAtSource) return;
    const count = Math.min(TCP_MSS_BYTES, length - sent);
    const offset = sent;
    sent += count;
    // Serialise at the TCP rate (which may be below the link rate under loss).
    const startT = Math.max(q.now, net.uplinkFree[i]);
    const end = startT + ((count + overheadBytes) * 1000) / rate;
    net.uplinkFree[i] = end;
    net.toClient(i, count + overheadBytes, end, () => {
      if (!closedAtClient) onBytes(offset, count);
    }, false);
    q.at(end, sendNext);
  }
  q.at(startMs, sendNext);
  return {
    cancel() {
      if (closedAtClient) return;
      closedAtClient = true;
      stopAtSource = q.now + link.delayMs;
      // The source's link is busy with bytes it will still push until the abort reaches it.
    },
  };
}
