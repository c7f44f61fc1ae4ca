// Uncoded and Coded MUTP in the simulator, as the live path runs them: the client is the
// protocol's download controller (the same object the live client runs: requests, meta vote,
// feedback, drops, completion); each proxy is its session's loop: on the request it sends its
// meta, then asks its sender for packets while the protocol's in-flight cap allows (the proxy's
// pacing), and hands them to an SCTP association model (sctp.js: congestion window, max-burst
// rule, delayed SACK) in front of its shaped uplink. Every message crosses the wire codec.
// Coded runs use the rank codec (rank-codec.js) unless job.codec is 'exact'.

import { SCTP_PACKET_OVERHEAD_BYTES, DTLS_RECORD_OVERHEAD_BYTES } from '@mutp/protocol/constants';
import { createSctpPath, SCTP_MAX_BURST_STOCK } from './sctp.js';
import { createRankCodec } from './rank-codec.js';
import { createSlabAllocator } from './slab.js';
import { loadCodec } from '@mutp/rlnc';
import { perSource } from './units.js';

/** @type {Promise<import('@mutp/rlnc').CodecFactory> | null} */
let rankFactoryPromise = null;
/** The codec whose decoders keep the rank codec's ranks: the fastest implementation, loaded once. */
function rankFactory() {
  rankFactoryPromise ??= loadCodec();
  return rankFactoryPromise;
}

/** The soonest the controller is woken again after a tick (ms): a microsecond, far below any of its timers. */
const WAKE_AFTER_TICK_MS = 1e-3;
/** Simulated time after which a run that has not completed is called stalled, ms. */
const STALL_LIMIT_MS = 600_000;

/** @type {WeakMap<Uint8Array, Map<string, Uint8Array>>} checksum tables by object, then layout */
const checksumCache = new WeakMap();
/**
 * The proxies' checksum table of `data` under `layout`, hashed once: it is a pure function of
 * the two, every simulated proxy serves the same bytes, and the seeds reuse the object.
 * @param {any} protocol @param {Uint8Array} data @param {any} layout
 */
function sharedChecksums(protocol, data, layout) {
  let byLayout = checksumCache.get(data);
  if (!byLayout) checksumCache.set(data, byLayout = new Map());
  const key = `${layout.payloadSize}/${layout.generationSize}`;
  let table = byLayout.get(key);
  if (!table) byLayout.set(key, table = protocol.checksumTable(data, layout));
  return table;
}

/** @type {Map<number, Uint8Array>} the client's object buffer by size, reused run after run */
const objectBuffers = new Map();
/** Sizes whose buffer is kept (a sweep over many sizes must not pile up). */
const OBJECT_BUFFER_SIZES_KEPT = 8;
/**
 * The receiver's object buffer: a fresh 1.5 MB buffer per run cost ~5% of a run in page faults.
 * A run uses it from its meta vote to its byte comparison, with no await between, so two runs
 * never share it; it is zeroed for each run, so a generation never written cannot pass for one
 * written by the previous run.
 * @param {number} size
 */
function takeObjectBuffer(size) {
  let b = objectBuffers.get(size);
  if (b === undefined) {
    if (objectBuffers.size >= OBJECT_BUFFER_SIZES_KEPT) objectBuffers.clear();
    objectBuffers.set(size, b = new Uint8Array(size));
  } else {
    b.fill(0);
  }
  return b;
}

/**
 * @typedef {object} MutpJob
 * @property {'coded'|'uncoded'} mode
 * @property {number} size
 * @property {Uint8Array} data
 * @property {object} params          protocol params (window, generationSize, feedbackEvery, ...)
 * @property {number} seed
 * @property {number} overheadBytes   per-datagram lower-layer header bytes on the wire
 * @property {any} protocol           the protocol package (its exports)
 * @property {number} [maxBurst]      SCTP max burst, packets (10: stock usrsctp; 0 or Infinity: off)
 * @property {import('./sctp.js').SctpSender} [sctpSender] the proxies' SCTP sender (sctp.js; default DEFAULT_SCTP_SENDER)
 * @property {number|number[]} [startCwnd] SCTP cwnd at the start, packets (before the max-burst rule), for all or per source
 * @property {boolean} [inflightCap]  run the proxy's in-flight cap (default true)
 * @property {boolean|boolean[]} [kept] (for all or per source) the connections carried a download before: each proxy's in-flight cap starts from
 *   the path that download measured (keptPath), as the live proxy's next download on a channel does
 * @property {'rank'|'exact'} [codec]  coded: 'rank' (default) skips the payload arithmetic, same decisions (rank-codec.js); 'exact' runs @mutp/rlnc
 */

/**
 * What a previous download on a kept connection left the proxy's in-flight cap (its
 * pathEstimate()): the link's rate in datagrams per ms and the round trip of an empty queue.
 * @param {{ rateBps: number, delayMs: number }} link
 * @param {number} datagramBytes MUTP datagram, before SCTP and DTLS
 * @param {number} overheadBytes lower-layer bytes per datagram
 * @returns {{ rate: number, minRttMs: number }}  rate: datagrams/ms
 */
export function keptPath(link, datagramBytes, overheadBytes) {
  const wireBytes = datagramBytes + SCTP_PACKET_OVERHEAD_BYTES + DTLS_RECORD_OVERHEAD_BYTES + overheadBytes;
  const rate = link.rateBps / 1000 / wireBytes;
  return { rate, minRttMs: 2 * link.delayMs + 1 / rate };
}

/**
 * @param {import('./network.js').Network} net
 * @param {MutpJob} job
 * @returns {Promise<import('./simulate.js').RunResult>}
 */
export async function runMutp(net, job) {
  const { mode, size, data, params, seed, overheadBytes, protocol } = job;
  const { createSender, createDownloadController, createInflightLimit, inflightFloorPackets, decodeMessage, computeLayout } = protocol;
  const q = net.queue;
  const n = net.sources.length;
  const downloadId = (seed * 2654435761) >>> 0;
  const seeds = Array.from({ length: n }, (_, i) => (seed * 7919 + i) >>> 0);
  const rankCodec = mode === 'coded' && (job.codec ?? 'rank') === 'rank' ? createRankCodec(await rankFactory()) : null;
  // The rank codec hands a complete decoder the encoders' source symbols, whatever the payloads
  // carried, so the client's integrity check of a generation cannot fail there: it is skipped
  // (its SHA-256 was ~8% of a run). With the exact codec the client checks every generation.
  const ctlOpts = { mode, url: 'sim://object', params, sourceCount: n, downloadId, seeds, verify: !rankCodec, objectBuffer: takeObjectBuffer };
  const ctl = rankCodec ? new protocol.DownloadController(ctlOpts, rankCodec) : await createDownloadController(ctlOpts);
  const senders = [];
  const checksums = sharedChecksums(protocol, data, computeLayout(mode, data.length, ctl.params));
  for (let i = 0; i < n; i++) {
    const o = { mode, data, params: ctl.params, sourceIndex: i, sourceCount: n, seed: seeds[i], downloadId, checksums };
    senders.push(rankCodec ? new protocol.CodedSender(o, rankCodec) : await createSender(o));
  }
  const maxBurst = job.maxBurst ?? SCTP_MAX_BURST_STOCK;
  const useCap = job.inflightCap !== false;
  const datagramBytes = protocol.dataDatagramBytes(mode, ctl.params);
  const slabs = createSlabAllocator();

  let doneMs = /** @type {number | null} */ (null);
  let failed = /** @type {string | null} */ (null);
  let ttfbMs = /** @type {number | null} */ (null);
  let badMessages = 0;
  let feedbackSent = 0;
  let armedWake = Infinity;
  /** when the controller's tick last ran (ms) */
  let tickedAt = -Infinity;
  const over = () => doneMs !== null || failed !== null;
  const proxies = senders.map((sender, i) => ({
    sender, started: false, dropped: false, seq: 0, pumpAt: Infinity, /** @type {Uint8Array[]} */ metaBytes: [],
    inflight: createInflightLimit({
      floorPackets: inflightFloorPackets(ctl.params.feedbackEvery), echoLagPackets: ctl.params.feedbackEvery,
      path: perSource(job.kept, i) ? keptPath(net.sources[i], datagramBytes, overheadBytes) : null,
      pacing: !(maxBurst > 0 && Number.isFinite(maxBurst)), // as the live proxy: paced when SCTP's max burst is off
      uplinkRate: protocol.uplinkDatagramRate(net.sources[i].rateBps, datagramBytes), // as a proxy told its upload rate
      rttHintMs: 2 * net.sources[i].delayMs, // as the live proxy's SCTP measured it while connecting
    }),
    path: createSctpPath({
      net, source: i, maxBurst, sender: job.sctpSender, startCwnd: perSource(job.startCwnd, i) ?? Infinity, overheadBytes, over,
      deliver: (bytes) => atClient(i, bytes),
    }),
    idleMs: 0, idleSince: NaN,
  }));

  /** @param {any[]} actions */
  function apply(actions) {
    for (const a of actions) {
      if (a.type === 'send') {
        if (a.bytes[1] === 5) feedbackSent++; // MSG.feedback
        const i = a.source;
        net.toSource(i, a.bytes.length + overheadBytes, () => atProxy(i, a.bytes), true);
      } else if (a.type === 'drop') {
        proxies[a.source].dropped = true;
      } else if (a.type === 'complete') {
        doneMs = q.now;
      } else if (a.type === 'fail') {
        failed = a.code;
      }
    }
    if (over()) return;
    // a wake-up no later than the tick just run would loop at one instant: the controller's
    // timers are sums (first meta + wait) that rounding can leave a hair short of due
    const w = Math.max(ctl.wakeAt(), tickedAt + WAKE_AFTER_TICK_MS);
    if (w < armedWake) {
      armedWake = w;
      q.at(w, () => {
        if (armedWake !== w) return;
        armedWake = Infinity;
        tickedAt = q.now;
        if (!over()) apply(ctl.tick(q.now));
      });
    }
  }

  /** @param {number} i @param {Uint8Array} bytes */
  function atClient(i, bytes) {
    if (over()) return;
    if (ttfbMs === null && bytes[1] !== 2) ttfbMs = q.now; // the first data packet (MSG.meta is 2)
    apply(ctl.datagram(i, bytes, q.now));
  }

  /** @type {Uint8Array | null} */
  let lastDecoded = null;
  /** @type {any} */
  let lastDecodedAs = null;

  /** As the live proxy: each meta datagram META_COPIES times. @param {typeof proxies[number]} p */
  function sendMeta(p) {
    for (let c = 0; c < protocol.META_COPIES; c++) for (const b of p.metaBytes) p.path.send(b);
  }

  /** The proxy's session: request, feedback, done. @param {number} i @param {Uint8Array} bytes */
  function atProxy(i, bytes) {
    const p = proxies[i];
    if (over() || p.dropped) return;
    // a broadcast (feedback, done) reaches every proxy as the same bytes: decoded once, the
    // senders only read the message
    if (bytes !== lastDecoded) {
      lastDecoded = bytes;
      lastDecodedAs = decodeMessage(bytes);
    }
    const r = lastDecodedAs;
    if (!r.ok) {
      badMessages++;
      return;
    }
    const msg = r.msg;
    if (msg.type === 'request') {
      if (p.started) {
        // the client re-sent its request: some meta datagrams were lost; as the live proxy, send them again
        sendMeta(p);
        return;
      }
      p.started = true;
      q.at(q.now + net.sources[i].startDelayMs, () => {
        p.metaBytes = p.sender.metaMessages({ serverFetchMs: net.sources[i].startDelayMs }).map((m) => protocol.encodeMessage(m));
        sendMeta(p);
        pump(i);
      });
    } else if (msg.type === 'feedback') {
      p.inflight.onEcho(msg.echo?.[i], q.now);
      p.sender.handleFeedback(msg, q.now);
      p.inflight.onLost(p.sender.stats.lostByEcho);
      pump(i);
    } else if (msg.type === 'done') {
      p.sender.handleFeedback(msg, q.now);
    }
  }

  /** Send while the in-flight cap and the sender's window allow. @param {number} i */
  function pump(i) {
    const p = proxies[i];
    if (over() || p.dropped || p.sender.finished) return;
    for (;;) {
      if (useCap && !p.inflight.allows(q.now)) {
        wakeProxy(i, p.inflight.wakeAt() + 1e-3);
        break;
      }
      // nextDatagram(): the same bytes as encodeMessage(nextPacket()), without the copies
      const bytes = p.sender.nextDatagram(q.now, slabs.alloc);
      if (bytes === null) {
        if (Number.isNaN(p.idleSince)) p.idleSince = q.now;
        const w = p.sender.wakeAt();
        if (w > q.now) wakeProxy(i, w);
        break;
      }
      if (!Number.isNaN(p.idleSince)) {
        p.idleMs += q.now - p.idleSince;
        p.idleSince = NaN;
      }
      p.seq++;
      p.inflight.onSent(p.seq, q.now);
      p.path.send(bytes);
    }
  }

  /** One pending wake-up per proxy: a timer per packet would flood the event queue. @param {number} i @param {number} t */
  function wakeProxy(i, t) {
    const p = proxies[i];
    if (!(t < Infinity) || (p.pumpAt > q.now && p.pumpAt <= t)) return;
    p.pumpAt = t;
    q.at(t, () => {
      if (p.pumpAt === t) p.pumpAt = Infinity;
      pump(i);
    });
  }

  // time 0: the request goes out on every kept connection
  for (let i = 0; i < n; i++) apply(ctl.connected(i, { reused: false }, 0));
  q.run(over, STALL_LIMIT_MS);
  const receiver = ctl.receiver;
  const counts = receiver ? receiver.counts() : { grossBytes: 0, duplicates: 0, packets: 0 };
  const release = () => {
    for (const s of senders) s.close?.();
    ctl.close();
    slabs.release(); // the run's datagrams are dead: the next run writes over them
  };
  const idle = proxies.map((p) => p.idleMs + (Number.isNaN(p.idleSince) ? 0 : q.now - p.idleSince));
  const transport = {
    cwndMax: proxies.map((p) => p.path.stats.maxCwnd), sctpLost: proxies.reduce((s, p) => s + p.path.stats.lost, 0),
    queueDrops: proxies.reduce((s, p) => s + p.path.stats.queueDrops, 0), halvings: proxies.reduce((s, p) => s + p.path.stats.halvings, 0), timeouts: proxies.reduce((s, p) => s + p.path.stats.timeouts, 0),
  };
  if (doneMs === null) {
    release();
    return { ok: false, error: failed ?? 'ERR_SIM_STALLED', durationMs: q.now, grossBytes: counts.grossBytes, netBytes: 0, ttfbMs, duplicates: counts.duplicates, packets: counts.packets, verified: false, badMessages, feedbackSent, transport };
  }
  const got = receiver.data();
  const verified = got !== null && got.length === data.length &&
    Buffer.compare(Buffer.from(got.buffer, got.byteOffset, got.byteLength), Buffer.from(data.buffer, data.byteOffset, data.byteLength)) === 0;
  release();
  return {
    ok: true,
    error: null,
    durationMs: doneMs,
    grossBytes: counts.grossBytes,
    netBytes: verified ? size : 0,
    ttfbMs,
    duplicates: counts.duplicates,
    packets: counts.packets,
    verified,
    badMessages,
    feedbackSent,
    senderIdleMs: idle,
    transport,
  };
}
