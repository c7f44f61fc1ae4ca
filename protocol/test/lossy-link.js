// Test helper (not a test file): an in-memory discrete-event harness that moves real wire
// bytes between N senders and one receiver over links with an upload rate, a one-way delay
// and random loss, both directions. Deterministic for a given seed.
import { createSender, createReceiver, encodeMessage, decodeMessage, createMetaVote, createMetaAssembler } from '../index.js';
import { createRng } from '../src/rng.js';

/** 896 KiB/s, the paper's shaped proxy upload (Figure 11). */
export const PAPER_RATE_BPS = 896 * 1024;

/** Guard against a protocol bug that schedules events forever at one instant. */
const MAX_EVENTS = 2_000_000;

/** Minimal binary heap of events ordered by time, then insertion order. */
export class EventQueue {
  constructor() { /** @type {any[]} */ this.h = []; this.n = 0; }
  /** @param {number} t @param {any} ev */
  push(t, ev) {
    ev.t = t; ev.k = this.n++;
    const h = this.h; h.push(ev);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (before(h[p], h[i])) break;
      [h[p], h[i]] = [h[i], h[p]]; i = p;
    }
  }
  pop() {
    const h = this.h; const top = h[0]; const last = h.pop();
    if (h.length) {
      h[0] = last; let i = 0;
      for (;;) {
        const l = 2 * i + 1; const r = l + 1; let m = i;
        if (l < h.length && before(h[l], h[m])) m = l;
        if (r < h.length && before(h[r], h[m])) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i], h[m]]; i = m;
      }
    }
    return top;
  }
  get size() { return this.h.length; }
}
/** @param {any} a @param {any} b */
const before = (a, b) => a.t < b.t || (a.t === b.t && a.k < b.k);

/**
 * Run one download to completion (or until maxMs of simulated time).
 * @param {object} o
 * @param {'uncoded'|'coded'} o.mode
 * @param {number} o.size         object bytes
 * @param {number} o.n            sources
 * @param {number} [o.loss]       loss probability per datagram, both directions
 * @param {number} [o.seed]
 * @param {any} [o.params]
 * @param {number} [o.rateBps]    per-source upload
 * @param {number} [o.delayMs]    one-way delay
 * @param {number} [o.maxMs]      give up after this much simulated time
 * @param {(bytes: Uint8Array, src: number, rand: () => number) => Uint8Array | null} [o.tamper] mangle data datagrams
 * @param {boolean} [o.integrity]  verify units against the senders' checksum tables (meta vote)
 * @param {(src: number, meta: any) => any} [o.tamperMeta] integrity: change a source's meta messages
 */
export async function runTransfer(o) {
  const { mode, size, n, loss = 0, seed = 1, params = {}, rateBps = PAPER_RATE_BPS, delayMs = 25, maxMs = 120000 } = o;
  const rand = createRng(seed ^ 0x5eed);
  const data = new Uint8Array(size);
  for (let i = 0; i < size; i++) data[i] = Math.floor(rand() * 256);
  const downloadId = 0xc0ffee;
  const senders = await Promise.all(Array.from({ length: n }, (_, i) =>
    createSender({ mode, data, params, sourceIndex: i, sourceCount: n, seed, downloadId })));
  const metaBytes = encodeMessage(senders[0].meta());
  const meta = /** @type {import('../src/wire.js').MetaMessage} */ (decodeMessage(metaBytes).msg);
  let vote = null;
  if (o.integrity) {
    const entries = senders.map((s, src) => {
      const msgs = s.metaMessages({ serverFetchMs: 7 }).map((m) => decodeMessage(encodeMessage(o.tamperMeta ? o.tamperMeta(src, m) : m)).msg);
      const asm = createMetaAssembler(msgs[0]);
      for (const m of msgs) if (asm.add(m)) throw new Error('meta refused');
      if (!asm.complete) throw new Error('meta incomplete');
      return { source: src, meta: asm.meta, table: asm.table };
    });
    vote = createMetaVote(entries);
  }
  const receiver = await createReceiver({ meta, params, sourceCount: n, now: 0, verify: vote?.verify });
  const q = new EventQueue();
  const idle = new Array(n).fill(false);
  const wakeScheduled = new Array(n).fill(Infinity);
  let receiverWake = Infinity;
  const txMs = (bytes) => (bytes / rateBps) * 1000;
  for (let i = 0; i < n; i++) q.push(delayMs, { kind: 'send', src: i }); // the request takes one delay to arrive
  let now = 0;
  let lastUsefulAt = 0;
  let maxGapMs = 0;
  let tailGapMs = 0;
  const tailFrom = Math.max(0, meta.packetCount - Math.max(1, Math.ceil(meta.packetCount * 0.05)));
  const deliveredChunks = [];

  const sendFeedback = (fb) => {
    const bytes = encodeMessage(fb);
    for (let i = 0; i < n; i++) if (rand() >= loss) q.push(now + delayMs, { kind: 'fb', src: i, bytes });
  };
  const armReceiverWake = () => {
    const w = receiver.wakeAt();
    if (Number.isFinite(w) && w < receiverWake) { receiverWake = w; q.push(Math.max(w, now), { kind: 'rwake' }); }
  };

  let completedAt = NaN;
  let events = 0;
  // keep running after completion until every sender heard done (a lost done is re-sent
  // when late packets keep arriving)
  while (q.size > 0 && !senders.every((s) => s.finished)) {
    const ev = q.pop();
    now = ev.t;
    if (now > maxMs || ++events > MAX_EVENTS) break;
    if (Number.isNaN(completedAt) && receiver.isComplete()) completedAt = now;
    if (ev.kind === 'send') {
      const s = senders[ev.src];
      if (ev.wake) wakeScheduled[ev.src] = Infinity;
      if (s.finished) continue;
      const msg = s.nextPacket(now);
      if (!msg) {
        idle[ev.src] = true;
        const w = s.wakeAt();
        if (Number.isFinite(w) && w < wakeScheduled[ev.src]) { wakeScheduled[ev.src] = w; q.push(Math.max(w, now), { kind: 'send', src: ev.src, wake: true }); }
        continue;
      }
      let bytes = encodeMessage(msg);
      const t = txMs(bytes.length);
      q.push(now + t, { kind: 'send', src: ev.src });
      if (o.tamper) bytes = o.tamper(bytes, ev.src, rand);
      if (bytes && rand() >= loss) q.push(now + t + delayMs, { kind: 'arrive', src: ev.src, bytes });
    } else if (ev.kind === 'arrive') {
      const r = decodeMessage(ev.bytes);
      if (r.ok) {
        const dofBefore = receiver.counts().dof;
        const { useful } = receiver.handlePacket(r.msg, ev.src, now);
        if (useful) {
          const gap = now - lastUsefulAt;
          if (gap > maxGapMs) maxGapMs = gap;
          if (dofBefore >= tailFrom && gap > tailGapMs) tailGapMs = gap;
          lastUsefulAt = now;
        }
      }
      const fb = receiver.pollFeedback(now);
      if (fb) sendFeedback(fb);
      armReceiverWake();
    } else if (ev.kind === 'rwake') {
      receiverWake = Infinity;
      const fb = receiver.pollFeedback(now);
      if (fb) sendFeedback(fb);
      armReceiverWake();
    } else if (ev.kind === 'fb') {
      const r = decodeMessage(ev.bytes);
      if (r.ok) senders[ev.src].handleFeedback(r.msg, now);
      if (idle[ev.src]) { idle[ev.src] = false; q.push(now, { kind: 'send', src: ev.src }); }
    }
    for (const d of receiver.pollDelivered()) deliveredChunks.push(d);
  }
  if (Number.isNaN(completedAt) && receiver.isComplete()) completedAt = now;
  return { vote, data, receiver, senders, meta, durationMs: completedAt, finishedAt: now, maxGapMs, tailGapMs, deliveredChunks, complete: receiver.isComplete() };
}
