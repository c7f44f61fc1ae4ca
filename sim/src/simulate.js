// One simulated download (simulateOnce) and one configuration over many seeds
// (simulateConfig, medians as the paper reports them).

import { deriveRates, median, windowFromPaths } from '@mutp/protocol';
import { EventQueue } from './event-queue.js';
import { Network, shaperQueuePackets } from './network.js';
import { createPrng, randomBytes } from './prng.js';
import { runParallelHttp } from './parallel-http.js';
import { runRangeHttp } from './range-http.js';
import { keptTcpWindow } from './tcp-stream.js';
import { runMutp } from './mutp.js';
import { badInput, perSource } from './units.js';
import { DEFAULT_SCTP_SENDER } from './sctp.js';

/** Quiet between a kept connection's downloads (ms): testbed:reference's default --settle-ms. */
export const KEPT_TCP_IDLE_MS = 300;
/** Seed of the previous download that leaves a kept connection its window: another run's. */
const WARM_SEED_XOR = 0x3a7e;

/** TCP congestion control of the HTTP modes' proxies by default: Linux's (the testbed sets it on every host). */
export const DEFAULT_TCP_CC = 'cubic';

export const MODES = Object.freeze(['coded', 'uncoded', 'parallel-http', 'range-http']);

/** Seed of the simulated object's bytes: fixed, so every mode moves the same content. */
const OBJECT_SEED = 0x0b1ec7;

/**
 * @typedef {object} SimConfig
 * @property {'coded'|'uncoded'|'parallel-http'|'range-http'} mode
 * @property {number[]} rates              bytes/s, one per source (N = rates.length)
 * @property {number|number[]} delayMs     one-way delay, per source or for all
 * @property {number|number[]} loss        per-packet loss probability, per source or for all
 * @property {number|number[]} startDelayMs origin-fetch time of each proxy
 * @property {number} downCapBps           client download cap (Infinity = none)
 * @property {number} size                 object bytes
 * @property {object} params               protocol params: window, generationSize, feedbackEvery, payloadSize, surplus, ...
 * @property {number} seeds                runs (seeds firstSeed .. firstSeed + seeds - 1)
 * @property {number} [firstSeed]
 * @property {number} overheadBytes        lower-layer bytes per datagram/segment on the wire
 * @property {number} [maxBurst]           MUTP: SCTP max burst, packets (10: stock usrsctp; 0 or Infinity: off)
 * @property {number|number[]} [startCwnd] MUTP: each SCTP association's cwnd at the start, packets, before the max-burst rule;
 *   for all or per source (Infinity: a kept association's, unlimited) (default: unlimited)
 * @property {boolean} [inflightCap]       MUTP: run the proxy's in-flight cap (default true)
 * @property {boolean|boolean[]} [kept]    kept paths, for all or per source: MUTP's in-flight cap starts from the path a previous download measured;
 *   Range-split HTTP's TCP connections start from the windows a previous download left them (after KEPT_TCP_IDLE_MS of quiet)
 * @property {number} [queueMs]            the uplinks' shaper queue, ms of each link's rate (shaping/shape's QUEUE_MS); absent: unbounded
 * @property {boolean|boolean[]} [newTcp]  HTTP modes, for all or per source: a new TCP connection (a handshake round trip before the request)
 * @property {boolean} [keptLists]         Range-split HTTP: the client holds the proxies' digest lists of the object from an earlier
 *   download (no list request; the ranges start at once)
 * @property {import('./sctp.js').SctpSender} [sctpSender] MUTP: the proxies' SCTP sender (default: loss-tolerant, the tuned build's)
 * @property {import('./tcp-cc.js').TcpCcKind} [tcpCc] HTTP modes: the proxies' TCP congestion control (default cubic)
 * @property {'rank'|'exact'} [codec]      coded: 'rank' (default, no payload arithmetic, same decisions) or 'exact' (@mutp/rlnc)
 */

/**
 * @typedef {object} RunResult
 * @property {boolean} ok
 * @property {string|null} error
 * @property {number} durationMs
 * @property {number} grossBytes
 * @property {number} netBytes
 * @property {number|null} ttfbMs
 * @property {number} duplicates
 * @property {number} packets
 * @property {boolean} verified   the client's bytes equal the object, byte for byte
 * @property {number} [winner]
 * @property {number[][]} [ranges]
 * @property {import('./tcp-cc.js').TcpCcState[]} [tcpStates]  Range-split HTTP: each connection's window at the end
 * @property {number} [badMessages]
 * @property {number} [feedbackSent]
 * @property {number[]} [senderIdleMs]  MUTP: per source, time its sender returned null (stalled)
 * @property {{ cwndMax: number[], sctpLost: number, queueDrops: number, halvings: number, timeouts: number }} [transport]  MUTP: the SCTP model's counters
 */

/** @type {Map<number, Uint8Array>} */
const objectCache = new Map();
/** @param {number} size */
function objectBytes(size) {
  let data = objectCache.get(size);
  if (!data) {
    if (objectCache.size > 8) objectCache.clear(); // a sweep over many sizes must not pile up
    data = randomBytes(size, OBJECT_SEED);
    objectCache.set(size, data);
  }
  return data;
}

/** @type {Promise<any> | null} */
let protocolModule = null;
/** Imported lazily so the HTTP modes run even while the MUTP objects are missing. */
const PROTOCOL_PACKAGE = '@mutp/protocol';
function loadProtocol() {
  protocolModule ??= import(PROTOCOL_PACKAGE).catch((e) => {
    protocolModule = null;
    const err = badInput(`MUTP modes need @mutp/protocol (createSender, createReceiver, encodeMessage, decodeMessage): ${e.message}`);
    err.code = 'ERR_SIM_PROTOCOL_MISSING';
    throw err;
  });
  return protocolModule;
}

/**
 * The config with its MUTP window: the one given (params.window), else the live client's
 * default from the paths (protocol windowFromPaths: the proxies' rates, RTT = twice the
 * largest one-way delay).
 * @param {SimConfig} config
 * @returns {SimConfig}
 */
export function withWindow(config) {
  if ((config.mode !== 'coded' && config.mode !== 'uncoded') || /** @type {any} */ (config.params)?.window !== undefined) return config;
  const delays = Array.isArray(config.delayMs) ? config.delayMs : [config.delayMs];
  const rttMs = 2 * Math.max(...delays);
  const window = windowFromPaths({ mode: config.mode, ratesBps: config.rates, rttMs, params: config.params });
  return { ...config, params: { ...config.params, window } };
}

/**
 * Simulate one download.
 * @param {SimConfig} config
 * @param {number} seed
 * @returns {Promise<RunResult>}
 */
export async function simulateOnce(config, seed) {
  config = withWindow(config);
  const queue = new EventQueue();
  const sources = config.rates.map((rateBps, i) => ({
    rateBps,
    delayMs: perSource(config.delayMs, i),
    loss: perSource(config.loss, i),
    startDelayMs: perSource(config.startDelayMs, i),
    queuePackets: config.queueMs === undefined ? Infinity : shaperQueuePackets(rateBps, config.queueMs),
    newTcp: perSource(config.newTcp ?? false, i),
  }));
  const net = new Network(queue, { sources, downCapBps: config.downCapBps, prng: createPrng(seed ^ 0x51) });
  const data = objectBytes(config.size);
  const job = { size: config.size, data, overheadBytes: config.overheadBytes, tcpCc: config.tcpCc ?? DEFAULT_TCP_CC, keptLists: config.keptLists ?? false };
  switch (config.mode) {
    case 'parallel-http': return runParallelHttp(net, job);
    case 'range-http': {
      const keptAt = sources.map((_, i) => perSource(config.kept ?? false, i));
      if (!keptAt.some(Boolean)) return runRangeHttp(net, job);
      // kept connections: the windows a previous download left them, after the testbed's quiet
      const before = await simulateOnce({ ...config, kept: false, keptLists: false }, seed ^ WARM_SEED_XOR);
      const left = before.tcpStates ?? [];
      const tcpPrior = sources.map((l, i) => (keptAt[i] && left[i] ? keptTcpWindow(job.tcpCc, l, left[i], KEPT_TCP_IDLE_MS) : null));
      return runRangeHttp(net, { ...job, tcpPrior });
    }
    case 'coded':
    case 'uncoded': {
      const protocol = await loadProtocol();
      return runMutp(net, {
        ...job, mode: config.mode, params: config.params, seed, protocol,
        maxBurst: config.maxBurst, sctpSender: config.sctpSender ?? DEFAULT_SCTP_SENDER, startCwnd: config.startCwnd, inflightCap: config.inflightCap, kept: config.kept, codec: config.codec,
      });
    }
    default: throw badInput(`unknown mode '${config.mode}' (one of ${MODES.join(', ')})`);
  }
}

/**
 * @typedef {object} ConfigSummary
 * @property {string} mode
 * @property {number} n
 * @property {number} goodputBps         median over the seeds
 * @property {number} throughputBps      median
 * @property {number} normalizedGoodput  median
 * @property {number|null} timeToFirstByteMs median
 * @property {number} duplicates         median
 * @property {number} durationMs         median
 * @property {number} runs               completed runs
 * @property {number} failed             stalled or not byte-exact runs
 */

/**
 * Run every seed of one configuration and summarise with medians.
 * @param {SimConfig} config
 * @param {{onRun?: (result: RunResult, seed: number) => void}} [hooks]
 */
export async function simulateConfig(config, hooks = {}) {
  config = withWindow(config);
  const first = config.firstSeed ?? 1;
  /** @type {RunResult[]} */
  const results = [];
  for (let s = first; s < first + config.seeds; s++) {
    const r = await simulateOnce(config, s);
    results.push(r);
    hooks.onRun?.(r, s);
  }
  const good = results.filter((r) => r.ok && r.verified);
  const rates = good.map((r) => deriveRates(r));
  const ttfb = good.map((r) => r.ttfbMs).filter((v) => v !== null);
  const sumRatesBps = config.rates.reduce((a, b) => a + b, 0);
  const goodputBps = median(rates.map((r) => r.goodputBps));
  /** @type {ConfigSummary & Record<string, any>} */
  const summary = {
    mode: config.mode,
    n: config.rates.length,
    goodputBps,
    throughputBps: median(rates.map((r) => r.throughputBps)),
    normalizedGoodput: median(rates.map((r) => r.normalizedGoodput)),
    timeToFirstByteMs: ttfb.length ? median(ttfb) : null,
    duplicates: median(good.map((r) => r.duplicates)),
    durationMs: median(good.map((r) => r.durationMs)),
    runs: good.length,
    senderIdleShare: config.mode === 'coded' || config.mode === 'uncoded'
      ? median(good.map((r) => (r.senderIdleMs ?? []).reduce((a, b) => a + b, 0) / (r.senderIdleMs?.length || 1) / Math.max(r.durationMs, 1e-3)))
      : null,
    failed: results.length - good.length,
    goodputOfSumRates: goodputBps / sumRatesBps,
    sumRatesBps,
    rates: config.rates,
    delayMs: config.delayMs,
    loss: config.loss,
    startDelayMs: config.startDelayMs,
    downCapBps: Number.isFinite(config.downCapBps) ? config.downCapBps : null,
    sizeBytes: config.size,
    seeds: config.seeds,
  };
  if (config.mode === 'coded' || config.mode === 'uncoded') {
    summary.params = config.params;
    summary.maxBurst = config.maxBurst ?? null;
    summary.sctpSender = config.sctpSender ?? DEFAULT_SCTP_SENDER;
    summary.kept = config.kept ?? false;
    const cwndText = (/** @type {number} */ c) => (c === Infinity ? 'kept' : c);
    summary.startCwnd = config.startCwnd === undefined ? null
      : Array.isArray(config.startCwnd) ? config.startCwnd.map(cwndText) : cwndText(config.startCwnd);
    summary.queueMs = config.queueMs ?? null;
  } else {
    summary.newTcp = config.newTcp ?? false;
    summary.kept = config.kept ?? false;
    summary.keptLists = config.keptLists ?? false;
    summary.tcpCc = config.tcpCc ?? DEFAULT_TCP_CC;
  }
  return summary;
}
