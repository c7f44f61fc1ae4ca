// Coded MUTP sender (paper III.B): generations of g packets, RLNC-coded; the window holds
// w/g generations from the lowest one the client has not completed.
// Rarest generation first: send from the window generation with the least (received DoF +
// in transit) that is still short of its size (+ `surplus` for loss); ties broken at random.
// scheduler 'share': each source keeps to its own quota of every generation (computeQuota),
// counting its useful packets as the feedback reports them per source, and fills the window
// lowest generation first. Without it, N sources each fill every generation and the client
// gets up to N× the packets a generation's tail needs.
import { SenderBase } from './sender-base.js';
import { sourceSeed } from './rng.js';

export class CodedSender extends SenderBase {
  /**
   * @param {import('./sender-base.js').SenderOptions} opts
   * @param {import('./codec.js').Codec} codec
   */
  constructor(opts, codec) {
    super(opts, 'coded');
    this.codec = codec;
    const G = this.layout.generationCount;
    this.dof = new Int32Array(G);
    this.inTransit = new Int32Array(G);
    /** @type {(import('@mutp/rlnc').Encoder | undefined)[]} */
    this.encoders = new Array(G);
    this.gmin = 0;
    this.gend = Math.min(G, this.layout.windowGenerations);
    this.shared = this.params.scheduler === 'share' && this.sourceCount > 1;
    /** per-source weights for 'share': packets delivered (latest echo) + 1 */
    this.weights = new Float64Array(this.sourceCount).fill(1);
    this.weightTotal = this.sourceCount;
    /** this source's quota and useful packets (from feedback) per generation, for 'share' */
    this.quota = new Int32Array(G);
    this.ownUseful = new Int32Array(G);
    if (this.shared) for (let k = 0; k < this.gend; k++) this.computeQuota(k);
  }

  /** @param {number} k */
  generationSize(k) {
    return k === this.layout.generationCount - 1 ? this.layout.lastGenerationSize : this.layout.generationSize;
  }

  /**
   * This source's quota of generation k under 'share': the generation's packets are split
   * among the sources in proportion to how many packets each has delivered so far (the echo
   * of the latest feedback, which every source sees alike), in integers so the quotas add up
   * to the generation size exactly; the rounding remainder rotates with k. Fixed when the
   * generation enters the window, so later feedback cannot make quotas overlap.
   * @param {number} k
   */
  computeQuota(k) {
    const n = this.sourceCount;
    const w = this.weights;
    let before = 0;
    for (let p = k % n; p !== this.sourceIndex; p = (p + 1) % n) before += w[p];
    const total = this.weightTotal;
    const size = this.generationSize(k);
    this.quota[k] = Math.floor(((before + w[this.sourceIndex]) * size) / total) - Math.floor((before * size) / total);
  }

  /**
   * The generation to send from, or -1. 'share': the lowest window generation where this
   * source's useful packets (per the feedback) + its packets in transit are short of its
   * quota; when none is, it helps like 'paper', so a silent or slow source cannot hold a
   * generation back. 'paper': rarest generation first (least DoF + in transit), random ties.
   */
  pick() {
    const surplus = this.params.surplus;
    if (this.shared) {
      for (let k = this.gmin; k < this.gend; k++) {
        if (this.dof[k] < this.generationSize(k) && this.ownUseful[k] + this.inTransit[k] < this.quota[k] + surplus) return k;
      }
    }
    let best = -1;
    let bestEst = Infinity;
    let ties = 0;
    for (let k = this.gmin; k < this.gend; k++) {
      const size = this.generationSize(k);
      if (this.dof[k] >= size) continue;
      const est = this.dof[k] + this.inTransit[k];
      if (est >= size + surplus) continue;
      if (est < bestEst) { best = k; bestEst = est; ties = 1; } else if (est === bestEst && this.rand() * ++ties < 1) best = k;
    }
    return best;
  }

  /** @param {number} k */
  encoderFor(k) {
    let enc = this.encoders[k];
    if (enc) return enc;
    const size = this.generationSize(k);
    const P = this.layout.payloadSize;
    enc = this.codec.encoder(size, P, sourceSeed(this.seed, k));
    const start = k * this.layout.generationSize * P;
    const end = start + size * P;
    if (end <= this.data.length) enc.setSymbols(this.data.subarray(start, end));
    else {
      const padded = new Uint8Array(size * P); // last generation: zero-pad the short last packet
      padded.set(this.data.subarray(start));
      enc.setSymbols(padded);
    }
    this.encoders[k] = enc;
    return enc;
  }

  /**
   * The next coded message, or null when the window allows nothing now.
   * @param {number} now
   */
  nextPacket(now) {
    if (this.finished) return null;
    this.expireTransit(now);
    const k = this.pick();
    if (k < 0) return null;
    const codedPayload = this.encoderFor(k).writePayload();
    const seq = ++this.seq;
    this.inTransit[k]++;
    this.transit.push(seq, k, now);
    this.stats.sent++;
    return { type: 'coded', downloadId: this.downloadId, seq, generation: k, symbols: this.generationSize(k), codedPayload };
  }

  /** @param {any} msg */
  validFeedback(msg) {
    const G = this.layout.generationCount;
    const d = msg.dof;
    if (!Number.isInteger(msg.base) || msg.base > G || !d || d.length > G - msg.base) return false;
    const c = msg.contrib;
    if (!c || c.length !== d.length * this.sourceCount) return false;
    for (let i = 0; i < c.length; i++) if (!Number.isInteger(c[i]) || c[i] < 0 || c[i] > 255) return false;
    for (let i = 0; i < d.length; i++) {
      const v = d[i];
      if (!Number.isInteger(v) || v < 0 || v > this.generationSize(msg.base + i)) return false;
    }
    return true;
  }

  /** @param {any} msg */
  applyFeedback(msg) {
    const base = msg.base;
    for (let k = this.gmin; k < base; k++) this.dof[k] = this.generationSize(k);
    const d = msg.dof;
    const n = this.sourceCount;
    for (let i = 0; i < d.length; i++) {
      if (d[i] > this.dof[base + i]) this.dof[base + i] = d[i];
      const mine = msg.contrib[i * n + this.sourceIndex];
      if (mine > this.ownUseful[base + i]) this.ownUseful[base + i] = mine;
    }
    const G = this.layout.generationCount;
    let g = Math.max(this.gmin, base);
    while (g < G && this.dof[g] >= this.generationSize(g)) g++;
    for (let k = this.gmin; k < g; k++) this.dropEncoder(k);
    if (this.shared) {
      let t = 0;
      for (let j = 0; j < n; j++) t += (this.weights[j] = msg.echo[j] + 1);
      this.weightTotal = t;
    }
    const oldEnd = this.gend;
    this.gmin = g;
    this.gend = Math.max(oldEnd, Math.min(G, g + this.layout.windowGenerations));
    if (this.shared) for (let k = oldEnd; k < this.gend; k++) this.computeQuota(k);
  }

  /** @param {number} k */
  dropEncoder(k) {
    const enc = this.encoders[k];
    if (enc) { enc.dispose(); this.encoders[k] = undefined; }
  }

  /** @param {number} k */
  settle(k) {
    this.inTransit[k]--;
    return false; // coded: a settled packet is either counted in DoF or lost; no per-packet state
  }

  allAcknowledged() {
    return this.gmin >= this.layout.generationCount;
  }

  release() {
    for (let k = 0; k < this.encoders.length; k++) this.dropEncoder(k);
  }
}
