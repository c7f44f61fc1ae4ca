// Coded MUTP sender (paper III.B): generations of g packets, RLNC-coded; the window holds
// w/g generations from the lowest one the client has not completed.
// Rarest generation first: send from the window generation with the least (received DoF +
// in transit) that is still short of its size (+ `surplus` for loss); ties broken at random.
// scheduler 'share': each source keeps to its own quota of every generation (computeQuota),
// counting its useful packets as the feedback reports them per source, and fills the window
// lowest generation first. Without it, N sources each fill every generation and the client
// gets up to N× the packets a generation's tail needs.
import { SenderBase, newDatagram } from './sender-base.js';
import { sourceSeed } from './rng.js';
import { writeCodedHeader } from './wire.js';
import { CODED_HEADER_BYTES } from './constants.js';
import { RecentRates } from './recent-rates.js';

/**
 * 'share': the sources' weights are the packets each sent while the last this-many windows of
 * generations completed: their recent rates (RecentRates). Totals since the start lagged: live
 * 4×896 KiB/s, 2 kept + 2 new connections, generation 59 of 60 was still split 7:8:4:5 between
 * four equal links.
 */
const WEIGHT_SPAN_WINDOWS = 1;

/**
 * End game ('share', the window at the object's end): a source with nothing left to owe sends up
 * to this many coded packets beyond its debt to each incomplete generation per round of feedback,
 * when it has seen loss. Its owed packets are all on their way then, and a lost one would cost the
 * round trip of feedback that reports it: any coded packet replaces it instead. Each is useful
 * where a packet of that generation was lost and costs a duplicate where none was (the source
 * would idle meanwhile).
 */
const END_GAME_EXTRA_PACKETS = 1;

/**
 * Loss (fraction of this source's echoed packets) from which the end game sends extra packets:
 * below it a generation's tail rarely loses a packet (a queue overflow now and then), and the
 * extras would be duplicates.
 */
const END_GAME_MIN_LOSS = 0.002;

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
    /** per generation: my packets a later echo settled (each received or lost) */
    this.echoed = new Int32Array(G);
    /** per generation: my packets known lost so far (stats.lostByEcho counts their sum) */
    this.lostSeen = new Int32Array(G);
    /** my packets a later echo settled, in all */
    this.echoedTotal = 0;
    /** @type {(import('@mutp/rlnc').Encoder | undefined)[]} */
    this.encoders = new Array(G);
    this.gmin = 0;
    this.gend = Math.min(G, this.layout.windowGenerations);
    // 'share' with one source is lowest generation first: rarest-first ('paper') spreads one source's
    // packets over the whole window, so every generation completes at once and the window waits a
    // round trip (simulator, 1×1792 KiB/s, RTT 50 ms, w=240, 4 MiB: 73% of the link; lowest first 94.5%)
    this.shared = this.params.scheduler === 'share';
    const wg = this.layout.windowGenerations;
    const n = this.sourceCount;
    /**
     * 'share': per-source weights, the recent rates over the last WEIGHT_SPAN_WINDOWS of
     * generations. Every source hears the feedback that moves the window (the receiver sends it
     * to all when a generation completes), so all compute the same weights for the generations
     * that enter it.
     */
    this.rates = new RecentRates(n, WEIGHT_SPAN_WINDOWS * wg);
    /** 'share', per (window slot, source), generation k in slot k mod wg: the source's quota of k */
    this.quotas = new Int32Array(wg * n);
    /** 'share', per (window slot, source): useful packets the source gave k (feedback `contrib`) */
    this.contrib = new Int32Array(wg * n);
    /** 'share', per generation: packets this source still owes k, after others' excess (see owed()) */
    this.owe = new Int32Array(G);
    /** 'share', per window slot: others' owed packets a helper may take (computeStealable) */
    this.stealable = new Float64Array(wg);
    /** computeStealable's scratch: per source, packets it is committed to send within the horizon */
    this.committed = new Float64Array(n);
    /** 'share': generations below this have quotas. The whole first window gets them now, with equal weights;
     * a generation entering later is split by the weights of the feedback before it. */
    this.assignedEnd = 0;
    if (this.shared) this.assignUpTo(this.gend);
  }

  /** @param {number} end */
  assignUpTo(end) {
    for (let k = Math.max(this.assignedEnd, this.gmin); k < end; k++) this.enterWindow(k);
    this.assignedEnd = Math.max(this.assignedEnd, end);
  }

  /** @param {number} k */
  generationSize(k) {
    return k === this.layout.generationCount - 1 ? this.layout.lastGenerationSize : this.layout.generationSize;
  }

  /**
   * Generation k enters the window ('share'): split its packets among the sources in proportion
   * to the sources' recent rates (from the feedback that moved the window, which every source
   * sees alike), in integers so the quotas add up to the generation size exactly; the
   * rounding remainder rotates with k. Fixed from now on, so later feedback cannot make quotas
   * overlap.
   * @param {number} k
   */
  enterWindow(k) {
    const n = this.sourceCount;
    const w = this.rates.weights;
    const total = this.rates.total;
    const size = this.generationSize(k);
    const row = (k % this.layout.windowGenerations) * n;
    let before = 0;
    for (let i = 0; i < n; i++) {
      const p = (k + i) % n;
      this.quotas[row + p] = Math.floor(((before + w[p]) * size) / total) - Math.floor((before * size) / total);
      before += w[p];
      this.contrib[row + p] = 0;
    }
    this.owe[k] = this.quotas[row + this.sourceIndex];
  }

  /**
   * Packets this source still owes generation k ('share'), from the latest feedback: its quota
   * minus what it delivered, less its part of the excess others delivered beyond their quotas
   * (a helper that took over some of the generation). The excess is charged to the sources with
   * the smallest quota first (the slow ones, whose work helpers take), ties by index from k,
   * the same way at every source, so the debts of all sources add up to the generation's
   * missing DoF and nobody repeats what a helper already sent.
   * @param {number} k
   * @param {number} [me] the source whose debt to compute
   */
  owed(k, me = this.sourceIndex) {
    return this.owedWithExcess(k, me, -1);
  }

  /**
   * owed(k, me), given the excess of k's row when known (≥ 0; the same for every `me`: a caller
   * asking for every source computes it once), or -1 to compute it here.
   * @param {number} k @param {number} me @param {number} rowExcess
   */
  owedWithExcess(k, me, rowExcess) {
    const n = this.sourceCount;
    const row = (k % this.layout.windowGenerations) * n;
    const q = this.quotas;
    const c = this.contrib;
    const mine = q[row + me] - c[row + me];
    if (mine <= 0) return 0;
    let excess = rowExcess >= 0 ? rowExcess : this.excess(row);
    if (excess === 0) return mine;
    // charged before me: sources with a smaller quota, or an equal one earlier in the k-rotation
    // (rank q·n + rotation position: no closure, this runs for every source and generation per feedback)
    // (position in the k-rotation: j + rot wraps at most once, so a subtraction, not a modulo)
    const rot = n - (k % n);
    const myRank = q[row + me] * n + (me + rot >= n ? me + rot - n : me + rot);
    for (let j = 0; j < n; j++) {
      if (j === me || q[row + j] * n + (j + rot >= n ? j + rot - n : j + rot) > myRank) continue;
      const d = q[row + j] - c[row + j];
      if (d <= 0) continue;
      excess -= Math.min(excess, d);
      if (excess === 0) return mine;
    }
    return Math.max(0, mine - excess);
  }

  /** Useful packets the sources delivered beyond their quotas, in the ring row starting at `row`. @param {number} row */
  excess(row) {
    const q = this.quotas;
    const c = this.contrib;
    let excess = 0;
    for (let j = 0; j < this.sourceCount; j++) {
      const d = c[row + j] - q[row + j];
      if (d > 0) excess += d;
    }
    return excess;
  }

  /**
   * 'share', after feedback: how many of the other sources' owed packets of each window
   * generation a helper may take without racing them. Each owner sends lowest generation
   * first; in the time my packet needs to reach the client and the feedback to reach the
   * owner (about my RTT), owner j sends about (my packets in transit) × (its recent rate /
   * mine) packets (RecentRates.horizonPackets), so those of its owed packets, counted lowest first, are as good as sent.
   * The rest, higher in the window, can be taken.
   */
  computeStealable() {
    const n = this.sourceCount;
    const me = this.sourceIndex;
    const wg = this.layout.windowGenerations;
    const committed = this.committed;
    for (let j = 0; j < n; j++) committed[j] = this.rates.horizonPackets(j, me, this.transit.length);
    this.stealable.fill(0);
    // generation by generation (each source's commitment is spent lowest generation first, and a
    // slot sums the sources in index order, as source by source would): k's excess is computed once
    for (let k = this.gmin; k < this.gend; k++) {
      if (this.dof[k] >= this.generationSize(k)) continue;
      const excess = this.excess((k % wg) * n);
      let s = this.stealable[k % wg];
      for (let j = 0; j < n; j++) {
        if (j === me) continue;
        const o = this.owedWithExcess(k, j, excess);
        const c = Math.min(o, committed[j]);
        committed[j] -= c;
        s += o - c;
      }
      this.stealable[k % wg] = s;
    }
  }

  /**
   * The generation to send from, or -1. 'share': the lowest window generation where this
   * source still owes packets (owed() beyond its packets in transit); when it owes none, it
   * helps on the highest window generation still short of DoF + its own packets in transit:
   * the owners fill their quotas lowest first, so the top of the window is where their packets
   * are least likely to be on the way already, and the feedback tells them before they get
   * there. A silent or slow source thus cannot hold a generation back.
   * 'paper': rarest generation first (least DoF + in transit), random ties.
   */
  pick() {
    const surplus = this.params.surplus;
    const end = Math.min(this.gend, this.haveUnits); // a streamed sender sends generations whose bytes are all there
    if (this.shared) {
      for (let k = this.gmin; k < end; k++) {
        if (this.dof[k] < this.generationSize(k) && this.inTransit[k] < this.owe[k] + surplus) return k;
      }
      const wg = this.layout.windowGenerations;
      for (let k = end - 1; k >= this.gmin; k--) {
        if (this.dof[k] + this.inTransit[k] < this.generationSize(k) + surplus &&
          this.inTransit[k] - this.owe[k] < this.stealable[k % wg]) return k;
      }
      return this.endGamePick();
    }
    let best = -1;
    let bestEst = Infinity;
    let ties = 0;
    for (let k = this.gmin; k < end; k++) {
      const size = this.generationSize(k);
      if (this.dof[k] >= size) continue;
      const est = this.dof[k] + this.inTransit[k];
      if (est >= size + surplus) continue;
      if (est < bestEst) { best = k; bestEst = est; ties = 1; } else if (est === bestEst && this.rand() * ++ties < 1) best = k;
    }
    return best;
  }

  /**
   * 'share', nothing owed or stealable: in the end game, the lowest incomplete generation that has
   * fewer than END_GAME_EXTRA_PACKETS of mine beyond my debt in transit; else -1. Only on a lossy
   * path, or when none of mine is in transit: a source that heard nothing since its last packets
   * settled (its feedback or the client's done was lost) sends one packet per round trip, whose
   * arrival brings feedback or done again, instead of idling with the download unfinished.
   */
  endGamePick() {
    if (this.gend < this.layout.generationCount || this.haveUnits < this.layout.generationCount) return -1;
    const lossy = this.stats.lostByEcho > 0 && this.stats.lostByEcho >= END_GAME_MIN_LOSS * this.echoedTotal;
    if (!lossy && this.transit.length > 0) return -1;
    for (let k = this.gmin; k < this.gend; k++) {
      if (this.dof[k] < this.generationSize(k) && this.inTransit[k] < this.owe[k] + END_GAME_EXTRA_PACKETS) return k;
    }
    return -1;
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
   * Choose the next packet's generation and book it as sent; -1 when the window allows nothing.
   * @param {number} now
   */
  take(now) {
    if (this.finished) return -1;
    this.expireTransit(now);
    const k = this.pick();
    if (k < 0) return -1;
    this.encoderFor(k); // before booking: setting up the encoder may throw
    const seq = ++this.seq;
    this.inTransit[k]++;
    this.transit.push(seq, k, now);
    this.stats.sent++;
    return k;
  }

  /**
   * The next coded message, or null when the window allows nothing now.
   * @param {number} now
   * @returns {import('./wire.js').CodedMessage | null}
   */
  nextPacket(now) {
    const k = this.take(now);
    if (k < 0) return null;
    const codedPayload = /** @type {import('@mutp/rlnc').Encoder} */ (this.encoders[k]).writePayload(); // take() returns window generations, whose encoders exist
    return { type: 'coded', downloadId: this.downloadId, seq: this.seq, generation: k, symbols: this.generationSize(k), codedPayload };
  }

  /**
   * The next coded message already encoded for the wire (the same bytes as
   * encodeMessage(nextPacket(now))), or null. The coded payload is written by the codec straight
   * into the datagram: no payload copy, no message object.
   * @param {number} now
   * @param {(n: number) => Uint8Array} [alloc] gives the datagram's buffer of exactly n bytes (zeroed or not)
   * @returns {Uint8Array | null}
   */
  nextDatagram(now, alloc = newDatagram) {
    const k = this.take(now);
    if (k < 0) return null;
    const symbols = this.generationSize(k);
    const b = alloc(CODED_HEADER_BYTES + symbols + this.layout.payloadSize);
    writeCodedHeader(b, this.downloadId, this.seq, k, symbols);
    /** @type {import('@mutp/rlnc').Encoder} */ (this.encoders[k]).writePayloadInto(b, CODED_HEADER_BYTES);
    return b;
  }

  /** @param {any} msg */
  validFeedback(msg) {
    const G = this.layout.generationCount;
    const d = msg.dof;
    if (!Number.isInteger(msg.base) || msg.base > G || !d || d.length > G - msg.base) return false;
    const c = msg.contrib;
    if (!c || c.length !== d.length * this.sourceCount) return false;
    // decoded feedback carries a Uint8Array: every entry is an integer 0..255 already
    if (!(c instanceof Uint8Array)) for (let i = 0; i < c.length; i++) if (!Number.isInteger(c[i]) || c[i] < 0 || c[i] > 255) return false;
    for (let i = 0; i < d.length; i++) {
      const v = d[i];
      if (!Number.isInteger(v) || v < 0 || v > this.generationSize(msg.base + i)) return false;
    }
    return true;
  }

  /** @param {any} msg */
  applyFeedback(msg) {
    const base = msg.base;
    const G = this.layout.generationCount;
    const n = this.sourceCount;
    for (let k = this.gmin; k < base; k++) this.dof[k] = this.generationSize(k);
    const d = msg.dof;
    // newer feedback is the truth (handleFeedback refuses stale ones): a generation whose decode
    // failed its checksum goes back to DoF 0 and must be sent again
    for (let i = 0; i < d.length; i++) this.dof[base + i] = d[i];
    // the window starts at the client's base, whose own window it is: a generation there with its
    // full DoF is held for its checksum and may still fail (DoF back to 0), so it stays, unsent
    // while full, and its encoder with it
    const g = Math.max(this.gmin, base);
    for (let k = this.gmin; k < g; k++) this.dropEncoder(k);
    if (this.shared) this.rates.update(msg.echo, g);
    // move the window first: generations entering it take over the ring slots of those leaving
    const oldEnd = this.gend;
    this.gmin = g;
    this.gend = Math.max(oldEnd, Math.min(G, g + this.layout.windowGenerations));
    if (!this.shared) return;
    this.assignUpTo(this.gend);
    const wg = this.layout.windowGenerations;
    const c = msg.contrib;
    for (let i = 0; i < d.length; i++) {
      const k = base + i;
      if (k < this.gmin || k >= this.gend) continue;
      const row = (k % wg) * n;
      for (let j = 0; j < n; j++) this.contrib[row + j] = c[i * n + j];
      this.owe[k] = this.owed(k);
    }
  }

  /** Feedback applied and echoed packets settled: my transit now spans about one RTT. @param {any} msg */
  afterFeedback(msg) {
    this.countLost(msg);
    if (this.shared) this.computeStealable();
  }

  /**
   * Packets of mine lost, for the pacing's loss response: in a generation the client has not
   * completed every packet it got was useful, so my echoed packets less my contribution
   * (feedback `contrib`) were lost. Generations completed by now are left out (their late
   * packets are not useful), so this counts a little less than was lost.
   * @param {any} msg
   */
  countLost(msg) {
    const d = msg.dof;
    const c = msg.contrib;
    const n = this.sourceCount;
    for (let i = 0; i < d.length; i++) {
      const k = msg.base + i;
      if (d[i] >= this.generationSize(k)) continue;
      const lost = this.echoed[k] - c[i * n + this.sourceIndex];
      if (lost > this.lostSeen[k]) {
        this.stats.lostByEcho += lost - this.lostSeen[k];
        this.lostSeen[k] = lost;
      }
    }
  }

  /** @param {number} k */
  dropEncoder(k) {
    const enc = this.encoders[k];
    if (enc) { enc.dispose(); this.encoders[k] = undefined; }
  }

  /** @param {number} k @param {number} _seq @param {boolean} byEcho */
  settle(k, _seq, byEcho) {
    this.inTransit[k]--;
    if (byEcho) {
      this.echoed[k]++;
      this.echoedTotal++;
    }
    return false; // coded: a settled packet is either counted in DoF or lost (countLost); no per-packet state
  }

  allAcknowledged() {
    return this.gmin >= this.layout.generationCount;
  }

  release() {
    for (let k = 0; k < this.encoders.length; k++) this.dropEncoder(k);
  }
}
