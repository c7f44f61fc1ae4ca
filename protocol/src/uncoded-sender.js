// Uncoded MUTP sender (paper III.A): strict moving window over not-yet-acknowledged packets,
// an in-transit set, and the sendable set = window − received − in-transit.
// scheduler 'paper': uniform random pick from the sendable set, without replacement.
// scheduler 'share': each packet gets an owner when it enters the window, dealt in proportion to
//   the sources' recent rates, the same at every source (epochs: uncoded-epochs.js), see
//   ownerOf(). A source sends the packets it owns lowest first, so N uncoordinated sources
//   rarely send the same packet; once its own packets in the window are all sent it helps with
//   the others' from the top of the window, but only with those their owners will not send
//   within its horizon (computeStealable): a slow, lossy or silent owner is helped, a busy one
//   is left alone.
// Weights from each source's own latest feedback made sources disagree on owners, and helping
// without a horizon raced the owners: simulator, RTT 50 ms, w = 240, kept connections,
// 6×896 KiB/s: 505 → 400 ms (normalized goodput 0.66 → 1.00); new connections, 1×1792 +
// 3×896 KiB/s: 853 → 532 ms.
import { SenderBase, newDatagram } from './sender-base.js';
import { Bitset } from './bitset.js';
import { writeDataHeader } from './wire.js';
import { DATA_HEADER_BYTES } from './constants.js';
import { RecentRates } from './recent-rates.js';
import { EPOCHS_PER_WINDOW, epochPackets, entryEpoch } from './uncoded-epochs.js';
import { codedError } from '@mutp/common/errors';

/** Fractional part of the golden ratio: k·GOLDEN mod 1 spreads k = 0, 1, 2, … evenly over [0, 1). */
const GOLDEN = (Math.sqrt(5) - 1) / 2;

/** Epochs whose weights are kept: a window back for the rates, and those whose packets may still enter. */
const EPOCH_RING = 2 * EPOCHS_PER_WINDOW + 2;

export class UncodedSender extends SenderBase {
  /** @param {import('./sender-base.js').SenderOptions} opts */
  constructor(opts) {
    super(opts, 'uncoded');
    // its scheduler picks any window packet: it has no notion of bytes not there yet
    if (this.streamed) throw codedError('ERR_BAD_PARAMS', 'only a coded sender can be streamed');
    const L = this.layout.packetCount;
    this.received = new Bitset(L);
    this.sendOwn = new Bitset(L);
    this.sendOther = new Bitset(L);
    /** seq of the packet's latest send while in transit, 0 when not in transit */
    this.transitSeq = new Float64Array(L);
    // one source too: a random pick over the window advances w_min slowly and the window waits a
    // round trip (simulator, 1×1792 KiB/s, RTT 50 ms, w=240, 4 MiB: 77% of the link; lowest first 94%)
    this.striped = this.params.scheduler === 'share';
    const n = this.sourceCount;
    /** 'share', per epoch slot: the echo of the first feedback heard in the epoch, and the weights it gave (epoch 0: equal) */
    this.epochEcho = new Float64Array(EPOCH_RING * n);
    this.epochWeights = new Float64Array(EPOCH_RING * n).fill(1);
    this.epochTotal = new Float64Array(EPOCH_RING).fill(n);
    this.lastEpoch = 0;
    this.epochPackets = epochPackets(this.params.window);
    /** 'share': each packet's owner, fixed when it enters the window */
    this.owner = new Uint8Array(L);
    /** 'share': each source's recent rate as this source hears it, for the helping horizon */
    this.rates = new RecentRates(n, this.params.window);
    /** 'share', per source: its missing packets at or above this index a helper may take (computeStealable) */
    this.stealFrom = new Float64Array(n).fill(Infinity); // nothing before the first feedback
    /** computeStealable's scratch: per source, its missing packets counted so far, and those it sends within my horizon */
    this.missing = new Float64Array(n);
    this.committed = new Float64Array(n);
    this.wmin = 0;
    /** packets this source owns ('share'), or all of them */
    this.own = new Bitset(L);
    this.wend = Math.min(L, this.params.window);
    for (let i = 0; i < this.wend; i++) this.enterWindow(i);
  }

  /**
   * 'share': the source that owns packet i, fixed when i enters the window. Packets are dealt
   * in proportion to the weights of the epoch i's entry needs (so a source twice as fast owns
   * twice as many): packet i maps to a point in [0, 1) (stripe i mod N, spread inside the stripe
   * by the golden ratio), owned by the source whose weight interval holds it. Equal weights give
   * the plain stripes. Every source has the same weights for an epoch, so all deal alike.
   * @param {number} i
   */
  ownerOf(i) {
    const n = this.sourceCount;
    const e = Math.min(this.lastEpoch, Math.max(this.lastEpoch - EPOCH_RING + 1, entryEpoch(i, this.params.window, this.epochPackets)));
    const slot = e % EPOCH_RING;
    const x = (((i % n) + ((Math.floor(i / n) * GOLDEN) % 1)) / n) * this.epochTotal[slot];
    let acc = 0;
    for (let j = 0; j < n - 1; j++) if (x < (acc += this.epochWeights[slot * n + j])) return j;
    return n - 1;
  }

  /** Packet i enters the window: it is this source's own or another's (helped from the top). @param {number} i */
  enterWindow(i) {
    const o = this.striped ? this.ownerOf(i) : this.sourceIndex;
    this.owner[i] = o;
    if (o !== this.sourceIndex) this.sendOther.add(i);
    else { this.sendOwn.add(i); this.own.add(i); }
  }

  /**
   * 'share': the feedback moved the base into new epochs: the weights of each are the packets
   * each source sent over the last window's epochs (this echo minus that of EPOCHS_PER_WINDOW
   * epochs before; since the start for the first ones) + 1.
   * @param {number[]} echo @param {number} base the receiver's window base in this feedback
   */
  noteEpochs(echo, base) {
    const n = this.sourceCount;
    const to = Math.floor(base / this.epochPackets);
    for (let e = this.lastEpoch + 1; e <= to; e++) {
      const slot = e % EPOCH_RING;
      const ref = e - EPOCHS_PER_WINDOW;
      let t = 0;
      for (let j = 0; j < n; j++) {
        const before = ref >= 1 ? this.epochEcho[(ref % EPOCH_RING) * n + j] : 0;
        this.epochEcho[slot * n + j] = echo[j];
        t += (this.epochWeights[slot * n + j] = Math.max(0, echo[j] - before) + 1);
      }
      this.epochTotal[slot] = t;
    }
    this.lastEpoch = Math.max(this.lastEpoch, to);
  }

  /**
   * 'share', after feedback: the packets of each other owner a helper may take. Owner j sends
   * its missing packets lowest first, about horizonPackets(j) of them before my help could reach
   * the client and the feedback reach j; those are as good as sent. Its missing packets above
   * them can be taken.
   */
  computeStealable() {
    const n = this.sourceCount;
    const me = this.sourceIndex;
    for (let j = 0; j < n; j++) {
      this.stealFrom[j] = Infinity;
      this.missing[j] = 0;
      this.committed[j] = j === me ? Infinity : this.rates.horizonPackets(j, me, this.transit.length);
    }
    for (let i = this.wmin; i < this.wend; i++) {
      if (this.received.has(i)) continue;
      const j = this.owner[i];
      if (this.stealFrom[j] !== Infinity) continue;
      if (++this.missing[j] > this.committed[j]) this.stealFrom[j] = i;
    }
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
    for (let top = hi; top > lo;) {
      const i = this.sendOther.highestIn(lo, top);
      if (i < 0) return -1;
      if (!this.striped || i >= this.stealFrom[this.owner[i]]) {
        this.sendOther.delete(i);
        return i;
      }
      top = i;
    }
    return -1;
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
    const L = this.layout.packetCount;
    let w = Math.max(this.wmin, base);
    while (w < L && this.received.has(w)) w++;
    this.wmin = w;
    if (this.striped) {
      this.noteEpochs(msg.echo, base);
      this.rates.update(msg.echo, w);
    }
  }

  afterFeedback() {
    // the window moved: packets entering it become sendable
    const L = this.layout.packetCount;
    const end = Math.min(L, this.wmin + this.params.window);
    for (let i = this.wend; i < end; i++) if (!this.received.has(i) && this.transitSeq[i] === 0) this.enterWindow(i);
    this.wend = Math.max(this.wend, end);
    if (this.striped) this.computeStealable();
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
