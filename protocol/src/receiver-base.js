// What the Uncoded and Coded receivers share: checks on every packet before it touches
// state, the per-source echo (highest seq received from each source, for the senders' loss
// detection), feedback pacing, done, counts and the receivedLog.
import { ReceivedLog } from './received-log.js';
import { checkSourceCount, computeLayout, normalizeParams } from './params.js';
import { codedError } from '@mutp/common/errors';

/** handlePacket() results, shared so the hot path allocates nothing. */
export const USEFUL = Object.freeze({ useful: true });
export const NOT_USEFUL = Object.freeze({ useful: false });
/** pollDelivered()/pollIntegrity() when nothing happened: one frozen array instead of one per packet. */
const NOTHING = /** @type {any[]} */ (/** @type {unknown} */ (Object.freeze([])));

/**
 * @typedef {object} ReceiverOptions
 * @property {any} meta                 the meta message (from the wire or sender.meta())
 * @property {Partial<import('./params.js').Params>} [params] feedbackEvery, feedbackMaxDelayMs; layout comes from meta
 * @property {number} [sourceCount]     N
 * @property {number} [now]             creation time, ms
 * @property {'auto'|'simd'|'scalar'|'js'} [impl] codec implementation (coded)
 * @property {(unit: number, bytes: Uint8Array, contributors: ArrayLike<number>) => boolean | null | undefined} [verify]
 *   integrity check of a unit, given the useful packets per source it was built from
 *   (undefined: its checksum is not decided yet; a coded receiver holds such a generation, see recheckHeld;
 *   null: a tie between proxies that this data does not settle, taken as a failed attempt that blames nobody)
 *   (coded: a decoded generation; uncoded: a packet) against the proxies' checksums, e.g.
 *   createMetaVote().verify. Without it nothing is verified (the simulator). With it, a coded
 *   receiver keeps references to the coded payloads it was given until their generation
 *   verifies (to find the corrupted packet): callers must not reuse those buffers.
 * @property {(unit: number, bytes: Uint8Array, contributors: ArrayLike<number>) => boolean | null | undefined} [verifyNow] the same check, answered at
 *   once whenever the vote has decided (default: verify): a coded receiver trying several decodes of one
 *   generation in a row (leaving one source out each time) cannot wait for a checksum taken off the thread
 * @property {(bytes: number) => Uint8Array} [objectBuffer] gives the buffer the object is assembled
 *   in (`bytes` long, zeroed); default a new Uint8Array. A caller that runs many downloads of one
 *   size one after another (the simulator) reuses one instead of paging in a fresh one each time.
 */

/**
 * @typedef {{ kind: 'bad-packet', unit: number, source: number } |
 *   { kind: 'unit-failed', unit: number, contributors: number[] }} IntegrityEvent
 *   bad-packet: a packet of `source` is proven corrupted; unit-failed: a unit failed its
 *   checksum and was discarded (contributors: useful packets per source in the failed attempt)
 */

export class ReceiverBase {
  /**
   * @param {ReceiverOptions} opts
   * @param {'uncoded'|'coded'} mode
   */
  constructor(opts, mode) {
    const meta = opts.meta;
    if (!meta || meta.type !== 'meta' || meta.mode !== mode) throw codedError('ERR_BAD_PARAMS', `a ${mode} meta message is required`);
    this.mode = mode;
    this.downloadId = meta.downloadId;
    const local = pickLocal(opts.params); // the receiver's own choices win over the meta's
    this.params = normalizeParams({
      payloadSize: meta.payloadSize, window: meta.window, generationSize: meta.generationSize,
      feedbackEvery: local.feedbackEvery ?? meta.feedbackEvery, feedbackMaxDelayMs: local.feedbackMaxDelayMs,
    }, mode);
    this.layout = computeLayout(mode, meta.totalSize, this.params);
    if (this.layout.packetCount !== meta.packetCount || this.layout.generationCount !== meta.generationCount) {
      throw codedError('ERR_BAD_PARAMS', 'meta layout is inconsistent');
    }
    this.sourceCount = opts.sourceCount ?? 1;
    checkSourceCount(this.sourceCount);
    this.buffer = opts.objectBuffer ? opts.objectBuffer(meta.totalSize) : new Uint8Array(meta.totalSize);
    if (this.buffer.length !== meta.totalSize) throw codedError('ERR_BAD_PARAMS', 'objectBuffer gave a buffer of the wrong size');
    this.echo = new Array(this.sourceCount).fill(0);
    this.receivedLog = new ReceivedLog();
    this.startedAt = opts.now ?? 0;
    this.lastFeedbackAt = this.startedAt;
    this.feedbackSeq = 0;
    // Feedback cadence per source: each source hears after every feedbackEvery packets of its own
    // (as on one path), not after every feedbackEvery packets from all N; every WebRTC message
    // costs the client a send and the path an SCTP ack, and with N = 4 a broadcast every 8
    // packets in all was 4× the sends for the same news.
    /** packets from each source since it was last sent feedback */
    this.sinceFeedbackBySource = new Uint32Array(this.sourceCount);
    /** when each source was last sent feedback (ms) */
    this.lastFeedbackAtBySource = new Float64Array(this.sourceCount).fill(this.startedAt);
    /** every source index, for feedback due to all */
    this.everySource = Object.freeze(Array.from({ length: this.sourceCount }, (_, i) => i));
    this.urgentFeedback = false;
    this.doneSent = false;
    this.dofTotal = 0;
    this.completedAt = NaN;
    this.firstPacketAt = NaN;
    this.c = {
      grossBytes: 0, netBytes: 0, packets: 0, duplicates: 0, ignored: 0, invalid: 0, outOfWindow: 0, feedbackSent: 0, doneSent: 0,
      integrityFailures: 0,
    };
    this.perSource = Array.from({ length: this.sourceCount }, () => ({ bytes: 0, packets: 0, duplicates: 0, badPackets: 0 }));
    this.verify = opts.verify ?? null;
    this.verifyNow = opts.verifyNow ?? this.verify;
    /** @type {IntegrityEvent[]} */
    this.integrityEvents = [];
    /** set by accept() when it refused the packet for integrity: not a duplicate */
    this.rejected = false;
    /** units (packets or generations) newly ready, for pollDelivered() */
    this.readyUnits = new Int32Array(16);
    this.readyCount = 0;
  }

  /**
   * Take one data/coded message from source `sourceIndex`.
   * @param {any} msg
   * @param {number} sourceIndex
   * @param {number} now
   * @returns {{useful: boolean}}
   */
  handlePacket(msg, sourceIndex, now) {
    if (!msg || typeof msg !== 'object' || msg.downloadId !== this.downloadId) { this.c.ignored++; return NOT_USEFUL; }
    if (!Number.isInteger(sourceIndex) || sourceIndex < 0 || sourceIndex >= this.sourceCount ||
      !Number.isInteger(msg.seq) || msg.seq < 1 || msg.seq > 0xffffffff) { this.c.invalid++; return NOT_USEFUL; }
    const payloadBytes = this.check(msg);
    if (payloadBytes < 0) return NOT_USEFUL; // counted by check()
    if (msg.seq > this.echo[sourceIndex]) this.echo[sourceIndex] = msg.seq;
    this.rejected = false;
    const useful = this.complete ? false : this.accept(msg, now, sourceIndex);
    const c = this.c;
    const s = this.perSource[sourceIndex];
    c.packets++;
    c.grossBytes += payloadBytes;
    s.packets++;
    s.bytes += payloadBytes;
    if (!useful && !this.rejected) { c.duplicates++; s.duplicates++; }
    if (Number.isNaN(this.firstPacketAt)) this.firstPacketAt = now;
    this.sinceFeedbackBySource[sourceIndex]++;
    this.receivedLog.add(now, sourceIndex, useful, this.dofTotal);
    if (useful && this.complete && Number.isNaN(this.completedAt)) this.completedAt = now;
    return useful ? USEFUL : NOT_USEFUL;
  }

  /**
   * The feedback (or done) message due now, or null; to which sources: pollFeedbackFor().
   * @param {number} now
   */
  pollFeedback(now) {
    return this.pollFeedbackFor(now)?.message ?? null;
  }

  /**
   * The feedback (or done) message to send now and the sources it is due to, or null. A source is
   * due after `feedbackEvery` packets of its own (useful or not: duplicates mean it lacks news),
   * or feedbackMaxDelayMs after its last feedback if its packets arrived since; every source is
   * due at once when a generation completes (so none keeps sending it) and for the first done.
   * @param {number} now
   * @returns {{ message: any, sources: readonly number[] } | null}
   */
  pollFeedbackFor(now) {
    const due = this.dueSources(now);
    if (this.complete) {
      if (this.doneSent && due.length === 0) return null;
      // done to all, then again to a source whose packets keep coming: the earlier done was lost
      const sources = this.doneSent ? due : this.everySource;
      this.doneSent = true;
      this.c.doneSent++;
      this.markFeedbackSent(now, sources);
      return { message: { type: 'done', downloadId: this.downloadId }, sources };
    }
    if (due.length === 0) return null;
    this.markFeedbackSent(now, due);
    this.c.feedbackSent++;
    return { message: this.buildFeedback(++this.feedbackSeq), sources: due };
  }

  /**
   * @param {number} now
   * @returns {readonly number[]} the sources feedback is due to now (runs after every packet: allocates only when one is due)
   */
  dueSources(now) {
    if (this.urgentFeedback) return this.everySource;
    const every = this.params.feedbackEvery;
    const maxDelay = this.params.feedbackMaxDelayMs;
    /** @type {number[] | null} */
    let due = null;
    for (let i = 0; i < this.sourceCount; i++) {
      const since = this.sinceFeedbackBySource[i];
      if (since >= every || (since > 0 && now >= this.lastFeedbackAtBySource[i] + maxDelay)) (due ??= []).push(i); // same sum as wakeAt()
    }
    return due ?? NOTHING;
  }

  /** @param {number} now @param {readonly number[]} sources */
  markFeedbackSent(now, sources) {
    for (const i of sources) {
      this.sinceFeedbackBySource[i] = 0;
      this.lastFeedbackAtBySource[i] = now;
    }
    this.urgentFeedback = false;
    this.lastFeedbackAt = now;
    this.receivedLog.feedback.push(now);
  }

  /** When pollFeedback() will have something to send without another packet (Infinity: never). */
  wakeAt() {
    if (this.urgentFeedback || (this.complete && !this.doneSent)) return this.lastFeedbackAt;
    let t = Infinity;
    for (let i = 0; i < this.sourceCount; i++) {
      if (this.sinceFeedbackBySource[i] > 0) t = Math.min(t, this.lastFeedbackAtBySource[i] + this.params.feedbackMaxDelayMs);
    }
    return t;
  }

  /** @param {number} unit */
  markReady(unit) {
    if (this.readyCount === this.readyUnits.length) {
      const a = new Int32Array(this.readyUnits.length * 2);
      a.set(this.readyUnits);
      this.readyUnits = a;
    }
    this.readyUnits[this.readyCount++] = unit;
  }

  /** Object bytes that became ready since the last call, in any order. @returns {{offset: number, bytes: Uint8Array}[]} */
  pollDelivered() {
    if (this.readyCount === 0) return NOTHING;
    const out = new Array(this.readyCount);
    const unitBytes = this.layout.payloadSize * this.layout.generationSize;
    for (let k = 0; k < this.readyCount; k++) {
      const offset = this.readyUnits[k] * unitBytes;
      out[k] = { offset, bytes: this.buffer.subarray(offset, Math.min(this.buffer.length, offset + unitBytes)) };
    }
    this.readyCount = 0;
    return out;
  }

  /** Integrity events since the last call: proven bad packets and discarded units. @returns {IntegrityEvent[]} */
  pollIntegrity() {
    return this.integrityEvents.length === 0 ? NOTHING : this.integrityEvents.splice(0);
  }

  /** A packet of `source` is proven corrupted. @param {number} unit @param {number} source */
  blame(unit, source) {
    this.perSource[source].badPackets++;
    this.integrityEvents.push({ kind: 'bad-packet', unit, source });
  }

  get complete() { return this.dofTotal >= this.layout.packetCount; }
  isComplete() { return this.complete; }

  /** The whole object once complete, else null. */
  data() { return this.complete ? this.buffer : null; }

  counts() {
    return {
      ...this.c, dof: this.dofTotal, firstPacketAt: this.firstPacketAt, completedAt: this.completedAt,
      perSource: this.perSource.map((s) => ({ ...s })),
    };
  }

  // Subclass hooks.
  /** Check a message against the layout; returns its payload bytes or -1 (and counts why). @param {any} _msg @returns {number} */
  check(_msg) { return -1; }
  /** @param {any} _msg @param {number} _now @param {number} _sourceIndex @returns {boolean} useful */
  accept(_msg, _now, _sourceIndex) { return false; }
  /** @param {number} _seq @returns {any} */
  buildFeedback(_seq) { return null; }
  /** Free codec memory. */
  close() {}
}

/** Only the receiver-local parameters may override the meta. @param {any} p */
function pickLocal(p) {
  /** @type {{ feedbackEvery?: number, feedbackMaxDelayMs?: number }} */
  const out = {};
  if (p && p.feedbackEvery !== undefined) out.feedbackEvery = p.feedbackEvery;
  if (p && p.feedbackMaxDelayMs !== undefined) out.feedbackMaxDelayMs = p.feedbackMaxDelayMs;
  return out;
}
