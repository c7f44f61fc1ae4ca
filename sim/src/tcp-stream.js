// A TCP-like HTTP response body: MSS-sized segments at the source's rate, under a congestion
// window in slow start: it starts at Linux's initial window (10 segments) and grows by one
// segment per acknowledged segment (about doubling per round trip; ACKs return one delay after
// each segment arrives, delayed ACKs not modelled), kept across the ranges of one download on
// the same connection. A kept connection that sat idle restarts from the initial window
// (Linux's tcp_slow_start_after_idle), so every download starts there. Cubic's growth past
// slow start and loss recovery are not modelled: under random loss the rate is capped by the
// Mathis et al. (1997) bound MSS/RTT · sqrt(3/2)/sqrt(p) instead (segments are not dropped).

/** TCP payload per segment on a 1500-byte Ethernet MTU (1500 - 20 IP - 20 TCP), bytes. */
export const TCP_MSS_BYTES = 1460;
/** Mathis constant sqrt(3/2) for periodic loss with delayed ACKs off. */
const MATHIS_C = Math.sqrt(1.5);
/** Linux's initial congestion window (segments), RFC 6928; also where an idle connection restarts. */
export const TCP_INITIAL_CWND_SEGMENTS = 10;

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
 * Time a new connection spends on its handshake before the client can send a request: the
 * SYN / SYN-ACK round trip (the request goes with the final ACK); 0 on a kept connection.
 * @param {import('./network.js').SourceLink} link
 */
export function tcpHandshakeMs(link) {
  return link.newTcp ? 2 * link.delayMs : 0;
}

/**
 * One TCP connection per source and download: its congestion window and segments in flight.
 * @typedef {{ cwnd: number, inflight: number }} TcpConn
 */

/** @returns {TcpConn} */
export function createTcpConn() {
  return { cwnd: TCP_INITIAL_CWND_SEGMENTS, inflight: 0 };
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
 * @param {TcpConn} [conn]  the source's connection (its window); a fresh one by default
 */
export function startTcpStream(net, i, length, startMs, onBytes, overheadBytes, conn = createTcpConn()) {
  const link = net.sources[i];
  const rate = tcpRateBps(link);
  const q = net.queue;
  let sent = 0;
  let closedAtClient = false;
  let stopAtSource = Infinity;
  let started = false;
  function sendNext() {
    started = true;
    while (sent < length && q.now < stopAtSource && conn.inflight < conn.cwnd) {
      const count = Math.min(TCP_MSS_BYTES, length - sent);
      const offset = sent;
      sent += count;
      conn.inflight++;
      // Serialise at the TCP rate (which may be below the link rate under loss).
      const startT = Math.max(q.now, net.uplinkFree[i]);
      const end = startT + ((count + overheadBytes) * 1000) / rate;
      net.uplinkFree[i] = end;
      net.toClient(i, count + overheadBytes, end, () => {
        if (!closedAtClient) onBytes(offset, count);
        // its ACK reaches the source one delay later
        q.at(q.now + link.delayMs, () => {
          conn.inflight--;
          conn.cwnd++;
          sendNext();
        });
      }, false);
    }
  }
  q.at(startMs, () => {
    if (!started) sendNext();
  });
  return {
    cancel() {
      if (closedAtClient) return;
      closedAtClient = true;
      stopAtSource = q.now + link.delayMs;
      // The source's link is busy with bytes it will still push until the abort reaches it.
    },
  };
}
