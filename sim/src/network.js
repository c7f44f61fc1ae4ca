// The link model. Each source has an uplink that serialises bytes at its rate, a one-way
// propagation delay and a per-packet loss rate (the same in both directions). The client has
// one download cap: a FIFO bottleneck shared by every source (Infinity = no cap).
// Client -> source messages (feedback, requests) are small: they pay delay and loss only.

/**
 * @typedef {object} SourceLink
 * @property {number} rateBps       upload rate, bytes per second
 * @property {number} delayMs       one-way delay, ms
 * @property {number} loss          per-packet loss probability in [0, 1)
 * @property {number} startDelayMs  the proxy's origin-fetch time before its first byte, ms
 * @property {number} [queuePackets] the uplink shaper's queue, packets (Infinity or absent: unbounded). A
 *   packet that finds it full is dropped. Only the SCTP model sends into it; TCP's loss is modelled apart.
 * @property {boolean} [newTcp]     HTTP modes: the client's TCP connection to this proxy is new, so the
 *   handshake's round trip comes before the first request (absent: a kept connection)
 */

/** Frame bytes a shaper's packet-counted queue is sized in (shaping/shape: a full Ethernet frame). */
export const SHAPER_FRAME_BYTES = 1514;
/** Smallest shaper queue, packets (shaping/shape's MIN_QUEUE_PACKETS). */
const SHAPER_MIN_QUEUE_PACKETS = 10;

/**
 * The queue shaping/shape gives a link: `queueMs` of its rate in full frames, at least 10 packets.
 * @param {number} rateBps bytes/s @param {number} queueMs
 */
export function shaperQueuePackets(rateBps, queueMs) {
  return Math.max(SHAPER_MIN_QUEUE_PACKETS, Math.round((rateBps * queueMs) / 1000 / SHAPER_FRAME_BYTES));
}

export class Network {
  /**
   * @param {import('./event-queue.js').EventQueue} queue
   * @param {{sources: SourceLink[], downCapBps: number, prng: {next: () => number}}} options
   */
  constructor(queue, { sources, downCapBps, prng }) {
    this.queue = queue;
    this.sources = sources;
    this.downCapBps = downCapBps;
    this.prng = prng;
    /** Time each uplink is free again, ms. */
    this.uplinkFree = sources.map(() => 0);
    /** Time the client's bottleneck is free again, ms. */
    this.downFree = 0;
  }

  /**
   * Put `len` bytes on source i's uplink now (after anything already queued there).
   * @param {number} i
   * @param {number} len
   * @returns {number} the time the last byte leaves the source, ms
   */
  serialize(i, len) {
    const start = Math.max(this.queue.now, this.uplinkFree[i]);
    const end = start + (len * 1000) / this.sources[i].rateBps;
    this.uplinkFree[i] = end;
    return end;
  }

  /**
   * Would a packet put on source i's uplink now find its shaper's queue full?
   * @param {number} i
   * @param {number} len bytes of the packet (the queue is counted in packets of about this size)
   */
  queueFull(i, len) {
    const limit = this.sources[i].queuePackets;
    if (!(limit < Infinity)) return false;
    const waitingMs = this.uplinkFree[i] - this.queue.now;
    return waitingMs > 0 && (waitingMs * this.sources[i].rateBps) / 1000 / len >= limit;
  }

  /**
   * Carry a packet that left source i at `departMs` to the client; `onArrive` runs when its
   * last byte has passed the download cap. Lost packets never arrive.
   * @param {number} i
   * @param {number} len
   * @param {number} departMs
   * @param {() => void} onArrive
   * @param {boolean} lossy  false for streams whose loss is modelled elsewhere (TCP)
   */
  toClient(i, len, departMs, onArrive, lossy) {
    const link = this.sources[i];
    if (lossy && link.loss > 0 && this.prng.next() < link.loss) return;
    const atBottleneck = departMs + link.delayMs;
    if (this.downCapBps === Infinity) {
      this.queue.at(atBottleneck, onArrive); // no wrapper: one closure less per packet
      return;
    }
    // Packets from different sources reach the bottleneck out of send order: queue them there.
    this.queue.at(atBottleneck, () => {
      const done = Math.max(this.queue.now, this.downFree) + (len * 1000) / this.downCapBps;
      this.downFree = done;
      this.queue.at(done, onArrive);
    });
  }

  /**
   * Carry a small message from the client to source i, sent now.
   * @param {number} i
   * @param {number} len
   * @param {() => void} onArrive
   * @param {boolean} lossy
   */
  toSource(i, len, onArrive, lossy) {
    const link = this.sources[i];
    if (lossy && link.loss > 0 && this.prng.next() < link.loss) return;
    this.queue.at(this.queue.now + link.delayMs, onArrive);
  }
}
