// Test helper (not a test file): the download controller piped into N real protocol senders
// in-process, over links with a rate, a one-way delay and optional faults. Every action the
// controller returns is carried out here the way the live client carries it out with sockets.
import { createDownloadController, createSender, encodeMessage, decodeMessage, createBundleWriter, checksumOf, MAX_DATAGRAM_BYTES } from '../index.js';
import assert from 'node:assert/strict';
import { createRng } from '../src/rng.js';
import { EventQueue, PAPER_RATE_BPS } from './lossy-link.js';

/** Guard against a bug that schedules events forever. */
const MAX_EVENTS = 1_000_000;

/**
 * @typedef {object} ProxyFault
 * @property {number} [dropRequests]       the first k requests to this proxy are lost
 * @property {number} [metaDelayMs]        extra delay before its meta (a slow origin fetch)
 * @property {number} [goneAfterMetaMs]    its channel closes this long after its meta reached the client (nothing more from it)
 * @property {boolean} [silent]            never answers
 * @property {number} [stopAfterPackets]   goes silent after this many data packets
 * @property {number} [corruptPacket]      flips a byte in its k-th data packet (1, 2, …)
 * @property {boolean} [corruptAll]        flips a byte in every data packet it sends
 * @property {(m: any) => any} [tamperMeta] changes its meta messages
 * @property {boolean} [otherObject]      serves another object of the same size, meta and packets alike (a consistent liar,
 *   or an origin that changed between the proxies' fetches)
 * @property {number} [junk]               sends this many undecodable datagrams first
 * @property {(first: number) => boolean} [loseSlice]  streamed: loses its first sending of the checksum slice that
 *   starts at this unit (a re-sent request sends it again)
 */

/**
 * @param {object} o
 * @param {'coded'|'uncoded'} o.mode
 * @param {number} o.size
 * @param {number} o.n
 * @param {any} [o.params]
 * @param {number} [o.delayMs]
 * @param {number} [o.seed]
 * @param {Record<number, ProxyFault>} [o.faults]
 * @param {number} [o.maxMs]
 * @param {number} [o.noProgressTimeoutMs]
 * @param {(bytes: number) => Uint8Array} [o.objectBuffer]
 * @param {boolean} [o.bundles]  the client asks for bundles: each proxy sends what its window allows in bundles
 * @param {{ chunkBytes: number, everyMs: number }} [o.stream]  coded: the client takes streamed metas, and each proxy
 *   gets the object from its origin in chunks of chunkBytes every everyMs (from its meta delay on), into a buffer of
 *   its own that its sender serves from
 * @param {(unit: number) => number | null} [o.hashMs]  coded: the controller asks for its generations' checksums
 *   (hashOffThread), and each comes back this many ms later (null: never)
 */
export async function runPiped(o) {
  const { mode, size, n, params = {}, delayMs = 25, seed = 1, faults = {}, maxMs = 60_000 } = o;
  const rand = createRng(seed);
  const data = new Uint8Array(size);
  for (let i = 0; i < size; i++) data[i] = Math.floor(rand() * 256);
  const other = data.map((b, i) => b ^ (1 + (i % 251))); // differs from data in every byte
  const downloadId = 0xd0d0;
  const seeds = Array.from({ length: n }, (_, i) => 1000 + i);
  const c = await createDownloadController({ mode, url: 'http://origin.test/x', params, sourceCount: n, downloadId, seeds, noProgressTimeoutMs: o.noProgressTimeoutMs, objectBuffer: o.objectBuffer, bundles: o.bundles, streamed: !!o.stream, hashOffThread: !!o.hashMs });
  const q = new EventQueue();
  /** per proxy: what it received and its sender */
  const proxies = Array.from({ length: n }, (_, i) => ({
    fault: faults[i] ?? {}, requests: 0, feedbacks: 0, done: 0, /** @type {any} */ sender: null, serving: false, sent: 0, messages: 0, bundles: false, busy: false, closed: false,
    /** @type {number[]} */ feedbackAt: [], index: i, streamed: false, filled: 0, /** @type {Set<number>} */ lostSlices: new Set(),
  }));
  // a streamed proxy's sender serves its own buffer, filled as its origin's chunks come (bytes past them are zeros)
  const senders = await Promise.all(proxies.map((p, i) => createSender({
    mode, data: o.stream ? new Uint8Array(size) : faults[i]?.otherObject ? other : data, params, sourceIndex: i, sourceCount: n, seed: seeds[i], downloadId, streamed: !!o.stream,
    keepsHeld: !!o.hashMs, // as a proxy answers a request that holds generations
  })));
  /** @type {any[]} */
  const actions = [];
  const delivered = new Uint8Array(size);
  let deliveredBytes = 0;
  /** @type {any} */ let end = null;
  let now = 0;
  let armedWake = Infinity;

  /** @param {any[]} acts */
  function apply(acts) {
    for (const a of acts) {
      actions.push({ ...a, t: now });
      if (a.type === 'send') {
        q.push(now + delayMs, { kind: 'atProxy', src: a.source, bytes: a.bytes });
      } else if (a.type === 'drop') {
        proxies[a.source].closed = true;
      } else if (a.type === 'deliver') {
        for (const ch of a.chunks) {
          delivered.set(ch.bytes, ch.offset);
          deliveredBytes += ch.bytes.length;
        }
      } else if (a.type === 'hash') {
        const ms = /** @type {(unit: number) => number | null} */ (o.hashMs)(a.unit);
        if (ms !== null) q.push(now + ms, { kind: 'hashed', unit: a.unit, checksum: checksumOf(a.bytes) });
      } else if (a.type === 'complete' || a.type === 'fail') {
        end = { ...a, t: now };
      }
    }
    const w = c.wakeAt();
    if (w < armedWake) {
      armedWake = w;
      q.push(Math.max(w, now), { kind: 'wake', at: w });
    }
  }

  /** @param {number} i @param {Uint8Array} bytes */
  function toClient(i, bytes) {
    q.push(now + delayMs, { kind: 'atClient', src: i, bytes });
  }

  /** @param {any} p */
  function pump(p) {
    if (p.busy || !p.sender || p.sender.finished || p.closed) return;
    if (p.fault.stopAfterPackets !== undefined && p.sent >= p.fault.stopAfterPackets) return;
    const bytes = p.bundles ? nextBundle(p) : nextOne(p);
    if (!bytes) {
      const w = p.sender.wakeAt();
      if (Number.isFinite(w)) q.push(Math.max(w, now + 0.001), { kind: 'pump', src: p.index });
      return;
    }
    p.messages++;
    p.busy = true;
    const tx = (bytes.length / PAPER_RATE_BPS) * 1000;
    q.push(now + tx, { kind: 'free', src: p.index });
    q.push(now + tx + delayMs, { kind: 'atClient', src: p.index, bytes });
  }

  /** One packet as a message, or null. @param {any} p */
  function nextOne(p) {
    const msg = p.sender.nextPacket(now);
    return msg ? counted(p, encodeMessage(msg)) : null;
  }

  /** As many packets as a bundle holds and the sender gives, or null. @param {any} p */
  function nextBundle(p) {
    const w = createBundleWriter(downloadId);
    while (w.fits(MAX_DATAGRAM_BYTES)) {
      const b = p.sender.nextDatagram(now, w.alloc);
      if (!b) break;
      counted(p, b);
    }
    return w.take();
  }

  /** @param {any} p @param {Uint8Array} bytes  a packet sent (the corrupt fault flips a byte) */
  function counted(p, bytes) {
    p.sent++;
    if (p.fault.corruptPacket === p.sent || p.fault.corruptAll) bytes[bytes.length - 1] ^= 0x5a;
    return bytes;
  }

  /** @param {any} p @param {Uint8Array} bytes */
  function atProxy(p, bytes) {
    const r = decodeMessage(bytes);
    if (!r.ok) throw new Error(`the controller sent an undecodable message: ${r.error.code}`);
    const msg = r.msg;
    if (msg.type === 'request') {
      p.requests++;
      p.bundles = msg.bundles === true;
      p.streamed = msg.streamed === true;
      if (p.fault.silent || p.requests <= (p.fault.dropRequests ?? 0)) return;
      if (p.serving && p.sender?.streamed) {
        // a re-sent request: the meta so far again (a slice may have been lost)
        for (const m of p.sender.metaMessages({ serverFetchMs: 3 })) sendMeta(p, m, false);
        return;
      }
      if (p.serving) return; // a re-sent request: its meta is already on its way
      p.serving = true;
      const later = p.fault.metaDelayMs ?? 0;
      q.push(now + later, { kind: 'serve', src: p.index });
    } else if (msg.type === 'feedback') {
      p.feedbacks++;
      p.feedbackAt.push(now);
      p.sender?.handleFeedback(msg, now);
      pump(p);
    } else if (msg.type === 'done') {
      p.done++;
      p.sender?.handleFeedback(msg, now);
    }
  }

  /** @param {any} p @param {any} m @param {boolean} first  the slice's first sending (loseSlice loses only that) */
  function sendMeta(p, m, first) {
    const at = m.checksums?.first;
    if (first && at !== undefined && p.fault.loseSlice?.(at)) {
      p.lostSlices.add(at);
      return;
    }
    toClient(p.index, encodeMessage(p.fault.tamperMeta ? p.fault.tamperMeta(m) : m));
  }

  /** A streamed proxy got its next chunk from the origin. @param {any} p */
  function arrive(p) {
    if (p.closed || !o.stream) return;
    const to = Math.min(size, p.filled + o.stream.chunkBytes);
    p.sender.data.set((p.fault.otherObject ? other : data).subarray(p.filled, to), p.filled);
    p.filled = to;
    for (const m of p.sender.haveBytes(p.filled)) sendMeta(p, m, true);
    if (p.filled < size) q.push(now + o.stream.everyMs, { kind: 'arrive', src: p.index });
    pump(p);
  }

  for (let i = 0; i < n; i++) apply(c.connected(i, { reused: false }, 0));
  let events = 0;
  while (q.size > 0 && end === null) {
    const ev = q.pop();
    now = ev.t;
    if (now > maxMs || ++events > MAX_EVENTS) break;
    const p = proxies[ev.src];
    switch (ev.kind) {
      case 'atProxy': atProxy(p, ev.bytes); break;
      case 'serve': {
        p.sender = senders[p.index]; // as a proxy: no packet before its meta, feedback before it is ignored
        for (let k = 0; k < (p.fault.junk ?? 0); k++) toClient(p.index, new Uint8Array([9, 9, 9]));
        if (p.sender.streamed && !p.streamed) throw new Error('the client did not ask for a streamed meta');
        for (const m of p.sender.metaMessages({ serverFetchMs: 3 })) sendMeta(p, m, true);
        if (p.sender.streamed) arrive(p);
        if (p.fault.goneAfterMetaMs !== undefined) q.push(now + delayMs + p.fault.goneAfterMetaMs, { kind: 'gone', src: p.index });
        pump(p);
        break;
      }
      case 'gone':
        p.closed = true;
        apply(c.gone(ev.src, 'the channel closed', now));
        break;
      case 'arrive': arrive(p); break;
      case 'free': p.busy = false; pump(p); break;
      case 'pump': pump(p); break;
      case 'atClient': if (!p.closed) apply(c.datagram(ev.src, ev.bytes, now)); break;
      case 'hashed': apply(c.hashed(ev.unit, ev.checksum, now)); break;
      case 'wake':
        if (ev.at !== armedWake) break;
        armedWake = Infinity;
        apply(c.tick(now));
        break;
      default: throw new Error(ev.kind);
    }
  }
  // let the last sends (done) reach the proxies
  while (q.size > 0) {
    const ev = q.pop();
    now = ev.t;
    if (ev.kind === 'atProxy') atProxy(proxies[ev.src], ev.bytes);
  }
  for (const s of senders) s.close();
  return { c, data, delivered, deliveredBytes, end, proxies, actions };
}

/** The download ended complete and byte-exact, every byte delivered once. @param {any} r  runPiped's result */
export function assertByteExact(r) {
  assert.equal(r.end?.type, 'complete', `ended with ${JSON.stringify(r.end && { type: r.end.type, code: r.end.code, message: r.end.message })}`);
  assert.ok(Buffer.from(r.end.data).equals(Buffer.from(r.data)), 'data differs');
  assert.equal(r.deliveredBytes, r.data.length, 'every byte delivered exactly once');
  assert.ok(Buffer.from(r.delivered).equals(Buffer.from(r.data)), 'delivered chunks differ');
}

/** The controller's actions of one type, each with its time `t`. @param {any} r  runPiped's result @param {string} type */
export const actionsOf = (r, type) => r.actions.filter((/** @type {any} */ a) => a.type === type);
