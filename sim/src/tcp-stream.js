// A TCP-like HTTP response body on one connection per source: MSS-sized segments at the link's
// rate under the connection's congestion window (tcp-cc.js: cubic or bbr), kept across the
// ranges of one download. A download starts from Linux's initial window, or on a kept
// connection from what its previous download left after the idle time (tcp-cc.js afterIdle).
// Random loss, as the testbed drops it (at each receiver, both directions):
// - a data segment lost still used the uplink; the sender finds out as Linux's RACK-TLP does
//   (RFC 8985): once a segment sent after it is acknowledged and either DUPTHRESH_SEGMENTS
//   later ones are, or a quarter round trip more passed (RACK's reordering window). The last
//   segment sent, with none after it, is resent by the tail loss probe TLP_PROBE_RTTS round
//   trips after it left; a lost segment before it is found by the probe's acknowledgement, a
//   round trip later. It is retransmitted at once. A loss event cuts the window at most once
//   per round trip (the recovery point: the highest segment sent when it began). A lost
//   retransmission is found the same way after a later segment, or else waits for the
//   retransmission timeout (srtt + Linux's 200 ms floor, doubled each time in a row);
// - an ACK lost: the next one carries its news (cumulative with SACK); when none follows, the
//   sender's tail loss probe draws one, TLP_PROBE_RTTS round trips later;
// - a request lost (client to proxy) is sent again after the retransmission timeout.
// ACKs are per segment (delayed ACKs not modelled); bytes count at the client as they arrive
// (a range is complete once every byte arrived, so head-of-line blocking does not move its end).
// The uplink's shaper queue (Network.queueFull) drops what overflows it, as random loss; HyStart
// (Linux cubic's) ends slow start once a segment waited there longer than its delay threshold.
// Not modelled: loss of the handshake, PRR's spacing of the recovery.

import { createTcpCc, afterIdle } from './tcp-cc.js';

/** TCP payload per segment on a 1500-byte Ethernet MTU (1500 - 20 IP - 20 TCP), bytes. */
export const TCP_MSS_BYTES = 1460;
export { TCP_INITIAL_CWND_SEGMENTS } from './tcp-cc.js';
/** SACK's loss threshold (RFC 6675): a segment is lost once this many later ones arrived. */
const DUPTHRESH_SEGMENTS = 3;
/** Linux's minimum retransmission timeout (ms): RTO = srtt + max(4·rttvar, this). */
const TCP_RTO_MIN_MS = 200;
/** RFC 8985: the tail loss probe goes 2 srtt after the last send (Linux's PTO with more than one segment out). */
const TLP_PROBE_RTTS = 2;
/** RFC 8985: RACK's reordering window, a quarter of the minimum round trip. */
const RACK_REO_WND_RTTS = 1 / 4;
/** HyStart's delay threshold (Linux: min RTT / 8, clamped to 4–16 ms): a queue this long ends slow start. */
const HYSTART_DELAY_DIVISOR = 8;
const HYSTART_DELAY_MIN_MS = 4;
const HYSTART_DELAY_MAX_MS = 16;
/** RTT samples HyStart takes at the start of each round (Linux's HYSTART_MIN_SAMPLES). */
const HYSTART_SAMPLES = 8;

/**
 * Time a new connection spends on its handshake before the client can send a request: the
 * SYN / SYN-ACK round trip (the request goes with the final ACK); 0 on a kept connection.
 * @param {import('./network.js').SourceLink} link
 */
export function tcpHandshakeMs(link) {
  return link.newTcp ? 2 * link.delayMs : 0;
}

/**
 * A segment lost on the link, until the sender finds out.
 * @typedef {{ seq: number, event: number, sentAt: number, done: boolean, resend: () => void }} LostSegment
 *   event: the number of the segment's first copy (one loss event however often it is lost);
 *   sentAt: when it left the uplink (ms)
 */

/**
 * One TCP connection per source and download.
 * @typedef {object} TcpConn
 * @property {ReturnType<typeof createTcpCc>} cc
 * @property {number} inflight        segments sent, not acknowledged nor known lost
 * @property {number} seq             the last segment's number on the connection
 * @property {number} recoverUntil    a loss of a segment up to this one belongs to the current event
 * @property {number} rttMs           the path's round trip (its srtt)
 * @property {Set<() => void>} pumps  its live streams' senders, run when the window opens
 * @property {number} ackPending      client side: segments arrived, not yet acknowledged to the source
 * @property {number} ackHigh         client side: the highest segment arrived
 * @property {boolean} probeArmed     client side: a tail loss probe will draw the pending ACK
 * @property {LostSegment[]} lostQueue  lost segments not yet detected, in send order
 * @property {{ roundEnd: number, samples: number, minWaitMs: number }} hystart  the current slow-start round's samples
 */

/**
 * @param {import('./network.js').Network} net
 * @param {number} i
 * @param {import('./tcp-cc.js').TcpCcKind} [kind]
 * @param {import('./tcp-cc.js').TcpCcState | null} [prior]  a kept connection's window after its idle time (tcp-cc.js afterIdle)
 * @returns {TcpConn}
 */
export function createTcpConn(net, i, kind = 'cubic', prior = null) {
  const link = net.sources[i];
  const rttMs = pathRttMs(link);
  const bdp = (link.rateBps * rttMs) / 1000 / TCP_MSS_BYTES;
  return { cc: createTcpCc(kind, bdp, prior), inflight: 0, seq: 0, recoverUntil: 0, rttMs, pumps: new Set(), ackPending: 0, ackHigh: 0, probeArmed: false, lostQueue: [], hystart: { roundEnd: 0, samples: 0, minWaitMs: Infinity } };
}

/** A path's round trip with an empty queue (ms): what the connection's srtt settles at. @param {import('./network.js').SourceLink} link */
function pathRttMs(link) {
  return 2 * link.delayMs + (TCP_MSS_BYTES * 1000) / link.rateBps;
}

/**
 * A kept connection's window at the start of a download: what the previous one left, after
 * `idleMs` of quiet (tcp-cc.js afterIdle, with the path's RTO).
 * @param {import('./tcp-cc.js').TcpCcKind} kind @param {import('./network.js').SourceLink} link @param {import('./tcp-cc.js').TcpCcState} left @param {number} idleMs
 */
export function keptTcpWindow(kind, link, left, idleMs) {
  return afterIdle(kind, left, idleMs, rtoMs({ rttMs: pathRttMs(link) }, 0));
}

/** The retransmission timeout (ms), after `backoffs` timeouts in a row. @param {{ rttMs: number }} conn @param {number} backoffs */
export function rtoMs(conn, backoffs) {
  return (conn.rttMs + TCP_RTO_MIN_MS) * 2 ** backoffs;
}

/**
 * When a request the client sends on source i's connection at `sentAt` (default now) reaches the
 * proxy: one delay, plus a retransmission timeout for each time it is lost.
 * @param {import('./network.js').Network} net @param {number} i @param {TcpConn} conn @param {number} [sentAt]
 */
export function requestArrivesAt(net, i, conn, sentAt = net.queue.now) {
  const link = net.sources[i];
  let t = sentAt;
  for (let k = 0; link.loss > 0 && net.prng.next() < link.loss; k++) t += rtoMs(conn, k);
  return t + link.delayMs;
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
 * @param {TcpConn} conn  the source's connection (its window)
 */
export function startTcpStream(net, i, length, startMs, onBytes, overheadBytes, conn) {
  const link = net.sources[i];
  const q = net.queue;
  const { cc } = conn;
  const hystartMs = Math.min(HYSTART_DELAY_MAX_MS, Math.max(HYSTART_DELAY_MIN_MS, conn.rttMs / HYSTART_DELAY_DIVISOR));
  let sent = 0;
  let closedAtClient = false;
  let stopAtSource = Infinity;
  let started = false;

  /**
   * Put one segment on the uplink; a lost one is queued for detection.
   * @param {number} offset @param {number} retries lost copies before this one
   * @param {number} [event] a retransmission: its first copy's number (its loss event's)
   */
  function sendSegment(offset, retries, event) {
    const count = Math.min(TCP_MSS_BYTES, length - offset);
    const seq = ++conn.seq;
    conn.inflight++;
    const wire = count + overheadBytes;
    // bbr paces at the bottleneck rate: its segments do not pile up in the shaper's queue
    const full = cc.kind !== 'bbr' && net.queueFull(i, wire);
    const end = full ? q.now : net.serialize(i, wire);
    if (!full && cc.cwnd < cc.ssthresh) hystartSample(seq, end - q.now - (wire * 1000) / link.rateBps, end);
    if (full || (link.loss > 0 && net.prng.next() < link.loss)) {
      // RACK finds a lost segment, a retransmission too, once one sent after it is acknowledged
      // (onAck); with none after it the tail loss probe does, or for a retransmission the timeout
      const entry = { seq, event: event ?? seq, sentAt: end, done: false, resend: () => sendSegment(offset, retries + 1, entry.event) };
      conn.lostQueue.push(entry);
      if (retries === 0) {
        q.at(end + TLP_PROBE_RTTS * conn.rttMs, () => {
          // the probe resends the last segment sent: this one, or one whose ACK shows this lost
          if (entry.seq === conn.seq) detect(entry);
          else q.at(q.now + conn.rttMs, () => detect(entry));
        });
      } else {
        q.at(end + rtoMs(conn, retries - 1), () => {
          if (entry.done) return;
          cc.onTimeout();
          conn.recoverUntil = conn.seq;
          detect(entry);
        });
      }
      return;
    }
    net.toClient(i, count + overheadBytes, end, () => {
      if (!closedAtClient) onBytes(offset, count);
      atClient(seq);
    }, false);
  }

  /**
   * HyStart's delay test: the least queue wait of a round's first HYSTART_SAMPLES segments (what
   * their ACKs' RTTs show, one round trip on) above the threshold ends slow start.
   * @param {number} seq @param {number} waitMs @param {number} end
   */
  function hystartSample(seq, waitMs, end) {
    const h = conn.hystart;
    if (seq > h.roundEnd) {
      h.roundEnd = seq + Math.ceil(cc.cwnd);
      h.samples = 0;
      h.minWaitMs = Infinity;
    }
    if (h.samples >= HYSTART_SAMPLES) return;
    h.minWaitMs = Math.min(h.minWaitMs, waitMs);
    if (++h.samples === HYSTART_SAMPLES && h.minWaitMs > hystartMs) q.at(end + conn.rttMs, cc.exitSlowStart);
  }

  /** The sender learns a segment was lost: a loss event (unless its recovery is on), and the segment again. @param {LostSegment} entry */
  function detect(entry) {
    if (entry.done) return;
    entry.done = true;
    conn.inflight--;
    if (entry.event > conn.recoverUntil) {
      cc.onLoss();
      conn.recoverUntil = conn.seq;
    }
    if (q.now < stopAtSource) entry.resend();
    pumpAll();
  }

  /** The client acknowledges what arrived (lost ACKs leave their news to the next). @param {number} seq */
  function atClient(seq) {
    conn.ackPending++;
    if (seq > conn.ackHigh) conn.ackHigh = seq;
    sendAck();
  }

  function sendAck() {
    if (link.loss > 0 && net.prng.next() < link.loss) {
      if (!conn.probeArmed) {
        conn.probeArmed = true;
        q.at(q.now + TLP_PROBE_RTTS * conn.rttMs, () => {
          conn.probeArmed = false;
          if (conn.ackPending > 0) sendAck();
        });
      }
      return;
    }
    const acked = conn.ackPending;
    const high = conn.ackHigh;
    conn.ackPending = 0;
    q.at(q.now + link.delayMs, () => onAck(acked, high));
  }

  /** @param {number} acked @param {number} high */
  function onAck(acked, high) {
    // Linux grows the window only while it limits the sender (tcp_is_cwnd_limited)
    const limited = cc.cwnd < cc.ssthresh ? 2 * conn.inflight >= cc.cwnd : conn.inflight >= cc.cwnd - 1;
    conn.inflight -= acked;
    if (limited && high > conn.recoverUntil) cc.onAck(acked, q.now);
    const lq = conn.lostQueue;
    while (lq.length > 0 && (lq[0].done || lq[0].seq < high)) {
      const e = /** @type {LostSegment} */ (lq.shift());
      const rackAt = e.sentAt + (1 + RACK_REO_WND_RTTS) * conn.rttMs;
      if (e.seq <= high - DUPTHRESH_SEGMENTS || q.now >= rackAt) detect(e);
      else q.at(rackAt, () => detect(e));
    }
    pumpAll();
  }

  function pumpAll() {
    for (const p of conn.pumps) p();
  }

  function sendNext() {
    started = true;
    if (sent >= length || q.now >= stopAtSource) {
      conn.pumps.delete(sendNext);
      return;
    }
    while (sent < length && conn.inflight < cc.cwnd) {
      const offset = sent;
      sent += Math.min(TCP_MSS_BYTES, length - sent);
      sendSegment(offset, 0);
    }
  }
  q.at(startMs, () => {
    if (started) return;
    conn.pumps.add(sendNext);
    sendNext();
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
