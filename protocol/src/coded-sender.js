// Coded MUTP sender (paper III.B): generations of g packets, RLNC-coded; the window holds
// w/g generations from the lowest one the client has not completed.
// Rarest generation first: send from the window generation with the least (received DoF +
// in transit) that is still short of its size (+ `surplus` for loss); ties broken at random.
// scheduler 'share': "in transit" also counts the other sources' estimated share: this
// source's own in-flight packets × (total delivery rate / own delivery rate), both measured
// from the per-source echo in feedback. Without it, N sources each fill every generation
// and the client gets up to N× the packets a generation needs.
import { SenderBase } from './sender-base.js';
import { sourceSeed } from './rng.js';

/** Weight of a new per-source rate sample (smooths the burstiness of feedback timing). */
const RATE_GAIN = 0.3;
/** Shortest span (ms) between two rate samples, so one feedback burst is not a rate. */
const RATE_SAMPLE_MIN_MS = 5;
/** Cap on the share factor: a source that measures almost no own delivery still sends a little. */
const MAX_SHARE_FACTOR = 64;

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
    this.shareFactor = this.shared ? this.sourceCount : 1;
    this.rates = new Float64Array(this.sourceCount);
    this.rateEcho = new Float64Array(this.sourceCount);
    this.rateAt = NaN;
    this.rateSamples = 0;
  }

  /** @param {number} k */
  generationSize(k) {
    return k === this.layout.generationCount - 1 ? this.layout.lastGenerationSize : this.layout.generationSize;
  }

  /** The rarest eligible window generation, or -1. */
  pick() {
    const surplus = this.params.surplus;
    const f = this.shareFactor;
    let best = -1;
    let bestEst = Infinity;
    let ties = 0;
    for (let k = this.gmin; k < this.gend; k++) {
      const size = this.generationSize(k);
      if (this.dof[k] >= size) continue;
      const est = this.dof[k] + this.inTransit[k] * f;
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
    for (let i = 0; i < d.length; i++) {
      const v = d[i];
      if (!Number.isInteger(v) || v < 0 || v > this.generationSize(msg.base + i)) return false;
    }
    return true;
  }

  /** @param {any} msg @param {number} now */
  applyFeedback(msg, now) {
    const base = msg.base;
    for (let k = this.gmin; k < base; k++) this.dof[k] = this.generationSize(k);
    const d = msg.dof;
    for (let i = 0; i < d.length; i++) if (d[i] > this.dof[base + i]) this.dof[base + i] = d[i];
    const G = this.layout.generationCount;
    let g = Math.max(this.gmin, base);
    while (g < G && this.dof[g] >= this.generationSize(g)) g++;
    for (let k = this.gmin; k < g; k++) this.dropEncoder(k);
    this.gmin = g;
    this.gend = Math.min(G, g + this.layout.windowGenerations);
    if (this.shared) this.updateRates(msg.echo, now);
  }

  /**
   * Per-source delivery rates from how fast each source's echoed seq grows.
   * @param {number[]} echo
   * @param {number} now
   */
  updateRates(echo, now) {
    const n = this.sourceCount;
    if (Number.isNaN(this.rateAt)) {
      for (let j = 0; j < n; j++) this.rateEcho[j] = echo[j];
      this.rateAt = now;
      return;
    }
    const dt = now - this.rateAt;
    if (dt < RATE_SAMPLE_MIN_MS) return;
    for (let j = 0; j < n; j++) {
      const r = Math.max(0, echo[j] - this.rateEcho[j]) / dt;
      this.rates[j] = this.rateSamples === 0 ? r : this.rates[j] + RATE_GAIN * (r - this.rates[j]);
      this.rateEcho[j] = Math.max(this.rateEcho[j], echo[j]);
    }
    this.rateAt = now;
    this.rateSamples++;
    let total = 0;
    for (let j = 0; j < n; j++) total += this.rates[j];
    const own = this.rates[this.sourceIndex];
    this.shareFactor = own > 0 ? Math.min(MAX_SHARE_FACTOR, Math.max(1, total / own)) : n;
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
