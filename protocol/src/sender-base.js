// What the Uncoded and Coded senders share: identity, per-source sequence numbers, the
// in-transit queue with loss detection from the feedback echo, the RTT estimate and the
// timeout safety net, and the checks every feedback passes before it touches state.
import { TransitQueue } from './transit-queue.js';
import { createRng, sourceSeed } from './rng.js';
import { checkSourceCount, computeLayout, normalizeParams } from './params.js';
import { codedError } from '@mutp/common/errors';
import { CHECKSUM_ALGO_SHA256, CHECKSUM_ENTRY_BYTES, checksumOf, checksumTable, unitRange } from './integrity/checksums.js';
import { MAX_DATAGRAM_BYTES, META_HEADER_BYTES, META_CHECKSUM_HEADER_BYTES } from './constants.js';

/** Checksum entries one meta message carries: as many as fit the datagram (145 of 8 bytes). */
export const CHECKSUMS_PER_META = Math.floor((MAX_DATAGRAM_BYTES - META_HEADER_BYTES - META_CHECKSUM_HEADER_BYTES) / CHECKSUM_ENTRY_BYTES);

/**
 * nextDatagram()'s default buffer: a fresh Uint8Array. A caller that makes many short-lived
 * datagrams (the simulator) passes views of a larger buffer instead.
 * @param {number} n bytes
 */
export const newDatagram = (n) => new Uint8Array(n);

/**
 * An allocator for nextDatagram() that hands out the same buffer for every datagram of a size:
 * each is valid until the next call. For a sender that hands each datagram to a transport that
 * copies it at once (RTCDataChannel.send copies, in browsers and in node-datachannel). A fresh
 * datagram of ~1.1 KB lives outside V8's heap: a zeroed malloc and a tracked ArrayBuffer per
 * packet, freed by the garbage collector later.
 * @returns {(n: number) => Uint8Array}
 */
export function reusedDatagrams() {
  /** @type {Map<number, Uint8Array>} by size: a download's datagrams take one or two sizes */
  const bySize = new Map();
  return (n) => {
    let b = bySize.get(n);
    if (!b) bySize.set(n, b = new Uint8Array(n));
    return b;
  };
}

/** Weight of a new RTT sample in the smoothed RTT (TCP's classic 1/8). */
const RTT_GAIN = 1 / 8;
/** Presume a packet lost after this many smoothed RTTs without news of it. */
const RTO_RTTS = 2;

/**
 * @typedef {object} SenderOptions
 * @property {Uint8Array} data             the whole object (or range) this source serves
 * @property {Partial<import('./params.js').Params>} [params]
 * @property {number} [sourceIndex]        0..sourceCount-1, from the request
 * @property {number} [sourceCount]        N, from the request
 * @property {number} [seed]               u32; mixed with sourceIndex so sources differ
 * @property {number} [downloadId]         u32, from the request
 * @property {'auto'|'simd'|'scalar'|'js'} [impl] codec implementation (coded)
 * @property {Uint8Array} [checksums]      the checksum table of `data` under these params, already
 *   hashed (checksumTable()): a server serving one object to many sessions hashes it once
 * @property {boolean} [streamed]          `data` is the object's buffer, filled from its start as the server gets
 *   the bytes (haveBytes() says how far): only units wholly there are sent, and the meta is streamed
 *   (streamedMeta: the layout first, each unit's checksum once its bytes are there)
 * @property {boolean} [keepsHeld]         coded: say so in the meta (keepsHeld) to a client that asked (its request
 *   `holds`): a coded sender keeps generations above the client's base in its window, so one the client held and
 *   then failed is sent again
 */

export class SenderBase {
  /**
   * @param {SenderOptions} opts
   * @param {'uncoded'|'coded'} mode
   */
  constructor(opts, mode) {
    if (!(opts.data instanceof Uint8Array)) throw codedError('ERR_BAD_PARAMS', 'data must be a Uint8Array');
    this.mode = mode;
    this.params = normalizeParams(opts.params, mode);
    this.sourceCount = opts.sourceCount ?? 1;
    checkSourceCount(this.sourceCount);
    this.sourceIndex = opts.sourceIndex ?? 0;
    if (!Number.isInteger(this.sourceIndex) || this.sourceIndex < 0 || this.sourceIndex >= this.sourceCount) {
      throw codedError('ERR_BAD_PARAMS', 'sourceIndex must be 0..sourceCount-1');
    }
    this.downloadId = opts.downloadId ?? 0;
    this.layout = computeLayout(mode, opts.data.length, this.params);
    this.data = opts.data;
    this.seed = sourceSeed((opts.seed ?? (Math.random() * 2 ** 32)) >>> 0, this.sourceIndex);
    this.rand = createRng(this.seed);
    /** Last sequence number used; data packets carry 1, 2, 3, … (0 means "none received"). */
    this.seq = 0;
    this.transit = new TransitQueue();
    this.srtt = 0;
    this.lastFeedbackSeq = -1;
    this.finished = this.layout.packetCount === 0;
    /** @type {Uint8Array | null} checksum table, given or hashed by the first metaMessages() */
    this.checksums = opts.checksums ?? null;
    if (this.checksums !== null &&
      (!(this.checksums instanceof Uint8Array) || this.checksums.length !== this.layout.generationCount * CHECKSUM_ENTRY_BYTES)) {
      throw codedError('ERR_BAD_PARAMS', 'checksums must be the checksum table of data under these params');
    }
    this.stats = { sent: 0, feedback: 0, ignored: 0, invalid: 0, stale: 0, lostByEcho: 0, lostByTimeout: 0 };
    this.streamed = opts.streamed === true;
    this.keepsHeld = opts.keepsHeld === true && mode === 'coded';
    /** units (generations; uncoded: packets) whose bytes are all in `data`: the scheduler picks below this */
    this.haveUnits = this.streamed ? 0 : this.layout.generationCount;
    if (this.streamed && this.checksums === null) this.checksums = new Uint8Array(this.layout.generationCount * CHECKSUM_ENTRY_BYTES);
  }

  /**
   * A streamed sender's data holds its first `bytes` bytes now (never fewer than before). Returns
   * the meta messages with the checksums of the units this completed, hashed now: they go out
   * before any packet of those units.
   * @param {number} bytes
   * @returns {import('./wire.js').MetaMessage[]}
   */
  haveBytes(bytes) {
    if (!this.streamed) return [];
    const l = this.layout;
    const unitBytes = l.payloadSize * l.generationSize;
    const units = bytes >= l.totalSize ? l.generationCount : Math.min(l.generationCount, Math.floor(bytes / unitBytes));
    const from = this.haveUnits;
    if (units <= from) return [];
    const table = /** @type {Uint8Array} */ (this.checksums);
    for (let u = from; u < units; u++) {
      const { start, end } = unitRange(l, u);
      table.set(checksumOf(this.data.subarray(start, end)), u * CHECKSUM_ENTRY_BYTES);
    }
    this.haveUnits = units;
    return this.checksumMetas(this.streamedMeta(), from, units);
  }

  /**
   * A streamed sender still owes its client checksums: units its bytes have not completed yet. The
   * client may have every packet already (another proxy's origin was faster), and it holds the
   * generations decoded until a majority vouches for them, so the sender's part ends only with its table.
   */
  owesChecksums() {
    return this.streamed && this.haveUnits < this.layout.generationCount;
  }

  /** A streamed sender's layout meta: no checksums yet, they follow (haveBytes). @param {{ serverFetchMs?: number | null }} [o] */
  streamedMeta(o = {}) {
    return { ...this.meta(), serverFetchMs: o.serverFetchMs ?? null, streamed: true };
  }

  /**
   * `base` with the checksums of units [from, to), CHECKSUMS_PER_META to a message.
   * @param {import('./wire.js').MetaMessage} base @param {number} from @param {number} to
   */
  checksumMetas(base, from, to) {
    const table = /** @type {Uint8Array} */ (this.checksums);
    const out = [];
    for (let first = from; first < to; first += CHECKSUMS_PER_META) {
      const end = Math.min(to, first + CHECKSUMS_PER_META);
      out.push({ ...base, checksums: {
        algo: CHECKSUM_ALGO_SHA256, entryBytes: CHECKSUM_ENTRY_BYTES, first, values: table.subarray(first * CHECKSUM_ENTRY_BYTES, end * CHECKSUM_ENTRY_BYTES),
      } });
    }
    return out;
  }

  /** The meta message to send before any data. @returns {import('./wire.js').MetaMessage} */
  meta() {
    const l = this.layout;
    return {
      type: 'meta', downloadId: this.downloadId, mode: this.mode, totalSize: l.totalSize, payloadSize: l.payloadSize,
      packetCount: l.packetCount, generationSize: l.generationSize, generationCount: l.generationCount,
      window: this.params.window, feedbackEvery: this.params.feedbackEvery, checksums: null,
      ...(this.keepsHeld ? { keepsHeld: true } : {}),
    };
  }

  /**
   * The meta messages to send before any data (integrity, docs/protocol.md): the layout, the
   * proxy's origin fetch time, and the checksum table of this sender's data in slices of
   * CHECKSUMS_PER_META entries, one datagram each. The table is hashed once, on the first call.
   * @param {{ serverFetchMs?: number | null }} [o]
   * @returns {import('./wire.js').MetaMessage[]}
   */
  metaMessages(o = {}) {
    if (this.streamed) {
      // the layout, then the checksums known so far (a re-sent request gets them all again)
      const base = this.streamedMeta(o);
      return [base, ...this.checksumMetas(base, 0, this.haveUnits)];
    }
    const base = { ...this.meta(), serverFetchMs: o.serverFetchMs ?? null };
    if (!this.checksums) this.checksums = checksumTable(this.data, this.layout);
    const units = this.checksums.length / CHECKSUM_ENTRY_BYTES;
    if (units === 0) return [base];
    return this.checksumMetas(base, 0, units);
  }

  /** Current retransmission timeout in ms. */
  rto() {
    return Math.max(this.params.minRtoMs, RTO_RTTS * this.srtt);
  }

  /**
   * When nextPacket(now) returned null: the time at which a timeout could make something
   * sendable again (Infinity if only feedback can). Lets a driver without feedback set a timer.
   */
  wakeAt() {
    if (this.finished || this.transit.length === 0) return Infinity;
    return this.transit.frontTime() + this.rto();
  }

  /**
   * Apply a decoded feedback or done message. Returns true if it changed state. Messages for
   * another download, another mode, stale or malformed ones are counted and ignored.
   * @param {any} msg
   * @param {number} now
   */
  handleFeedback(msg, now) {
    if (!msg || typeof msg !== 'object' || msg.downloadId !== this.downloadId) { this.stats.ignored++; return false; }
    if (msg.type === 'done') {
      this.finish();
      return true;
    }
    if (msg.type !== 'feedback' || msg.mode !== this.mode) { this.stats.ignored++; return false; }
    const echo = msg.echo;
    if (!echo || echo.length !== this.sourceCount || !Number.isInteger(msg.seq)) { this.stats.invalid++; return false; }
    const mine = echo[this.sourceIndex];
    if (!Number.isInteger(mine) || mine < 0 || mine > this.seq) { this.stats.invalid++; return false; } // echoes a packet never sent
    if (msg.seq <= this.lastFeedbackSeq) { this.stats.stale++; return false; } // reordered: a newer one was applied
    if (!this.validFeedback(msg)) { this.stats.invalid++; return false; }
    this.lastFeedbackSeq = msg.seq;
    this.stats.feedback++;
    this.applyFeedback(msg, now);
    this.settleEchoed(mine, now);
    this.afterFeedback(msg, now);
    if (this.allAcknowledged()) this.finish();
    return true;
  }

  /**
   * In-transit packets with seq ≤ echo were received or lost: either way no longer in transit.
   * @param {number} echoSeq
   * @param {number} now
   */
  settleEchoed(echoSeq, now) {
    const q = this.transit;
    while (q.length > 0 && q.frontSeq() <= echoSeq) {
      const seq = q.frontSeq();
      if (seq === echoSeq) this.sampleRtt(now - q.frontTime());
      const item = q.frontItem();
      q.shift();
      if (this.settle(item, seq, true)) this.stats.lostByEcho++;
    }
  }

  /** Presume packets lost that have been in transit longer than the RTO. @param {number} now */
  expireTransit(now) {
    const q = this.transit;
    const rto = this.rto();
    while (q.length > 0 && q.frontTime() + rto <= now) { // same sum as wakeAt(), so a wake-up always expires something
      const item = q.frontItem();
      const seq = q.frontSeq();
      q.shift();
      if (this.settle(item, seq, false)) this.stats.lostByTimeout++;
    }
  }

  /** @param {number} sample */
  sampleRtt(sample) {
    this.srtt = this.srtt === 0 ? sample : this.srtt + RTT_GAIN * (sample - this.srtt);
  }

  finish() {
    if (this.finished) return;
    this.finished = true;
    this.release();
  }

  // Subclass hooks.
  /** @param {any} _msg @returns {boolean} */
  validFeedback(_msg) { return true; }
  /** @param {any} _msg @param {number} _now */
  applyFeedback(_msg, _now) {}
  /** @param {any} _msg @param {number} _now */
  afterFeedback(_msg, _now) {}
  /**
   * Packet `item` sent as `seq` left transit (byEcho: a later packet of ours was echoed; else its
   * RTO ran out); return true if it was presumed lost.
   * @param {number} _item @param {number} _seq @param {boolean} _byEcho
   */
  settle(_item, _seq, _byEcho) { return false; }
  /** @returns {boolean} */
  allAcknowledged() { return false; }
  /** Free codec memory. */
  release() {}
  /** Abort: free resources; the sender sends nothing more. */
  close() { this.finish(); }
}
