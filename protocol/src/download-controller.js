// The client's side of one MUTP download, sans-IO: what to send to which proxy, when to re-send a
// request, when to vote on the proxies' metas, whom to drop (silent, broken, corrupt, lying), what
// bytes to deliver and when the download is complete or failed. The caller (the live client, the
// simulator) owns the sockets and one timer: it feeds events in with `now` and carries out the
// returned actions, and calls tick() at wakeAt(). After its request, a proxy may hear a hint: the
// object the caller will likely ask next.

import { encodeMessage, decodeMessage } from './wire.js';
import { normalizeParams } from './params.js';
import { loadCodec } from './codec.js';
import { UncodedReceiver } from './uncoded-receiver.js';
import { CodedReceiver } from './coded-receiver.js';
import { createMetaVote, createMetaAssembler, largestLayoutGroup, majorityAgrees } from './integrity/meta-vote.js';
import { codedError } from '@mutp/common/errors';
import {
  REQUEST_RESEND_MS, REQUEST_RESEND_FIRST_MS, META_TIMEOUT_MS, NO_PROGRESS_TIMEOUT_MS, REUSED_SILENT_MS, MAX_PENDING_PACKETS,
  MAX_MALFORMED_PER_PROXY, MAX_WARNINGS_PER_PROXY, META_QUORUM_WAIT_MS, EXCLUDE_AFTER_BAD_PACKETS, SLICE_GAP_RESEND_MS, LATE_META_WAIT_MS,
} from './download-constants.js';

/**
 * @typedef {{ type: 'send', source: number, bytes: Uint8Array, replaceable?: boolean } |
 *   { type: 'drop', source: number, code: string, message: string, healthy?: boolean } |
 *   { type: 'reconnect', source: number, why: string } |
 *   { type: 'deliver', chunks: { offset: number, bytes: Uint8Array }[], grossBytes: number, netBytes: number, objectBytes: number } |
 *   { type: 'hash', unit: number, bytes: Uint8Array } |
 *   { type: 'complete', data: Uint8Array } |
 *   { type: 'fail', code: string, message: string } |
 *   { type: 'warn', source: number, message: string }} Action
 *   send: these bytes to proxy `source` (replaceable: a feedback, the receiver's whole state, so
 *   a later replaceable send to the same proxy makes it worthless: a transport whose thread is
 *   behind may hold it and send only the newest, keeping each proxy's messages in order);
 *   drop: close its connection, it takes no further part (code ERR_INTEGRITY / ERR_META_*:
 *   excluded as corrupt or lying); reconnect: its kept connection is dead, connect afresh and
 *   call connected() again; deliver: object bytes newly ready (views, valid during the call);
 *   hash: take the checksum of these bytes (a decoded generation, a copy the caller may keep) off
 *   the thread and bring it with hashed() (hashOffThread);
 *   complete / fail: the end (`done` is already in the sends).
 */

/**
 * Why a proxy that gave its meta and then left before the vote loses its votes: it broke the
 * protocol or its meta was refused. Any other leaving (a closed channel, silence, its own error
 * message) keeps them, as it does after the vote.
 */
const VOTE_FORFEIT_CODES = new Set(['ERR_PROXY_MALFORMED', 'ERR_META_MISMATCH', 'ERR_INTEGRITY']);

/**
 * One proxy's side of the download.
 * @typedef {object} SourceState
 * @property {number} index
 * @property {'connecting'|'open'|'failed'|'closed'} state
 * @property {any} meta                  its meta, once all slices arrived (streamed: once its layout did)
 * @property {any} metaAsm               collects its meta slices (checksum table)
 * @property {number} gapSince           ms, since when its streamed meta misses a slice: one below later ones, or one a
 *   held generation waits for (0: none)
 * @property {number} badPackets         packets proven corrupted
 * @property {number} requestedAt        ms, the last request sent
 * @property {number} requestsSent       requests sent to this source so far
 * @property {number} lastHeardAt        ms, the last valid message
 * @property {number} connectedAt        ms, the connection was ready
 * @property {boolean} reused            the connection was kept from an earlier download
 * @property {number} bytes              payload bytes received, duplicates included
 * @property {number} packets
 * @property {number} duplicates
 * @property {number} maxSeq             highest packet seq seen (0: none; senders number from 1)
 * @property {number} malformed
 * @property {{ code: string, message: string } | null} error
 * @property {{ originMs: number, prepareMs: number } | null} wait  what its proxy said this request waited there (timing message)
 */

/**
 * @typedef {object} ControllerOptions
 * @property {'coded'|'uncoded'} mode
 * @property {string} url
 * @property {{ start: number, end: number } | null} [range]  end inclusive
 * @property {string | null} [next]     the object the caller will likely ask next: each proxy hears it after the
 *   request and fetches it meanwhile (a URL too long for the datagram is not hinted)
 * @property {boolean} [bundles]        ask the proxies for their packets in bundles (fewer, larger messages; proxies
 *   that predate bundles send them one by one)
 * @property {boolean} [streamed]       coded: take a streamed meta, so a proxy sends while it still gets the object
 *   from the origin (proxies that predate it send the whole meta first)
 * @property {object} [params]          partial protocol params (normalized here)
 * @property {number} sourceCount
 * @property {number} downloadId        u32
 * @property {number[]} seeds           u32 per source: its sender's scheduling seed
 * @property {number} [noProgressTimeoutMs]
 * @property {boolean} [verify]         check units against the voted checksums (default true)
 * @property {boolean} [hashOffThread]  coded, with verify: the caller takes each decoded generation's checksum off
 *   its thread (a browser's WebCrypto digest), asked by a 'hash' action and brought by hashed(); the
 *   generation is held, decoded, until then. Without it the checksum is taken inline: in a browser,
 *   SHA-256 in JS on the thread that receives the packets
 * @property {'auto'|'simd'|'scalar'|'js'} [impl] codec implementation (coded)
 * @property {(bytes: number) => Uint8Array} [objectBuffer] the receiver's buffer for the object (ReceiverOptions)
 */

/**
 * Loads the codec, then everything is synchronous.
 * @param {ControllerOptions} o
 */
export async function createDownloadController(o) {
  const codec = o.mode === 'coded' ? await loadCodec(o.impl) : null;
  return new DownloadController(o, codec);
}

export class DownloadController {
  /** @param {ControllerOptions} o @param {any} codec */
  constructor(o, codec) {
    if (o.mode !== 'coded' && o.mode !== 'uncoded') throw codedError('ERR_BAD_PARAMS', `mode must be coded or uncoded, not ${o.mode}`);
    this.mode = o.mode;
    this.params = normalizeParams(o.params ?? {}, o.mode);
    this.codec = codec;
    this.downloadId = o.downloadId;
    this.noProgressTimeoutMs = o.noProgressTimeoutMs ?? NO_PROGRESS_TIMEOUT_MS;
    this.verify = o.verify !== false;
    this.hashOffThread = o.hashOffThread === true && o.mode === 'coded' && this.verify;
    /** @type {Map<number, Uint8Array>} generation → the checksum of its decode, taken off the thread, not yet used */
    this.checksums = new Map();
    /** @type {Set<number>} generations whose checksum is being taken off the thread */
    this.hashing = new Set();
    this.impl = o.impl;
    this.objectBuffer = o.objectBuffer;
    /** a streamed meta is taken (asked for): coded only, whose sender sends only generations it has whole */
    this.streamed = o.streamed === true && o.mode === 'coded';
    /** @type {SourceState[]} */
    this.sources = [];
    /** @type {Uint8Array[]} */
    this.requests = [];
    for (let i = 0; i < o.sourceCount; i++) {
      this.sources.push({
        index: i, state: 'connecting', meta: null, metaAsm: null, wait: null, gapSince: 0, badPackets: 0, requestedAt: 0, requestsSent: 0, lastHeardAt: 0,
        connectedAt: 0, reused: false, bytes: 0, packets: 0, duplicates: 0, maxSeq: 0, malformed: 0, error: null,
      });
      this.requests.push(encodeMessage({
        type: 'request', downloadId: o.downloadId, url: o.url, method: 'GET', range: o.range ?? null, mode: o.mode,
        sourceIndex: i, sourceCount: o.sourceCount, seed: o.seeds[i], params: this.params, bundles: o.bundles === true, streamed: this.streamed, timing: true,
        holds: this.hashOffThread,
      }));
    }
    /** the hint datagram, sent once per connection after its first request; null: none */
    this.hint = nextHint(o.downloadId, o.next);
    /** @type {any} */ this.receiver = null;
    /** @type {any} the meta vote (layout + checksums), once taken */ this.vote = null;
    /** @type {any} the voted meta */ this.meta = null;
    /** @type {SourceState[]} proxies in the order their meta completed (the vote's tie-break) */
    this.metaOrder = [];
    /** @type {{ msg: any, source: number }[]} packets that came before the vote */
    this.pending = [];
    /** @type {number | null} */ this.firstPacketMs = null;
    this.firstMetaAt = 0;
    /** @type {SourceState | null} the proxy whose meta completed first */ this.firstMetaSource = null;
    /** ms, when the vote was taken (null: not yet) */ this.votedAt = null;
    /** ms, since when a decoded generation waits for its checksum (0: none waits) */
    this.heldSince = 0;
    /** the vote's wait after the first meta has passed: it now waits for a strict majority alone */
    this.quorumWaitOver = false;
    /** the latest time an input brought (ms) */
    this.now = 0;
    this.lastProgressAt = 0;
    this.netBytes = 0;
    this.finished = false;
    /** @type {{ code: string, message: string } | null} */ this.error = null;
    /** @type {Action[]} */ this.out = [];
  }

  // ---- inputs: each returns the actions it caused ----

  /**
   * The connection to proxy i is ready: send the request, unless the proxy took it already (the
   * connection's offer carried it); then it is only counted as sent, so it is re-sent as any
   * other if no meta comes.
   * @param {number} i @param {{ reused?: boolean, requestTaken?: boolean }} info @param {number} now
   */
  connected(i, info, now) {
    this.now = now;
    const s = this.sources[i];
    if (this.finished || s.state !== 'connecting') return this.take();
    s.state = 'open';
    s.reused = info.reused === true;
    s.lastHeardAt = now;
    s.connectedAt = now;
    this.sendRequest(s, now, info.requestTaken === true);
    if (this.hint) this.out.push({ type: 'send', source: s.index, bytes: this.hint });
    return this.take();
  }

  /** Connecting to proxy i failed. @param {number} i @param {string} code @param {string} message @param {number} now */
  connectFailed(i, code, message, now) {
    this.now = now;
    if (!this.finished) this.drop(this.sources[i], code, message);
    return this.take();
  }

  /**
   * The connection closed under us. A kept one that has not yet served this download was stale
   * (the proxy restarted; its close reached us after the pool handed it out): reconnect, as for
   * a silent one. Otherwise the proxy is gone.
   * @param {number} i @param {string} why @param {number} now
   */
  gone(i, why, now) {
    this.now = now;
    const s = this.sources[i];
    if (this.finished) return this.take();
    if (s.state === 'open' && s.reused && !s.metaAsm) this.reconnect(s, why);
    else this.drop(s, 'ERR_PROXY_GONE', why);
    return this.take();
  }

  /** A message from proxy i (null: not binary). @param {number} i @param {Uint8Array | null} bytes @param {number} now */
  datagram(i, bytes, now) {
    this.now = now;
    const s = this.sources[i];
    if (this.finished || s.state !== 'open') return this.take();
    const r = bytes ? decodeMessage(bytes) : null;
    if (!r || !r.ok) {
      this.malformed(s, `ignored a malformed message: ${r ? r.error.code : 'not binary'}`);
      return this.take();
    }
    if (r.msg.type !== 'bundle') this.onMessage(s, r.msg, now);
    else {
      // each datagram of a bundle as if it came alone; feedback, delivery and completion once after them
      for (const part of r.msg.parts) {
        const p = decodeMessage(part);
        if (p.ok) this.onMessage(s, p.msg, now, true);
        else this.malformed(s, `ignored a malformed message in a bundle: ${p.error.code}`);
        if (this.finished || s.state !== 'open') break;
      }
      if (this.receiver && !this.finished) this.afterPackets(now);
    }
    return this.take();
  }

  /**
   * @param {SourceState} s @param {any} msg  a decoded message from it @param {number} now
   * @param {boolean} [batched]  part of a bundle: the caller runs afterPackets() once after it
   */
  onMessage(s, msg, now, batched = false) {
    const i = s.index;
    if (msg.downloadId !== this.downloadId) return; // a stale message from another download
    switch (msg.type) {
      case 'meta':
        this.onMeta(s, msg, now);
        break;
      case 'data':
      case 'coded':
        s.lastHeardAt = now;
        if (this.receiver) this.onPacket(s, msg, now, batched);
        else if (this.pending.length < MAX_PENDING_PACKETS) this.pending.push({ msg, source: i });
        break;
      case 'timing':
        // what this request waited at the proxy: a record's time breakdown, never a decision
        s.wait ??= { originMs: msg.originMs, prepareMs: msg.prepareMs };
        break;
      case 'error':
        // the proxy refused in words (a blocked or missing object, a busy origin): its channel works
        this.drop(s, msg.code, msg.message, true);
        break;
      default:
        this.malformed(s, `ignored a ${msg.type} message`);
    }
  }

  /**
   * The checksum of generation k's decode, taken off the thread as a 'hash' action asked.
   * @param {number} k @param {Uint8Array} checksum  checksumOf(the action's bytes) @param {number} now
   */
  hashed(k, checksum, now) {
    this.now = now;
    if (this.finished || !this.hashing.delete(k)) return this.take();
    this.checksums.set(k, checksum);
    if (this.receiver) this.afterPackets(now); // its held generation is decided now (or waits for the vote)
    return this.take();
  }

  /** Timers: feedback when packets stopped, request re-sends, the vote's wait, silent proxies. @param {number} now */
  tick(now) {
    this.now = now;
    if (this.finished) return this.take();
    if (now >= this.lateMetaWaitEnds()) this.vote?.stopAwaiting(); // its open ties are ties now
    if (this.receiver) this.afterPackets(now);
    if (!this.finished) this.maybeVote(now);
    if (this.finished) return this.take();
    const stalled = this.meta !== null && now - this.stallFrom() >= this.noProgressTimeoutMs;
    for (const s of this.sources) {
      if (s.state !== 'open') continue;
      if (s.reused && !s.metaAsm && now - s.connectedAt >= REUSED_SILENT_MS) {
        this.reconnect(s, `silent for ${Math.round(now - s.connectedAt)} ms`);
      } else if (!s.meta) {
        if (now - s.lastHeardAt >= META_TIMEOUT_MS) this.drop(s, 'ERR_PROXY_SILENT', `no meta within ${META_TIMEOUT_MS} ms`);
        else if (now >= this.requestResendAt(s)) this.sendRequest(s, now);
      } else if (stalled && now - s.lastHeardAt >= this.noProgressTimeoutMs) {
        this.drop(s, 'ERR_PROXY_SILENT', `no packet for ${Math.round(now - s.lastHeardAt)} ms while the download stalled`);
      } else if (s.gapSince > 0 && now >= this.gapResendAt(s)) {
        this.sendRequest(s, now); // the proxy sends its meta so far again
      }
    }
    return this.take();
  }

  /**
   * The caller gave up (abort): every open source is told `done`, so it stops sending and its
   * connection can serve another download. @param {string} code @param {string} message
   */
  abort(code, message) {
    if (!this.finished) this.broadcast(encodeMessage({ type: 'done', downloadId: this.downloadId }));
    this.fail(code, message);
    return this.take();
  }

  /**
   * Sources still taking part and heard from within REUSED_SILENT_MS: alive, so their connections
   * may serve another download. @param {number} now @returns {number[]}
   */
  liveSources(now) {
    return this.sources.filter((s) => s.state === 'open' && now - s.lastHeardAt < REUSED_SILENT_MS).map((s) => s.index);
  }

  /** When tick() has something to do (ms; Infinity: nothing without a new event). */
  wakeAt() {
    if (this.finished) return Infinity;
    let t = this.receiver ? this.receiver.wakeAt() : Infinity;
    // a generation held for its checksum: then markSliceGaps names who lacks it (and gapResendAt below times the asking)
    if (this.heldSince > 0 && this.now < this.heldSince + SLICE_GAP_RESEND_MS) t = Math.min(t, this.heldSince + SLICE_GAP_RESEND_MS);
    if (!this.vote && this.metaOrder.length > 0 && !this.quorumWaitOver) t = Math.min(t, this.firstMetaAt + META_QUORUM_WAIT_MS);
    t = Math.min(t, this.lateMetaWaitEnds());
    const stallAt = this.meta !== null ? this.stallFrom() + this.noProgressTimeoutMs : Infinity;
    for (const s of this.sources) {
      if (s.state !== 'open') continue;
      if (s.reused && !s.metaAsm) t = Math.min(t, s.connectedAt + REUSED_SILENT_MS);
      if (!s.meta) t = Math.min(t, s.lastHeardAt + META_TIMEOUT_MS, this.requestResendAt(s));
      else t = Math.min(t, Math.max(stallAt, s.lastHeardAt + this.noProgressTimeoutMs), s.gapSince > 0 ? this.gapResendAt(s) : Infinity);
    }
    return t;
  }

  /** Frees the receiver's codec memory (after data() has been taken). */
  close() {
    this.receiver?.close?.();
  }

  // ---- what the caller reports at the end ----

  grossBytes() {
    let g = 0;
    for (const s of this.sources) g += s.bytes;
    return g;
  }

  /**
   * The fraction of packets the proxies sent that never arrived, from each source's sequence
   * numbers (a source numbers its packets 1, 2, 3…). Null before any packet.
   */
  lossEstimate() {
    let sent = 0;
    let received = 0;
    for (const s of this.sources) {
      if (s.maxSeq <= 0) continue;
      sent += s.maxSeq;
      received += Math.min(s.packets, s.maxSeq);
    }
    return sent > 0 ? (sent - received) / sent : null;
  }

  /** The proxies' origin-fetch times (ms) from their metas. */
  serverFetchMs() {
    return this.sources.filter((s) => s.meta && s.meta.serverFetchMs !== null && s.meta.serverFetchMs !== undefined).map((s) => s.meta.serverFetchMs);
  }

  /**
   * The steps before the first packet, for the record's time breakdown (ms since the start):
   * the first complete meta, what its proxy said it waited there, and the vote.
   * @returns {{ answerMs: number | null, originMs: number | null, prepareMs: number | null, decidedMs: number | null }}
   */
  requestSteps() {
    const f = this.firstMetaSource;
    return {
      answerMs: f ? this.firstMetaAt : null, originMs: f?.wait?.originMs ?? null, prepareMs: f?.wait?.prepareMs ?? null, decidedMs: this.votedAt,
    };
  }

  // ---- internals ----

  take() {
    const a = this.out;
    this.out = [];
    return a;
  }

  /** When a source's request is re-sent if no meta came (ms). @param {SourceState} s */
  requestResendAt(s) {
    return s.requestedAt + (s.requestsSent <= 1 ? REQUEST_RESEND_FIRST_MS : REQUEST_RESEND_MS);
  }

  /**
   * When a source whose streamed meta misses a slice gets its request re-sent (ms): SLICE_GAP_RESEND_MS
   * after the gap showed and after its last request, then REQUEST_RESEND_MS after each re-send (a
   * proxy whose origin is slow has not hashed the generation yet: it is asked again, not flooded).
   * @param {SourceState} s
   */
  gapResendAt(s) {
    const since = s.requestedAt > s.gapSince ? s.requestedAt + REQUEST_RESEND_MS : s.gapSince + SLICE_GAP_RESEND_MS;
    return Math.max(since, s.requestedAt + SLICE_GAP_RESEND_MS);
  }

  /**
   * Which streamed metas miss a slice: one below later slices (both copies lost), or one a held
   * generation has waited for since SLICE_GAP_RESEND_MS (the last slices have none after them).
   * @param {number} now
   */
  markSliceGaps(now) {
    const held = this.receiver?.held;
    if (!held || held.size === 0) this.heldSince = 0;
    else if (this.heldSince === 0) this.heldSince = now;
    /** @type {Set<number>} */
    const lacking = new Set();
    if (this.heldSince > 0 && now >= this.heldSince + SLICE_GAP_RESEND_MS) {
      for (const k of held) if (!this.vote.decided(k)) for (const i of this.vote.lacking(k)) lacking.add(i); // not one waiting for its hash
    }
    for (const s of this.sources) {
      if (!s.metaAsm?.streamed) continue;
      const missing = s.metaAsm.gap || lacking.has(s.index);
      s.gapSince = !missing ? 0 : s.gapSince || now;
    }
  }

  /** @param {SourceState} s @param {number} now @param {boolean} [taken]  the proxy has it already: count it, send nothing */
  sendRequest(s, now, taken = false) {
    s.requestedAt = now;
    s.requestsSent++;
    if (!taken) this.out.push({ type: 'send', source: s.index, bytes: this.requests[s.index] });
  }

  /** @param {SourceState} s @param {string} message */
  malformed(s, message) {
    s.malformed++;
    if (s.malformed <= MAX_WARNINGS_PER_PROXY) this.out.push({ type: 'warn', source: s.index, message });
    if (s.malformed > MAX_MALFORMED_PER_PROXY) this.drop(s, 'ERR_PROXY_MALFORMED', `${s.malformed} malformed messages`);
  }

  /**
   * One meta datagram of a proxy (its checksum table comes in slices). When the first proxy's
   * meta is complete, wait META_QUORUM_WAIT_MS (or until all have answered), then vote.
   * @param {SourceState} s @param {any} meta @param {number} now
   */
  onMeta(s, meta, now) {
    s.lastHeardAt = now;
    if (s.meta && !s.metaAsm.streamed) return; // a repeat (we re-sent the request)
    if (meta.mode !== this.mode) return this.drop(s, 'ERR_META_MISMATCH', `proxy answered in ${meta.mode} mode`);
    if (meta.streamed && !this.streamed) return this.drop(s, 'ERR_META_MISMATCH', 'proxy streamed its meta unasked');
    if (!s.metaAsm) s.metaAsm = createMetaAssembler(meta);
    const refused = s.metaAsm.add(meta);
    if (refused) return this.drop(s, 'ERR_META_MISMATCH', refused);
    if (s.metaAsm.streamed) this.markSliceGaps(now);
    if (s.meta) {
      // a streamed meta's slice: each of its checksums is one more vote, and may free held generations
      if (this.vote && meta.checksums) {
        this.vote.heard(s.index, meta.checksums.first, meta.checksums.first + meta.checksums.values.length / meta.checksums.entryBytes);
        this.afterPackets(now);
      }
      return;
    }
    if (!s.metaAsm.complete) return;
    s.meta = s.metaAsm.meta;
    if (this.vote) {
      // a proxy whose meta came after the vote must agree with it
      const v = this.vote.admit({ source: s.index, meta: s.meta, table: s.metaAsm.table, has: s.metaAsm.has });
      if (v) this.drop(s, v.code, v.message);
      this.afterPackets(now); // the ties it settled (or that are ties now) free or judge held units
      return;
    }
    this.metaOrder.push(s);
    if (this.metaOrder.length === 1) {
      this.firstMetaAt = now;
      this.firstMetaSource = s;
    }
    this.maybeVote(now);
  }

  /**
   * Vote as soon as a strict majority of the live proxies sent the same meta (the rest cannot
   * outvote it: a proxy's origin fetch can take tens of ms, and the packets wait for the vote),
   * else once every live proxy has sent its meta, or META_QUORUM_WAIT_MS after the first if a
   * strict majority of the live proxies sent one layout: fewer could let one liar set the
   * checksums, and a layout without that majority may yet get it from the metas still to come.
   * @param {number} now
   */
  maybeVote(now) {
    if (this.vote || this.finished || this.metaOrder.length === 0) return;
    const alive = this.sources.filter((s) => s.state === 'open' || s.state === 'connecting');
    const live = this.metaOrder.filter((s) => s.state === 'open');
    if (live.length === 0) return;
    // a proxy that gave its meta and then left keeps its votes, as one that leaves after the vote
    const gone = this.metaOrder.filter((s) => s.state === 'failed' && !VOTE_FORFEIT_CODES.has(/** @type {any} */ (s.error)?.code));
    const voting = this.metaOrder.filter((s) => s.state === 'open' || gone.includes(s)); // arrival order
    const voters = alive.length + gone.length;
    // the same sum as wakeAt(): now - first >= wait can be false by rounding at the instant it wakes us
    if (now >= this.firstMetaAt + META_QUORUM_WAIT_MS) this.quorumWaitOver = true;
    const entries = voting.map((s) => ({ source: s.index, meta: s.meta, table: s.metaAsm.table, has: s.metaAsm.has }));
    const waitForMore = !this.quorumWaitOver || 2 * largestLayoutGroup(entries) <= voters;
    if (live.length < alive.length && waitForMore && !majorityAgrees(entries, voters)) return;
    // the proxies still here without a meta: a unit their metas may decide is not a tie yet
    this.vote = createMetaVote(entries, alive.filter((s) => !this.metaOrder.includes(s)).map((s) => s.index));
    this.votedAt = now;
    for (const s of gone) this.vote.drop(s.index);
    if (this.failIfUnresolved()) return;
    for (const v of this.vote.excluded) this.drop(this.sources[v.source], v.code, v.message);
    if (this.finished) return;
    this.meta = this.vote.meta;
    // a held generation that fails must be sent again: proxies that do not say they keep held
    // generations in their window (older ones) get every checksum taken inline
    const offThread = this.hashOffThread && live.every((s) => s.meta.keepsHeld === true);
    try {
      const opts = {
        meta: this.vote.meta, params: this.params, sourceCount: this.sources.length, now,
        verify: !this.verify ? undefined : offThread ? (/** @type {number} */ k, /** @type {Uint8Array} */ b, /** @type {ArrayLike<number>} */ c) => this.verifyOffThread(k, b, c) : this.vote.verify,
        verifyNow: this.verify ? this.vote.verify : undefined, impl: this.impl, objectBuffer: this.objectBuffer,
      };
      this.receiver = this.mode === 'coded' ? new CodedReceiver(opts, this.codec) : new UncodedReceiver(opts);
    } catch (e) {
      const err = /** @type {any} */ (e);
      return this.fail(err?.code ?? 'ERR_RECEIVER', `cannot create the receiver: ${err?.message ?? err}`);
    }
    for (const p of this.pending.splice(0)) if (this.sources[p.source].state === 'open') this.onPacket(this.sources[p.source], p.msg, now, true);
    this.afterPackets(now);
  }

  /**
   * @param {SourceState} s @param {any} msg @param {number} now
   * @param {boolean} [batched]  one of several (held until the vote, a bundle's parts): the caller runs afterPackets() once after them
   */
  onPacket(s, msg, now, batched = false) {
    if (this.finished) return;
    if (this.firstPacketMs === null) this.firstPacketMs = now;
    let useful;
    try {
      useful = this.receiver.handlePacket(msg, s.index, now).useful;
    } catch (e) {
      this.malformed(s, `packet refused: ${/** @type {Error} */ (e).message}`);
      return;
    }
    s.packets++;
    s.bytes += msg.type === 'data' ? msg.payload.length : msg.codedPayload.length - msg.symbols;
    if (msg.seq > s.maxSeq) s.maxSeq = msg.seq;
    if (useful) this.lastProgressAt = now;
    else s.duplicates++;
    if (!batched) this.afterPackets(now);
  }

  /**
   * The receiver's check of a decoded generation when checksums are taken off the thread: the
   * first call asks for the checksum (a 'hash' action) and holds the generation; once hashed()
   * brought it, the vote decides. A checksum used for a verdict is forgotten: a decode that
   * failed is followed by a new one, hashed anew.
   * @param {number} k @param {Uint8Array} bytes @param {ArrayLike<number>} contributors
   * @returns {boolean | null | undefined}
   */
  verifyOffThread(k, bytes, contributors) {
    const checksum = this.checksums.get(k);
    if (checksum === undefined) {
      if (!this.hashing.has(k)) {
        this.hashing.add(k);
        // a copy: the decoder's symbols may live in the codec's memory, which grows and moves
        this.out.push({ type: 'hash', unit: k, bytes: bytes.slice() });
      }
      return undefined;
    }
    const verdict = this.vote.verifyChecksum(k, checksum, contributors);
    if (verdict !== undefined) this.checksums.delete(k);
    return verdict;
  }

  /** Integrity verdicts, feedback, delivery and completion after one or more packets. @param {number} now */
  afterPackets(now) {
    if (this.finished || !this.receiver) return;
    this.applyIntegrityVerdicts();
    if (this.finished) return;
    // generations held for their checksums: the vote may have decided them since (more slices, fewer voters)
    if (this.receiver.held?.size > 0 && this.receiver.recheckHeld()) this.applyIntegrityVerdicts();
    if (this.finished) return;
    // a held generation's wait starts or ends here (a slice's gap is marked as the slice comes: onMeta)
    if (this.heldSince > 0 || this.receiver.held?.size > 0) this.markSliceGaps(now);
    const fb = this.receiver.pollFeedbackFor(now);
    if (fb) this.sendToOpen(fb.sources, encodeMessage({ ...fb.message, downloadId: this.downloadId }), fb.message.type === 'feedback');
    const chunks = this.receiver.pollDelivered();
    if (chunks.length > 0) {
      for (const c of chunks) this.netBytes += c.bytes.length;
      this.out.push({ type: 'deliver', chunks, grossBytes: this.grossBytes(), netBytes: this.netBytes, objectBytes: this.meta.totalSize });
    }
    if (this.receiver.isComplete()) this.complete();
  }

  /** Exclude proxies proven to corrupt packets or to lie in their meta (receiver and vote verdicts). */
  applyIntegrityVerdicts() {
    for (const e of this.receiver.pollIntegrity()) {
      if (e.kind !== 'bad-packet') continue;
      const s = this.sources[e.source];
      s.badPackets++;
      if (s.badPackets >= EXCLUDE_AFTER_BAD_PACKETS && s.state === 'open') {
        this.out.push({ type: 'warn', source: s.index, message: `sent a corrupted packet (unit ${e.unit}); excluded` });
        this.drop(s, 'ERR_INTEGRITY', `${s.badPackets} corrupted packet(s), first in ${this.mode === 'coded' ? 'generation' : 'packet'} ${e.unit}`);
      }
    }
    for (const v of this.vote.pollLiars()) {
      const s = this.sources[v.source];
      if (s.state === 'open') this.out.push({ type: 'warn', source: s.index, message: 'lied in its meta; excluded' });
      this.drop(s, v.code, v.message);
    }
    this.failIfUnresolved();
  }

  /**
   * The proxies disagree and the vote cannot say who is right: nothing unverified is delivered,
   * and nobody is named (each may serve its own copy). Returns whether the download failed so.
   */
  failIfUnresolved() {
    const why = this.vote?.unresolved();
    if (!why || this.finished) return false;
    this.fail('ERR_INTEGRITY_UNRESOLVED', why);
    return true;
  }

  /** @param {Uint8Array} bytes */
  broadcast(bytes) {
    for (const s of this.sources) if (s.state === 'open') this.out.push({ type: 'send', source: s.index, bytes });
  }

  /** @param {readonly number[]} indexes @param {Uint8Array} bytes @param {boolean} [replaceable] */
  sendToOpen(indexes, bytes, replaceable = false) {
    for (const i of indexes) {
      const s = this.sources[i];
      if (s?.state === 'open') this.out.push(replaceable ? { type: 'send', source: s.index, bytes, replaceable } : { type: 'send', source: s.index, bytes });
    }
  }

  /**
   * When the vote stops waiting for the metas still awaited (ms; Infinity: none is): LATE_META_WAIT_MS
   * after the vote, within half the no-progress timeout.
   */
  lateMetaWaitEnds() {
    if (!this.vote?.awaits() || this.votedAt === null) return Infinity;
    return this.votedAt + Math.min(LATE_META_WAIT_MS, this.noProgressTimeoutMs / 2);
  }

  stallFrom() {
    return Math.max(this.lastProgressAt, this.firstMetaAt);
  }

  /** @param {SourceState} s @param {string} why */
  reconnect(s, why) {
    this.out.push({ type: 'warn', source: s.index, message: `kept connection: ${why}; reconnecting` });
    s.reused = false;
    s.state = 'connecting';
    this.out.push({ type: 'reconnect', source: s.index, why });
  }

  /**
   * @param {SourceState} s @param {string} code @param {string} message
   * @param {boolean} [healthy]  the proxy said why in a well-formed message: its connection may serve a later download
   */
  drop(s, code, message, healthy = false) {
    if (s.state === 'failed' || s.state === 'closed') return;
    s.state = 'failed';
    s.error = { code, message };
    this.vote?.drop(s.index); // the checksums it gave still count; the others decide the units it did not give
    this.out.push({ type: 'drop', source: s.index, code, message, ...(healthy ? { healthy } : {}) });
    if (this.finished || this.failIfUnresolved()) return;
    if (this.sources.every((x) => x.state === 'failed')) {
      const codes = [...new Set(this.sources.map((x) => x.error?.code))].join(', ');
      // every proxy failed with one code (an origin's 404, say): what the first said tells the caller what happened
      const said = !codes.includes(',') && this.sources[0].error?.message ? `; ${this.sources[0].error.message}` : '';
      this.fail('ERR_ALL_PROXIES_FAILED', `all ${this.sources.length} proxies failed (${codes}${said})`);
    } else {
      this.maybeVote(this.now); // fewer proxies left: the ones that answered may now be a majority
    }
  }

  complete() {
    const data = this.receiver.data();
    this.broadcast(encodeMessage({ type: 'done', downloadId: this.downloadId }));
    this.end();
    this.out.push({ type: 'complete', data });
  }

  /** @param {string} code @param {string} message */
  fail(code, message) {
    if (this.finished) return;
    this.error = { code, message };
    this.end();
    this.out.push({ type: 'fail', code, message });
  }

  end() {
    this.finished = true;
    for (const s of this.sources) if (s.state === 'open' || s.state === 'connecting') s.state = 'closed';
  }
}

/**
 * The hint datagram naming `next`, or null: none given, or too long for a datagram (a hint is best effort).
 * @param {number} downloadId @param {string | null | undefined} next
 */
function nextHint(downloadId, next) {
  if (typeof next !== 'string' || next === '') return null;
  try {
    return encodeMessage({ type: 'hint', downloadId, url: next });
  } catch {
    return null;
  }
}
