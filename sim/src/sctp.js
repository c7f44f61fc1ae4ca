// The live MUTP path's transport: one SCTP association (usrsctp under libdatachannel) from a
// proxy to the client, unreliable unordered channel. What is modelled, per source:
// - a send queue the application fills without limit (usrsctp takes every send at once);
// - the congestion window in packets: slow start (+min(acked, ABC_L) per SACK while cwnd is used
//   fully), congestion avoidance (+1 per window); a lost DATA chunk is abandoned, not resent
//   (FORWARD-TSN), once MISS_INDICATIONS later chunks arrived;
// - the sender's response to a chunk so abandoned (`sender`):
//   'usrsctp' (stock): it counts as a fast retransmit: fast recovery, at most once per window
//   (until every chunk sent before it is settled), ssthresh = cwnd/2 (at least 2 packets), cwnd =
//   ssthresh, and no growth until recovery ends (usrsctp's RFC 2581 module);
//   'loss-tolerant' (the tuned build's patch): none; the proxy's in-flight cap owns the response;
// - for both, the T3-rtx timeout (no SACK progress for an RTO, at least 200 ms, doubled at each
//   timeout in a row up to 10 s): cwnd 1, and ssthresh = max(cwnd/2, 4) (usrsctp) or, since every
//   chunk timed out is abandoned, no lower than it was nor than cwnd (the loss-tolerant patch);
// - usrsctp's cwnd-based max-burst rule: before each output pass cwnd = min(cwnd, flight +
//   maxBurst) (maxBurst 0 or Infinity: off), so a kept idle association restarts from maxBurst;
// - a kept association's cwnd (startCwnd Infinity): the stock sender's is where random loss left
//   it in the previous download (keptCwnd); the loss-tolerant one's is not limited by SCTP;
// - the client's delayed SACK: every SACK_EVERY_PACKETS packets, at once on a gap, else after
//   SACK_DELAY_MS; SACKs cross the reverse link (delay, loss).
// Not modelled: bundling, the receiver window, path MTU, retransmissions (unreliable channel),
// the FORWARD-TSN's own round trip before the cumulative ack passes an abandoned chunk.
import { SCTP_PACKET_OVERHEAD_BYTES, DTLS_RECORD_OVERHEAD_BYTES } from '@mutp/protocol/constants';

/** The SCTP senders modelled: usrsctp's stock one, and the tuned build's loss-tolerant one. */
export const SCTP_SENDERS = Object.freeze(/** @type {const} */ (['usrsctp', 'loss-tolerant']));
/** @typedef {typeof SCTP_SENDERS[number]} SctpSender */
/** The simulator's sender by default: the one the live proxy runs by default (the tuned build, MUTP_SCTP_LOSS_TOLERANT on). */
export const DEFAULT_SCTP_SENDER = 'loss-tolerant';
/** usrsctp's max burst (packets), sctp_use_cwnd_based_maxburst on: the stock value. */
export const SCTP_MAX_BURST_STOCK = 10;
/** Initial cwnd of a new association (packets): libdatachannel sets usrsctp's sctp_initial_cwnd to 10 (usrsctp's own default is 3). */
export const SCTP_INITIAL_CWND_PACKETS = 10;
/** Lowest ssthresh after a fast retransmit (packets): usrsctp's RFC 2581 module, 2 MTU. */
const SCTP_MIN_SSTHRESH_FR_PACKETS = 2;
/** Lowest ssthresh after a T3 timeout (packets): usrsctp, max(cwnd/2, 4 MTU) (RFC 4960 7.2.3). */
const SCTP_MIN_SSTHRESH_T3_PACKETS = 4;
/** ssthresh of a fresh association (packets): the peer's receive window, in effect unlimited here. */
const SCTP_INITIAL_SSTHRESH_PACKETS = 1e9;
/** Appropriate byte counting limit (packets per SACK in slow start): usrsctp's sctp_L2_abc_variable. */
const ABC_L_PACKETS = 2;
/** The client SACKs every this many packets (RFC 4960 6.2: at least every second packet). */
const SACK_EVERY_PACKETS = 2;
/** The client's delayed-SACK timer (ms): libdatachannel's setting. */
export const SACK_DELAY_MS = 20;
/** Minimum retransmission timeout (ms): libdatachannel sets usrsctp's RTO.min to 200 ms. */
const SCTP_MIN_RTO_MS = 200;
/** Maximum retransmission timeout (ms): libdatachannel sets usrsctp's RTO.max to 10 s. */
const SCTP_MAX_RTO_MS = 10_000;
/** Missing reports before a chunk counts as lost (RFC 4960 7.2.4: the fourth, i.e. three later SACKs). */
const MISS_INDICATIONS = 3;
/** Bytes of a SACK on the wire. */
const SACK_BYTES = 28 + 16;

/** Wire bytes of a full MUTP packet (1100-byte payload, headers, SCTP, DTLS, IP/UDP), for keptCwnd. */
const KEPT_PACKET_BYTES = 1245;

/**
 * The stock sender's cwnd on a kept association (packets): where the previous download left it.
 * Lossless: not limiting (cwnd grows whenever it limits). Under random loss p the window saw
 * usrsctp's AIMD sawtooth, whose mean is sqrt(3/(2p)) packets (halved every 1/p packets, +1 per
 * round trip), at most what the path holds (its BDP and shaper queue).
 * @param {import('./network.js').SourceLink} link
 */
export function keptCwnd(link) {
  if (!(link.loss > 0)) return Infinity;
  const bdp = (link.rateBps * 2 * link.delayMs) / 1000 / KEPT_PACKET_BYTES;
  const path = bdp + (link.queuePackets ?? Infinity);
  return Math.max(SCTP_MIN_SSTHRESH_FR_PACKETS, Math.min(path, Math.sqrt(1.5 / link.loss)));
}

/**
 * @param {object} o
 * @param {import('./network.js').Network} o.net
 * @param {number} o.source
 * @param {number} o.maxBurst          packets; 0 or Infinity: the rule is off
 * @param {number} o.startCwnd         packets: cwnd when the download starts (Infinity: a kept association's)
 * @param {SctpSender} [o.sender]      the response to an abandoned chunk (default DEFAULT_SCTP_SENDER)
 * @param {number} o.overheadBytes     lower-layer bytes per packet (IP, UDP, DTLS)
 * @param {(bytes: Uint8Array) => void} o.deliver   at the client
 * @param {() => boolean} o.over       the run has ended: stop scheduling
 */
export function createSctpPath(o) {
  const { net, source: i, deliver, over } = o;
  const q = net.queue;
  const link = net.sources[i];
  const burst = o.maxBurst > 0 && Number.isFinite(o.maxBurst) ? o.maxBurst : Infinity;
  const tolerant = (o.sender ?? DEFAULT_SCTP_SENDER) === 'loss-tolerant';
  const start = o.startCwnd === Infinity && !tolerant ? keptCwnd(link) : o.startCwnd;
  let cwnd = Math.min(start, burst);
  // a kept association's ssthresh is where its cwnd settled: it does not slow-start again
  let ssthresh = start !== o.startCwnd && start < Infinity ? start : SCTP_INITIAL_SSTHRESH_PACKETS;
  let partialAcked = 0;
  /** @type {Uint8Array[]} */
  const queue = [];
  let queueHead = 0;
  // sender: TSNs 1, 2, …; lost[tsn] is known at send time (the link decides), revealed by SACKs
  let nextTsn = 1;
  let flight = 0;
  /** highest TSN the sender knows arrived or abandoned, in order */
  let settled = 0;
  /** @type {Uint8Array} 1: lost on the link */
  let lost = new Uint8Array(1024);
  /** @type {Float64Array} send times, for the RTO */
  let sentAt = new Float64Array(1024);
  let recoverUntil = 0;
  /** after a timeout: lost chunks settle without waiting for miss indications */
  let abandonLost = false;
  /** the last retransmission timeout (ms): the next one is a full RTO later */
  let lastTimeoutAt = -Infinity;
  /** T3 timeouts since the last SACK that acknowledged new data: each doubles the RTO */
  let backoffs = 0;
  let rtoArmed = false;
  // client: the highest TSN received, and packets not yet SACKed
  let highest = 0;
  let unsacked = 0;
  let sackTimer = false;
  const stats = { sent: 0, lost: 0, queueDrops: 0, halvings: 0, timeouts: 0, maxCwnd: cwnd };

  function grow() {
    if (nextTsn < lost.length) return;
    const l2 = new Uint8Array(lost.length * 2);
    l2.set(lost);
    lost = l2;
    const s2 = new Float64Array(sentAt.length * 2);
    s2.set(sentAt);
    sentAt = s2;
  }

  /** usrsctp sends while flight < cwnd (one full packet counts one MTU: the testbed's logs show 10 packets under a 10-MTU max burst) */
  const room = () => flight < cwnd;

  /** One output pass: the max-burst rule, then send while the window allows. */
  function output() {
    if (burst !== Infinity && flight + burst < cwnd) cwnd = flight + burst;
    while (queueHead < queue.length && room()) {
      const bytes = queue[queueHead];
      queue[queueHead++] = /** @type {any} */ (undefined);
      const tsn = nextTsn++;
      grow();
      flight++;
      stats.sent++;
      const wire = bytes.length + SCTP_PACKET_OVERHEAD_BYTES + DTLS_RECORD_OVERHEAD_BYTES + o.overheadBytes;
      if (net.queueFull(i, wire)) {
        // the shaper's queue is full: dropped before the link, as htb's pfifo does
        sentAt[tsn] = q.now;
        lost[tsn] = 1;
        stats.lost++;
        stats.queueDrops++;
        continue;
      }
      const end = net.serialize(i, wire);
      sentAt[tsn] = end;
      const dropped = link.loss > 0 && net.prng.next() < link.loss;
      lost[tsn] = dropped ? 1 : 0;
      if (dropped) stats.lost++;
      else net.toClient(i, wire, end, () => atClient(tsn, bytes), false);
    }
    if (queueHead > 4096 && queueHead * 2 > queue.length) {
      queue.splice(0, queueHead);
      queueHead = 0;
    }
    if (flight > 0 && !rtoArmed) armRto();
  }

  function armRto() {
    rtoArmed = true;
    const rto = () => Math.min(SCTP_MAX_RTO_MS, Math.max(SCTP_MIN_RTO_MS, 3 * 2 * link.delayMs) * 2 ** backoffs);
    const due = () => Math.max(sentAt[settled + 1], lastTimeoutAt) + rto();
    q.at(due(), () => {
      rtoArmed = false;
      if (over() || flight === 0) return;
      if (q.now < due()) return armRto();
      lastTimeoutAt = q.now;
      // T3-rtx: cwnd to one packet; the lost chunks outstanding are abandoned (FORWARD-TSN), and
      // what the timer sends makes the client SACK at once (the last SACK may have been lost)
      stats.timeouts++;
      backoffs++;
      ssthresh = tolerant ? Math.max(ssthresh, cwnd) : Math.max(Math.floor(cwnd / 2), SCTP_MIN_SSTHRESH_T3_PACKETS);
      cwnd = 1;
      abandonLost = true;
      q.at(q.now + link.delayMs, () => {
        if (!over()) sendSack();
      });
      armRto();
    });
  }

  /** @param {number} tsn @param {Uint8Array} bytes */
  function atClient(tsn, bytes) {
    if (over()) return;
    const gap = tsn !== highest + 1;
    if (tsn > highest) highest = tsn;
    unsacked++;
    deliver(bytes);
    if (gap || unsacked >= SACK_EVERY_PACKETS) sendSack();
    else if (!sackTimer) {
      sackTimer = true;
      q.at(q.now + SACK_DELAY_MS, () => {
        sackTimer = false;
        if (unsacked > 0 && !over()) sendSack();
      });
    }
  }

  function sendSack() {
    unsacked = 0;
    const h = highest;
    net.toSource(i, SACK_BYTES + o.overheadBytes, () => onSack(h), true);
  }

  /** The sender learns that every TSN up to h arrived, except the lost ones. @param {number} h */
  function onSack(h) {
    if (over()) return;
    const fullyUsed = !room();
    let acked = 0;
    let sawLoss = false;
    // in order: arrived TSNs settle; a lost one settles once MISS_INDICATIONS later TSNs arrived
    while (settled < h) {
      const t = settled + 1;
      if (lost[t]) {
        if (h - t < MISS_INDICATIONS && !abandonLost) break;
        sawLoss = true;
      } else {
        acked++;
      }
      settled = t;
      flight--;
    }
    if (abandonLost) {
      // the timeout's FORWARD-TSN covers every lost chunk sent so far
      while (settled + 1 < nextTsn && lost[settled + 1]) {
        settled++;
        flight--;
      }
      abandonLost = false;
      sawLoss = false;
    }
    if (acked > 0) backoffs = 0;
    if (sawLoss && !tolerant && settled > recoverUntil) {
      stats.halvings++;
      ssthresh = Math.max(cwnd / 2, SCTP_MIN_SSTHRESH_FR_PACKETS); // bytes in usrsctp: not rounded
      cwnd = ssthresh;
      partialAcked = 0;
      recoverUntil = nextTsn - 1;
    } else if (acked > 0 && fullyUsed && (tolerant || settled > recoverUntil)) {
      // usrsctp skips every cwnd update while in fast recovery
      if (cwnd <= ssthresh) {
        cwnd += Math.min(acked, ABC_L_PACKETS);
      } else {
        partialAcked += acked;
        if (partialAcked >= cwnd) {
          partialAcked -= cwnd;
          cwnd++;
        }
      }
    }
    if (cwnd > stats.maxCwnd) stats.maxCwnd = cwnd;
    output();
  }

  return {
    /** The application hands over one datagram (never refused). @param {Uint8Array} bytes */
    send(bytes) {
      queue.push(bytes);
      output();
    },
    get queued() {
      return queue.length - queueHead;
    },
    get cwnd() {
      return cwnd;
    },
    stats,
  };
}
