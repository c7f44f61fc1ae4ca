// Coded MUTP receiver (paper III.B): one progressive decoder per live generation; a packet is
// useful when it raises its generation's rank. A generation's bytes are delivered the moment
// its rank reaches its size, and feedback goes out at once so senders stop coding for it.
// Feedback: the DoF of each window generation from the lowest incomplete one, and how many
// of those DoF each source contributed (the senders' 'share' scheduler splits generations).
// Integrity (with opts.verify): a decoded generation is checked against its checksum before it
// is delivered. On a mismatch it is discarded and sent again (its DoF drops to 0 in feedback);
// the failed attempt's packets are kept as suspects. When the generation later verifies, each
// suspect is re-encoded from the verified data: the corrupted ones name their source exactly.
// After MIN_ATTEMPTS_FOR_LEAVE_ONE_OUT failed attempts, decoding the suspects without one
// source at a time finds a source that corrupts all of its packets.
// A generation that decodes before its checksum is decided (a streamed meta: the proxies send
// each checksum as they get the generation's bytes) is held, decoded, with its full DoF in
// feedback so nobody sends more of it, and neither delivered nor passed by the window base until
// recheckHeld() finds its checksum decided.
import { ReceiverBase } from './receiver-base.js';
import { codedPacketMatches } from './integrity/gf256.js';

/** Failed attempts of one generation before trying to decode it without each source in turn: one attempt alone has too few packets without any source. */
const MIN_ATTEMPTS_FOR_LEAVE_ONE_OUT = 2;

/** Failed attempts of one generation whose packets are kept as suspects (bounds memory to this × g packets per generation). */
const MAX_SUSPECT_ATTEMPTS = 4;

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
    /** with verify: per live generation, [source, codedPayload, …] of its useful packets */
    /** @type {(any[] | undefined)[]} */
    this.kept = new Array(G);
    /** with verify: per generation, the kept packets of its failed attempts */
    /** @type {(any[] | undefined)[]} */
    this.suspects = new Array(G);
    this.attempts = new Uint8Array(G);
    /** decoded generations whose checksum is not decided yet (their decoders keep the symbols) */
    /** @type {Set<number>} */
    this.held = new Set();
  }

  /** Every generation decoded and verified (a held one is not yet). */
  get complete() {
    return super.complete && this.held.size === 0;
  }

  /**
   * Verify the held generations again (the vote has heard more checksums): each now decided is
   * delivered, or discarded and sent again. Returns whether any was.
   */
  recheckHeld() {
    let changed = false;
    for (const k of this.held) {
      const dec = /** @type {import('@mutp/rlnc').Decoder} */ (this.decoders[k]);
      const verdict = this.verdictOf(k, dec);
      if (verdict === undefined) continue;
      this.held.delete(k);
      changed = true;
      if (verdict) this.completeGeneration(k, dec);
      else this.discardAttempt(k);
    }
    return changed;
  }

  /**
   * @param {number} k @param {import('@mutp/rlnc').Decoder} dec
   * @returns {boolean | null | undefined} undefined: not decided yet; null: a tie this decode does not settle
   */
  verdictOf(k, dec) {
    if (!this.verify) return true;
    const row = (k % this.layout.windowGenerations) * this.sourceCount;
    return this.verify(k, dec.symbols().subarray(0, this.generationBytes(k)), this.contrib.subarray(row, row + this.sourceCount));
  }

  /** Bytes of generation k in the object (the last packet's padding left out). @param {number} k */
  generationBytes(k) {
    const start = k * this.layout.generationSize * this.layout.payloadSize;
    return Math.min(this.buffer.length - start, this.generationSize(k) * this.layout.payloadSize);
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
    if (this.verify) (this.kept[k] ??= []).push(sourceIndex, msg.codedPayload);
    this.dof[k]++;
    this.dofTotal++;
    this.contrib[(k % this.layout.windowGenerations) * this.sourceCount + sourceIndex]++;
    if (dec.isComplete() && !this.finishGeneration(k, dec)) {
      this.rejected = true;
      return false;
    }
    return true;
  }

  /**
   * @param {number} k
   * @param {import('@mutp/rlnc').Decoder} dec
   */
  finishGeneration(k, dec) {
    const verdict = this.verdictOf(k, dec);
    if (verdict === undefined) {
      this.held.add(k);
      this.urgentFeedback = true; // its full DoF: nobody sends more of it
      return true;
    }
    if (!verdict) {
      // false: its data is wrong; null: it settles no tie (sent again: another mix of sources may)
      this.discardAttempt(k);
      return false;
    }
    this.completeGeneration(k, dec);
    return true;
  }

  /**
   * Generation k decoded and verified: deliver it and move the window.
   * @param {number} k @param {import('@mutp/rlnc').Decoder} dec
   */
  completeGeneration(k, dec) {
    const start = k * this.layout.generationSize * this.layout.payloadSize;
    const n = this.generationBytes(k);
    const symbols = dec.symbols();
    if (this.verify) this.checkSuspects(k, symbols);
    this.buffer.set(symbols.subarray(0, n), start);
    dec.dispose();
    this.decoders[k] = undefined;
    this.kept[k] = undefined;
    this.done[k] = 1;
    this.contrib.fill(0, (k % this.layout.windowGenerations) * this.sourceCount, (k % this.layout.windowGenerations + 1) * this.sourceCount);
    this.c.netBytes += n;
    this.markReady(k);
    this.urgentFeedback = true;
    const G = this.layout.generationCount;
    while (this.gmin < G && this.done[this.gmin]) this.gmin++;
  }

  /**
   * Generation k failed its checksum: forget its decode (DoF back to 0, so the senders send it
   * again), keep its packets as suspects, and report who contributed.
   * @param {number} k
   */
  discardAttempt(k) {
    const n = this.sourceCount;
    const row = (k % this.layout.windowGenerations) * n;
    const contributors = Array.from(this.contrib.subarray(row, row + n));
    this.decoders[k]?.dispose();
    this.decoders[k] = undefined;
    this.dofTotal -= this.dof[k];
    this.dof[k] = 0;
    this.contrib.fill(0, row, row + n);
    this.c.integrityFailures++;
    this.integrityEvents.push({ kind: 'unit-failed', unit: k, contributors });
    this.urgentFeedback = true;
    const kept = this.kept[k] ?? [];
    this.kept[k] = undefined;
    if (this.attempts[k] < MAX_SUSPECT_ATTEMPTS) {
      this.attempts[k]++;
      this.suspects[k] = (this.suspects[k] ?? []).concat(kept);
    }
    if (this.attempts[k] >= MIN_ATTEMPTS_FOR_LEAVE_ONE_OUT) this.decodeWithoutOneSource(k);
  }

  /**
   * Decode generation k from its suspects, leaving out one source at a time, then (with more than
   * two sources) from each source's alone; the first result that verifies completes the generation
   * (and checkSuspects names the corrupting source). A source's own decode that matches the
   * checksum it gave shows the vote that source is consistent: proxies serving different copies
   * of the object are told apart this way, and not blamed.
   * @param {number} k
   */
  decodeWithoutOneSource(k) {
    const sus = /** @type {any[]} */ (this.suspects[k]);
    /** @type {Set<number>} the sources among the suspects (held as source, packet pairs) */
    const present = new Set();
    for (let i = 0; i < sus.length; i += 2) present.add(sus[i]);
    for (let out = 0; out < this.sourceCount; out++) {
      if (present.has(out) && this.decodeSuspects(k, (s) => s !== out)) return;
    }
    if (this.sourceCount <= 2) return; // leaving one of two out was each one alone
    for (let only = 0; only < this.sourceCount; only++) {
      if (present.has(only) && this.decodeSuspects(k, (s) => s === only)) return;
    }
  }

  /**
   * Decode generation k from the suspects of the sources `use` takes; complete it when it verifies.
   * @param {number} k @param {(source: number) => boolean} use @returns {boolean} completed
   */
  decodeSuspects(k, use) {
    const sus = /** @type {any[]} */ (this.suspects[k]);
    const size = this.generationSize(k);
    const P = this.layout.payloadSize;
    const start = k * this.layout.generationSize * P;
    const n = Math.min(this.buffer.length - start, size * P);
    const dec = this.codec.decoder(size, P);
    const used = new Uint16Array(this.sourceCount); // useful packets per source in this decode
    try {
      for (let i = 0; i < sus.length && !dec.isComplete(); i += 2) {
        if (use(sus[i]) && dec.readPayload(sus[i + 1])) used[sus[i]]++;
      }
      if (!dec.isComplete()) return false;
      const symbols = dec.symbols();
      if (!this.verifyNow?.(k, symbols.subarray(0, n), used)) return false;
      this.checkSuspects(k, symbols);
      this.buffer.set(symbols.subarray(0, n), start);
      this.dofTotal += size;
      this.dof[k] = size;
      this.done[k] = 1;
      this.c.netBytes += n;
      this.markReady(k);
      const G = this.layout.generationCount;
      while (this.gmin < G && this.done[this.gmin]) this.gmin++;
      return true;
    } catch {
      return false; // a suspect the codec refuses: try the next set of sources
    } finally {
      dec.dispose();
    }
  }

  /**
   * Generation k verified: re-encode each suspect packet from the verified symbols; a packet
   * that does not match was corrupted by its source.
   * @param {number} k
   * @param {Uint8Array} symbols  the generation, zero-padded to size × P
   */
  checkSuspects(k, symbols) {
    const sus = this.suspects[k];
    if (!sus) return;
    this.suspects[k] = undefined;
    const size = this.generationSize(k);
    for (let i = 0; i < sus.length; i += 2) {
      if (!codedPacketMatches(sus[i + 1], symbols, size, this.layout.payloadSize)) this.blame(k, sus[i]);
    }
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
    this.kept.fill(undefined);
    this.suspects.fill(undefined);
    for (let k = 0; k < this.decoders.length; k++) {
      const d = this.decoders[k];
      if (d) { d.dispose(); this.decoders[k] = undefined; }
    }
  }
}
