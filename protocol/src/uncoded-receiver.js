// Uncoded MUTP receiver (paper III.A): tracks received packets; a packet raises the DoF if
// its index was not received before, otherwise it is a duplicate. Feedback is the window's
// bitmap from w_min (the lowest packet not received) plus the per-source echo; when w_min
// enters a new epoch (uncoded-epochs.js) it goes to every source at once.
import { ReceiverBase } from './receiver-base.js';
import { epochPackets } from './uncoded-epochs.js';

export class UncodedReceiver extends ReceiverBase {
  /** @param {import('./receiver-base.js').ReceiverOptions} opts */
  constructor(opts) {
    super(opts, 'uncoded');
    this.received = new Uint8Array(this.layout.packetCount);
    this.wmin = 0;
    /** the senders deal packets by epochs of the window base (uncoded-epochs.js) */
    this.epochPackets = epochPackets(this.params.window);
    /** a packet's contributors for the vote, per source: 1 for that source (made once, not per packet) */
    this.oneHot = Array.from({ length: this.sourceCount }, (_, i) => { const c = new Uint8Array(this.sourceCount); c[i] = 1; return c; });
  }

  /** @param {any} msg */
  check(msg) {
    const L = this.layout.packetCount;
    if (msg.type !== 'data') { this.c.ignored++; return -1; }
    const i = msg.index;
    const p = msg.payload;
    if (!Number.isInteger(i) || i < 0 || i >= L || !(p instanceof Uint8Array)) { this.c.invalid++; return -1; }
    const P = this.layout.payloadSize;
    const expected = i === L - 1 ? this.layout.totalSize - i * P : P; // the last packet may be shorter
    if (p.length !== expected) { this.c.invalid++; return -1; }
    return expected;
  }

  /** @param {any} msg @param {number} _now @param {number} sourceIndex */
  accept(msg, _now, sourceIndex) {
    const i = msg.index;
    if (this.received[i]) return false;
    const verdict = this.verify ? this.verify(i, msg.payload, this.oneHot[sourceIndex]) : true;
    // no checksum decided yet (a streamed meta, which uncoded downloads never ask for), or a tie this
    // packet does not settle (it matches its own proxy's value): not taken, nobody blamed
    if (verdict === undefined || verdict === null) return false;
    if (!verdict) {
      // refused like a lost packet: the bitmap still shows i missing, so it is sent again
      this.rejected = true;
      this.c.integrityFailures++;
      this.integrityEvents.push({ kind: 'unit-failed', unit: i, contributors: this.perSource.map((_, j) => (j === sourceIndex ? 1 : 0)) });
      this.blame(i, sourceIndex);
      return false;
    }
    this.received[i] = 1;
    this.buffer.set(msg.payload, i * this.layout.payloadSize);
    this.dofTotal++;
    this.c.netBytes += msg.payload.length;
    this.markReady(i);
    const L = this.layout.packetCount;
    const from = this.wmin;
    while (this.wmin < L && this.received[this.wmin]) this.wmin++;
    // the base entered a new epoch: every source hears it in the same message
    if (Math.floor(this.wmin / this.epochPackets) > Math.floor(from / this.epochPackets)) this.urgentFeedback = true;
    return true;
  }

  /** @param {number} seq */
  buildFeedback(seq) {
    const base = this.wmin;
    const bits = Math.min(this.layout.windowPackets, this.layout.packetCount - base);
    const bitmap = new Uint8Array(Math.ceil(bits / 8));
    const r = this.received;
    for (let k = 0; k < bits; k++) if (r[base + k]) bitmap[k >>> 3] |= 1 << (k & 7);
    return { type: 'feedback', downloadId: this.downloadId, mode: 'uncoded', seq, echo: this.echo.slice(), base, bits, bitmap, dof: null, contrib: null };
  }
}
