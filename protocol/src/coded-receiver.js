// Coded MUTP receiver (paper III.B): one progressive decoder per live generation; a packet is
// useful when it raises its generation's rank. A generation's bytes are delivered the moment
// its rank reaches its size, and feedback goes out at once so senders stop coding for it.
// Feedback: the DoF of each window generation from the lowest incomplete one, and how many
// of those DoF each source contributed (the senders' 'share' scheduler splits generations).
import { ReceiverBase } from './receiver-base.js';

export class CodedReceiver extends ReceiverBase {
  /**
   * @param {import('./receiver-base.js').ReceiverOptions} opts
   * @param {import('./codec.js').Codec} codec
   */
  constructor(opts, codec) {
    super(opts, 'coded');
    this.codec = codec;
    const G = this.layout.generationCount;
    this.dof = new Uint16Array(G);
    this.done = new Uint8Array(G);
    /** @type {(import('@mutp/rlnc').Decoder | undefined)[]} */
    this.decoders = new Array(G);
    this.gmin = 0;
    /** useful packets per (window slot, source): generation k uses row k mod windowGenerations */
    this.contrib = new Uint8Array(this.layout.windowGenerations * this.sourceCount);
  }

  /** @param {number} k */
  generationSize(k) {
    return k === this.layout.generationCount - 1 ? this.layout.lastGenerationSize : this.layout.generationSize;
  }

  /** @param {any} msg */
  check(msg) {
    if (msg.type !== 'coded') { this.c.ignored++; return -1; }
    const k = msg.generation;
    const p = msg.codedPayload;
    if (!Number.isInteger(k) || k < 0 || k >= this.layout.generationCount || !(p instanceof Uint8Array)) { this.c.invalid++; return -1; }
    const size = this.generationSize(k);
    if (msg.symbols !== size || p.length !== size + this.layout.payloadSize) { this.c.invalid++; return -1; }
    // senders' windows never run ahead of ours; beyond it a peer is broken or hostile, and a
    // decoder for it would let it make us allocate without bound
    if (k >= this.gmin + this.layout.windowGenerations) { this.c.outOfWindow++; return -1; }
    return this.layout.payloadSize;
  }

  /** @param {any} msg @param {number} _now @param {number} sourceIndex */
  accept(msg, _now, sourceIndex) {
    const k = msg.generation;
    if (this.done[k]) return false;
    const size = this.generationSize(k);
    let dec = this.decoders[k];
    if (!dec) dec = this.decoders[k] = this.codec.decoder(size, this.layout.payloadSize);
    let innovative;
    try {
      innovative = dec.readPayload(msg.codedPayload);
    } catch {
      this.c.invalid++; // the codec refused it; nothing changed
      return false;
    }
    if (!innovative) return false;
    this.dof[k]++;
    this.dofTotal++;
    this.contrib[(k % this.layout.windowGenerations) * this.sourceCount + sourceIndex]++;
    if (dec.isComplete()) this.finishGeneration(k, dec);
    return true;
  }

  /**
   * @param {number} k
   * @param {import('@mutp/rlnc').Decoder} dec
   */
  finishGeneration(k, dec) {
    const P = this.layout.payloadSize;
    const start = k * this.layout.generationSize * P;
    const n = Math.min(this.buffer.length - start, this.generationSize(k) * P); // drop the last packet's padding
    this.buffer.set(dec.symbols().subarray(0, n), start);
    dec.dispose();
    this.decoders[k] = undefined;
    this.done[k] = 1;
    this.contrib.fill(0, (k % this.layout.windowGenerations) * this.sourceCount, (k % this.layout.windowGenerations + 1) * this.sourceCount);
    this.c.netBytes += n;
    this.markReady(k);
    this.urgentFeedback = true;
    const G = this.layout.generationCount;
    while (this.gmin < G && this.done[this.gmin]) this.gmin++;
  }

  /** @param {number} seq */
  buildFeedback(seq) {
    const base = this.gmin;
    const count = Math.min(this.layout.windowGenerations, this.layout.generationCount - base);
    const n = this.sourceCount;
    const wg = this.layout.windowGenerations;
    const dof = new Array(count);
    const contrib = new Uint8Array(count * n);
    for (let i = 0; i < count; i++) {
      dof[i] = this.dof[base + i];
      const row = ((base + i) % wg) * n;
      for (let j = 0; j < n; j++) contrib[i * n + j] = this.contrib[row + j];
    }
    return { type: 'feedback', downloadId: this.downloadId, mode: 'coded', seq, echo: this.echo.slice(), base, bits: 0, bitmap: null, dof, contrib };
  }

  close() {
    for (let k = 0; k < this.decoders.length; k++) {
      const d = this.decoders[k];
      if (d) { d.dispose(); this.decoders[k] = undefined; }
    }
  }
}
