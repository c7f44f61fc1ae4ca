// Uncoded MUTP sender (paper III.A): strict moving window over not-yet-acknowledged packets,
// an in-transit set, and the sendable set = window − received − in-transit.
// scheduler 'paper': uniform random pick from the sendable set, without replacement.
// scheduler 'share': each packet gets an owner when it enters the window, dealt in proportion to
//   the sources' weights (packets each delivered, from the latest feedback's echo; equal at the
//   start), see ownerOf(). A source sends the packets it owns lowest first, so N uncoordinated
//   sources rarely send the same packet; once its own packets in the window are all sent it
//   helps with the others' from the top of the window.
import { SenderBase, newDatagram } from './sender-base.js';
import { Bitset } from './bitset.js';
import { writeDataHeader } from './wire.js';
import { DATA_HEADER_BYTES } from './constants.js';

/** Fractional part of the golden ratio: k·GOLDEN mod 1 spreads k = 0, 1, 2, … evenly over [0, 1). */
const GOLDEN = (Math.sqrt(5) - 1) / 2;

export class UncodedSender extends SenderBase {
  /** @param {import('./sender-base.js').SenderOptions} opts */
  constructor(opts) {
    super(opts, 'uncoded');
    const L = this.layout.packetCount;
    this.received = new Bitset(L);
    this.sendOwn = new Bitset(L);
    this.sendOther = new Bitset(L);
    /** seq of the packet's latest send while in transit, 0 when not in transit */
    this.transitSeq = new Float64Array(L);
    // one source too: a random pick over the window advances w_min slowly and the window waits a
    // round trip (simulator, 1×1792 KiB/s, RTT 50 ms, w=240, 4 MiB: 77% of the link; lowest first 94%)
    this.striped = this.params.scheduler === 'share';
    /** 'share': per-source weights, packets delivered (latest echo) + 1, as the coded quotas */
    this.weights = new Float64Array(this.sourceCount).fill(1);
    this.weightTotal = this.sourceCount;
    this.wmin = 0;
    /** packets this source owns ('share'), or all of them */
    this.own = new Bitset(L);
    this.wend = Math.min(L, this.params.window);
    for (let i = 0; i < this.wend; i++) this.enterWindow(i);
  }

  /**
   * 'share': the source that owns packet i, fixed when i enters the window. Packets are dealt
   * in proportion to the weights (so a source twice as fast owns twice as many): packet i maps
   * to a point in [0, 1) (stripe i mod N, spread inside the stripe by the golden ratio), owned by
   * the source whose weight interval holds it. Equal weights give the plain stripes. Stateless,
   * so every source deals alike from the same feedback.
   * @param {number} i
   */
  ownerOf(i) {
    const n = this.sourceCount;
    const x = (((i % n) + ((Math.floor(i / n) * GOLDEN) % 1)) / n) * this.weightTotal;
    let acc = 0;
    for (let j = 0; j < this.sourceCount - 1; j++) if (x < (acc += this.weights[j])) return j;
    return this.sourceCount - 1;
  }

  /** Packet i enters the window: it is this source's own or another's (helped from the top). @param {number} i */
  enterWindow(i) {
    if (this.striped && this.ownerOf(i) !== this.sourceIndex) this.sendOther.add(i);
    else { this.sendOwn.add(i); this.own.add(i); }
  }

  /** @param {number} i */
  makeSendable(i) {
    if (this.own.has(i)) this.sendOwn.add(i);
    else this.sendOther.add(i);
  }

  /** @param {number} i */
  markReceived(i) {
    this.received.add(i);
    this.sendOwn.delete(i);
    this.sendOther.delete(i);
    this.transitSeq[i] = 0;
  }

  /** @returns {number} the packet to send, or -1 */
  pick() {
    const lo = this.wmin;
    const hi = this.wend;
    if (this.striped) {
      const own = this.sendOwn.lowestIn(lo, hi);
      if (own >= 0) { this.sendOwn.delete(own); return own; }
    } else {
      const c = this.sendOwn.countIn(lo, hi);
      if (c === 0) return -1;
      const i = this.sendOwn.selectIn(lo, hi, Math.floor(this.rand() * c));
      this.sendOwn.delete(i);
      return i;
    }
    // help from the top of the window: the owners send their stripes lowest first, so the
    // highest packets are the last they reach, and the feedback tells them before they do
    const i = this.sendOther.highestIn(lo, hi);
    if (i < 0) return -1;
    this.sendOther.delete(i);
    return i;
  }

  /**
   * Choose the next packet and book it as sent; -1 when the window allows nothing.
   * @param {number} now
   */
  take(now) {
    if (this.finished) return -1;
    this.expireTransit(now);
    const i = this.pick();
    if (i < 0) return -1;
    const seq = ++this.seq;
    this.transitSeq[i] = seq;
    this.transit.push(seq, i, now);
    this.stats.sent++;
    return i;
  }

  /**
   * The next data message, or null when the window allows nothing now.
   * @param {number} now
   * @returns {import('./wire.js').DataMessage | null}
   */
  nextPacket(now) {
    const i = this.take(now);
    if (i < 0) return null;
    const P = this.layout.payloadSize;
    return {
      type: 'data', downloadId: this.downloadId, seq: this.seq, index: i,
      payload: this.data.subarray(i * P, Math.min(this.data.length, (i + 1) * P)),
    };
  }

  /**
   * The next data message already encoded for the wire (the same bytes as
   * encodeMessage(nextPacket(now))), or null: no message object, one copy of the payload.
   * @param {number} now
   * @param {(n: number) => Uint8Array} [alloc] gives the datagram's buffer of exactly n bytes (zeroed or not)
   * @returns {Uint8Array | null}
   */
  nextDatagram(now, alloc = newDatagram) {
    const i = this.take(now);
    if (i < 0) return null;
    const P = this.layout.payloadSize;
    const start = i * P;
    const end = Math.min(this.data.length, start + P);
    const b = alloc(DATA_HEADER_BYTES + end - start);
    writeDataHeader(b, this.downloadId, this.seq, i);
    b.set(this.data.subarray(start, end), DATA_HEADER_BYTES);
    return b;
  }

  /** @param {any} msg */
  validFeedback(msg) {
    const L = this.layout.packetCount;
    return Number.isInteger(msg.base) && msg.base <= L && Number.isInteger(msg.bits) && msg.bits <= L - msg.base &&
      msg.bitmap instanceof Uint8Array && msg.bitmap.length >= Math.ceil(msg.bits / 8);
  }

  /** @param {any} msg */
  applyFeedback(msg) {
    const base = msg.base;
    for (let i = this.wmin; i < base; i++) if (!this.received.has(i)) this.markReceived(i);
    const bm = msg.bitmap;
    for (let k = 0; k < msg.bits; k++) {
      if (bm[k >>> 3] & (1 << (k & 7))) {
        const i = base + k;
        if (!this.received.has(i)) this.markReceived(i);
      }
    }
    if (this.striped) {
      let t = 0;
      for (let j = 0; j < this.sourceCount; j++) t += (this.weights[j] = msg.echo[j] + 1);
      this.weightTotal = t;
    }
    const L = this.layout.packetCount;
    let w = Math.max(this.wmin, base);
    while (w < L && this.received.has(w)) w++;
    this.wmin = w;
  }

  afterFeedback() {
    // the window moved: packets entering it become sendable
    const L = this.layout.packetCount;
    const end = Math.min(L, this.wmin + this.params.window);
    for (let i = this.wend; i < end; i++) if (!this.received.has(i) && this.transitSeq[i] === 0) this.enterWindow(i);
    this.wend = Math.max(this.wend, end);
  }

  /** @param {number} i @param {number} seq */
  settle(i, seq) {
    if (this.transitSeq[i] !== seq) return false; // received meanwhile, or re-sent later
    this.transitSeq[i] = 0;
    if (this.received.has(i)) return false;
    if (i >= this.wmin && i < this.wend) this.makeSendable(i);
    return true;
  }

  allAcknowledged() {
    return this.wmin >= this.layout.packetCount;
  }
}
