// Where a download's time went: its duration split into additive parts (docs/log-record.md,
// "timeBreakdown"), from the log record's own fields. Pure: no clock, no I/O.
//
// The capacity view: every source i could deliver r_i bytes per ms (its steady rate, measured
// from its packets) for the whole download, R = Σ r_i. Each source's time [0, D] is split into
// what it spent on useful bytes and what it lost (waiting for its first packet, ramping up, idle
// gaps, non-useful packets, the tail); each loss is weighted by r_i / R, i.e. expressed as time
// of the whole download at the aggregate rate. So the parts add up to the duration exactly:
//   (connectMs ?? 0) + requestMs + (originMs ?? 0) + (prepareMs ?? 0) + (voteMs ?? 0) + sourceStartMs + rampMs
//   + (inflightHeldMs ?? 0) + stallMs + nonUsefulMs + tailMs + transferMs = the record's durationMs (each rounded to 0.1 ms)

import { DEFAULTS } from './constants.js';

/** Span a steady rate is measured over (ms): two 50 ms round trips, enough to smooth the shaper's bursts and a feedback round, short enough to fit in a 1 MB download at 3.5 MB/s (~300 ms). */
export const STEADY_WINDOW_MS = 100;
/**
 * Which of a source's STEADY_WINDOW_MS spans sets its steady rate: not the fullest, because a shaper's
 * token bucket lets a burst above the link rate through after any idle time (htb: 10 ms of rate, the
 * download's start among them), which set the rate 9–40% above the link's on 4×896 KiB/s testbed
 * downloads and showed as ~55 ms of "stall" that was not there; the 90th percentile was within 1–8%.
 */
export const STEADY_SPAN_QUANTILE = 0.9;
/** A source has finished its ramp at the first STEADY_WINDOW_MS span carrying this fraction of its steady rate. */
export const RAMP_REACHED_FRACTION = 0.9;
/** Output precision: 0.1 ms (10 steps per ms), below any effect worth showing. */
const ROUND_STEPS_PER_MS = 10;

/**
 * @typedef {object} SourceBreakdown
 * @property {number | null} firstPacketMs   request → this source's first packet (null: none arrived)
 * @property {number | null} rampEndMs       when its ramp ended (see STEADY_WINDOW_MS, RAMP_REACHED_FRACTION)
 * @property {number | null} steadyRateBps   its steady rate r_i (payload bytes/s)
 * @property {number | null} rampMs          its own time lost to the ramp: (rampEnd − first) − bytes in the ramp / r_i
 * @property {number | null} heldMs          the in-flight cap's hold as the proxy reported it (null: unknown)
 * @property {number} usefulPackets
 * @property {number} nonUsefulPackets
 *
 * @typedef {{answerMs?: number | null, originMs?: number | null, prepareMs?: number | null, decidedMs?: number | null}} RequestSteps
 *   the record's requestSteps: request → the first proxy's whole answer (MUTP meta, Range-split digest list, Parallel
 *   HTTP response head), what that proxy said it waited for the origin and to prepare, request → the vote decided
 *
 * @typedef {object} TimeBreakdown
 * @property {'packets' | 'bytes'} method  packets: from the packet log (MUTP); bytes: from byte counts only (HTTP modes, or no log)
 * @property {number | null} connectMs  the start → the first request sent: the connections' set-up (MUTP on new ones:
 *   signalling, ICE, DTLS, SCTP; ~0 on kept ones and in the HTTP modes, whose TCP set-up is in requestMs); null: not recorded
 * @property {number} requestMs       the first request sent → the first packet (first body byte) from any source, less
 *   originMs, prepareMs and voteMs when the record has its requestSteps: round trips, the proxies' other work
 * @property {number | null} originMs   the first answer's proxy waited this long for the origin (0: cached; a streamed
 *   answer: to the origin's response head); null: not reported
 * @property {number | null} prepareMs  then to prepare its answer (checksums or digests, the sender's set-up); null: not reported
 * @property {number | null} voteMs     the first proxy's answer → the integrity vote decided (waiting for a majority); null: no vote recorded
 * @property {number | null} sourceStartMs   time lost while later sources waited for their first packet
 * @property {number | null} rampMs          time lost while sources ramped up to their steady rate
 * @property {number | null} inflightHeldMs  time the proxies' in-flight cap held sources idle after their ramp (null: not reported)
 * @property {number | null} stallMs         other idle gaps after the ramp, before the tail (negative: sources ran above r_i)
 * @property {number} nonUsefulMs     non-useful packets (duplicates, late packets of completed generations) before the tail
 * @property {number | null} tailMs          time lost in the tail: (duration − tail start) − useful bytes in it / R
 * @property {number} transferMs      the useful bytes at the steady aggregate rate R
 * @property {number | null} tailStartMs     when only one generation's worth of degrees of freedom was left
 * @property {number | null} steadyRateBps   R = Σ r_i (payload bytes/s)
 * @property {SourceBreakdown[] | null} perSource
 */

/**
 * @param {object} r  a client log record (docs/log-record.md), or the parts of one used here
 * @param {number} r.durationMs
 * @param {number | null} [r.firstPacketMs]
 * @param {number | null} [r.connectMs]
 * @param {RequestSteps | null} [r.requestSteps]
 * @param {number} [r.grossBytes]
 * @param {number} [r.netBytes]
 * @param {number} [r.n]
 * @param {{generationSize?: number | null, payloadSize?: number | null} | null} [r.params]
 * @param {({bytes?: number | null, packets?: number | null} | null)[] | null} [r.perProxy]
 * @param {Array<[number, number, number, number | null]> | null} [r.packetLog]
 * @param {(number | null)[] | null} [inflightHeldMs]  per source, the proxy's own count (proxy record `inflightHeldMs`)
 * @returns {TimeBreakdown}
 */
export function computeTimeBreakdown(r, inflightHeldMs = null) {
  const D = Math.max(0, r.durationMs);
  const log = Array.isArray(r.packetLog) ? r.packetLog : [];
  let n = Math.max(r.n ?? 0, r.perProxy?.length ?? 0);
  for (const e of log) n = Math.max(n, e[1] + 1);
  const sources = collectSources(log, n, r);
  rateSources(sources);
  const rated = sources.some((s) => s.rate > 0);
  const useful = log.filter((e) => e[2] === 1).length;
  if (!rated || useful === 0) return byBytes(r, D);

  // tail start: the packet after which at most one generation's worth of degrees of freedom was missing
  const tailUnits = r.params?.generationSize ?? DEFAULTS.generationSize;
  const T = Math.min(D, tailStart(log, useful, tailUnits));
  const fMin = sources.reduce((a, s) => Math.min(a, s.first), Infinity);

  const phases = sources.map((s) => countPhases(s, T));
  floorRates(sources, phases, T);
  const R = sources.reduce((a, s) => a + s.rate, 0);

  const sum = { sourceStart: 0, ramp: 0, held: 0, stall: 0, nonUseful: 0, usefulTail: 0, useful: 0 };
  const heldKnown = Array.isArray(inflightHeldMs) && inflightHeldMs.some((h) => Number.isFinite(h));
  /** @type {SourceBreakdown[]} */
  const perSource = sources.map((s, i) => {
    const w = s.rate / R;
    const { fT, eT, rampPkts, steadyPkts, nonUsefulPre, usefulTail } = phases[i];
    const rampLost = eT - fT - (rampPkts * s.bytesPerPacket) / s.rate;
    const steadyLost = T - eT - (steadyPkts * s.bytesPerPacket) / s.rate;
    const heldReported = heldKnown ? inflightHeldMs?.[i] : null;
    const held = Number.isFinite(heldReported) ? Math.max(0, Math.min(/** @type {number} */ (heldReported), steadyLost)) : 0;
    sum.sourceStart += w * (fT - fMin);
    sum.ramp += w * rampLost;
    sum.held += w * held;
    sum.stall += w * (steadyLost - held);
    sum.nonUseful += w * ((nonUsefulPre * s.bytesPerPacket) / s.rate);
    sum.usefulTail += usefulTail * s.bytesPerPacket;
    sum.useful += s.usefulCount * s.bytesPerPacket;
    const seen = s.t.length > 0;
    return {
      firstPacketMs: seen ? round(s.first) : null, rampEndMs: seen ? round(Math.max(s.rampEnd, s.first)) : null,
      steadyRateBps: Math.round(s.rate * 1000), rampMs: seen ? round(Math.max(0, rampLost)) : null,
      heldMs: Number.isFinite(heldReported) ? round(/** @type {number} */ (heldReported)) : null,
      usefulPackets: s.usefulCount, nonUsefulPackets: s.t.length - s.usefulCount,
    };
  });
  // A tail that came faster than R lost no time: its bytes took the time they took. What is left
  // below zero (within a packet's time per source: where a span's count falls) goes to the
  // transfer, so every part is ≥ 0 and they still add up to the duration.
  const tailBytesMs = Math.min(D - T, sum.usefulTail / R);
  const parts = {
    sourceStart: sum.sourceStart, ramp: sum.ramp, held: sum.held, stall: sum.stall, nonUseful: sum.nonUseful,
    tail: D - T - tailBytesMs, transfer: (sum.useful - sum.usefulTail) / R + tailBytesMs,
  };
  for (const k of /** @type {const} */ (['sourceStart', 'ramp', 'held', 'stall', 'nonUseful', 'tail'])) {
    if (parts[k] < 0) {
      parts.transfer += parts[k];
      parts[k] = 0;
    }
  }
  return {
    method: 'packets', ...requestSteps(fMin, r), sourceStartMs: round(parts.sourceStart), rampMs: round(parts.ramp),
    inflightHeldMs: heldKnown ? round(parts.held) : null, stallMs: round(parts.stall), nonUsefulMs: round(parts.nonUseful),
    tailMs: round(parts.tail), transferMs: round(parts.transfer), tailStartMs: round(T),
    steadyRateBps: Math.round(R * 1000), perSource,
  };
}

/**
 * @typedef {{t: number[], useful: boolean[], usefulCount: number, first: number, rampEnd: number, rate: number, bytesPerPacket: number}} Source
 */

/**
 * Each source's packets in time order, and its payload bytes per packet.
 * @param {Array<[number, number, number, number | null]>} log @param {number} n
 * @param {{perProxy?: ({bytes?: number | null, packets?: number | null} | null)[] | null, params?: {payloadSize?: number | null} | null}} r
 * @returns {Source[]}
 */
function collectSources(log, n, r) {
  /** @type {Source[]} */
  const sources = Array.from({ length: n }, (_, i) => {
    const p = r.perProxy?.[i];
    const bytesPerPacket = p && p.bytes && p.packets ? p.bytes / p.packets : (r.params?.payloadSize ?? DEFAULTS.payloadSize);
    return { t: [], useful: [], usefulCount: 0, first: Infinity, rampEnd: Infinity, rate: 0, bytesPerPacket };
  });
  const sorted = log.map((e, k) => ({ e, k })).sort((a, b) => a.e[0] - b.e[0] || a.k - b.k);
  for (const { e } of sorted) {
    const s = sources[e[1]];
    s.t.push(e[0]);
    s.useful.push(e[2] === 1);
    if (e[2] === 1) s.usefulCount++;
  }
  for (const s of sources) if (s.t.length) s.first = s.t[0];
  return sources;
}

/**
 * Steady rate r_i: the packets the STEADY_WINDOW_MS spans starting at its packets carried, at the
 * STEADY_SPAN_QUANTILE of those spans (or, for a source active less than that, its packets over
 * its active span). Only spans that end before its last packet count. Ramp end:
 * the start of the first such span carrying RAMP_REACHED_FRACTION of that. A source with fewer
 * than two packets gets the median rate of the others (the proxies of one download are peers).
 * @param {Source[]} sources
 */
function rateSources(sources) {
  for (const s of sources) {
    const m = s.t.length;
    if (m < 2 || s.t[m - 1] <= s.t[0]) continue;
    const span = s.t[m - 1] - s.t[0];
    if (span < STEADY_WINDOW_MS) {
      s.rate = ((m - 1) * s.bytesPerPacket) / span;
      s.rampEnd = s.first;
      continue;
    }
    const counts = new Array(m);
    /** @type {number[]} */
    const whole = [];
    for (let k = 0, j = 0; k < m; k++) {
      while (j < m && s.t[j] < s.t[k] + STEADY_WINDOW_MS) j++;
      counts[k] = j - k;
      if (s.t[k] + STEADY_WINDOW_MS <= s.t[m - 1]) whole.push(counts[k]);
    }
    whole.sort((a, b) => a - b);
    const best = whole[Math.min(whole.length - 1, Math.floor(STEADY_SPAN_QUANTILE * whole.length))];
    s.rate = (best * s.bytesPerPacket) / STEADY_WINDOW_MS;
    s.rampEnd = s.t[counts.findIndex((c) => c >= RAMP_REACHED_FRACTION * best)];
  }
  const rated = sources.filter((s) => s.rate > 0).map((s) => s.rate).sort((a, b) => a - b);
  if (rated.length === 0) return;
  const med = rated[rated.length >> 1];
  for (const s of sources) if (!(s.rate > 0)) s.rate = med;
}

/**
 * @typedef {{fT: number, eT: number, rampPkts: number, steadyPkts: number, nonUsefulPre: number, usefulTail: number}} Phases
 *   a source's first packet and ramp end (both capped at the tail start T), its packets in the ramp
 *   and in the steady phase before T, its non-useful packets before T and its useful ones from T on
 */

/** @param {Source} s @param {number} T @returns {Phases} */
function countPhases(s, T) {
  const fT = Math.min(s.first, T);
  const eT = Math.min(Math.max(s.rampEnd, s.first), T);
  const p = { fT, eT, rampPkts: 0, steadyPkts: 0, nonUsefulPre: 0, usefulTail: 0 };
  for (let k = 0; k < s.t.length; k++) {
    const t = s.t[k];
    if (t >= T) {
      if (s.useful[k]) p.usefulTail++;
      continue;
    }
    if (!s.useful[k]) p.nonUsefulPre++;
    if (t < eT) p.rampPkts++;
    else p.steadyPkts++;
  }
  return p;
}

/**
 * A source that delivered more in its ramp or its steady phase than its steady rate allows in
 * that time ran above it (a burst its spans' quantile left out): its rate is at least what it
 * delivered there, so no part it adds is negative (20 of 418 testbed records had a negative ramp,
 * stall or tail before).
 * @param {Source[]} sources @param {Phases[]} phases @param {number} T
 */
function floorRates(sources, phases, T) {
  sources.forEach((s, i) => {
    const { fT, eT, rampPkts, steadyPkts } = phases[i];
    // n packets in a span are n − 1 intervals: a steady source's count runs up to one packet over
    if (eT > fT && rampPkts > 1) s.rate = Math.max(s.rate, ((rampPkts - 1) * s.bytesPerPacket) / (eT - fT));
    if (T > eT && steadyPkts > 1) s.rate = Math.max(s.rate, ((steadyPkts - 1) * s.bytesPerPacket) / (T - eT));
  });
}

/**
 * Arrival time of the useful packet that left at most `units` useful packets (degrees of
 * freedom) to come.
 * @param {Array<[number, number, number, number | null]>} log @param {number} useful @param {number} units
 */
function tailStart(log, useful, units) {
  const times = log.filter((e) => e[2] === 1).map((e) => e[0]).sort((a, b) => a - b);
  return times[Math.max(0, useful - units - 1)];
}

/**
 * Without a packet log: the time after the first byte split between useful and non-useful
 * bytes in proportion (every source busy the whole time).
 * @param {{firstPacketMs?: number | null, connectMs?: number | null, requestSteps?: RequestSteps | null, grossBytes?: number, netBytes?: number}} r
 * @param {number} D
 * @returns {TimeBreakdown}
 */
function byBytes(r, D) {
  const request = Math.min(D, Math.max(0, r.firstPacketMs ?? D));
  const gross = r.grossBytes ?? 0;
  const net = Math.min(gross, r.netBytes ?? 0);
  const rest = D - request;
  const nonUseful = gross > 0 ? (rest * (gross - net)) / gross : 0;
  return {
    method: 'bytes', ...requestSteps(request, r), sourceStartMs: null, rampMs: null, inflightHeldMs: null, stallMs: null,
    nonUsefulMs: round(nonUseful), tailMs: null, transferMs: round(rest - nonUseful), tailStartMs: null, steadyRateBps: null, perSource: null,
  };
}

/**
 * The time to the first packet in its steps, each inside the one before so none is negative: the
 * connections' set-up before the first request went out (the record's connectMs, at most the
 * whole); the first answer's proxy's wait for the origin, then its preparation (at most the time
 * from the first request to that answer: a proxy's claim cannot stretch the client's clock); the
 * vote after that answer (at most until the first packet); the rest is requestMs.
 * @param {number} firstMs
 * @param {{connectMs?: number | null, requestSteps?: RequestSteps | null}} r
 */
function requestSteps(firstMs, r) {
  const known = (/** @type {unknown} */ v) => typeof v === 'number' && Number.isFinite(v);
  const hasConnect = known(r.connectMs);
  const connect = hasConnect ? Math.min(firstMs, Math.max(0, /** @type {number} */ (r.connectMs))) : 0;
  const st = r.requestSteps;
  const connectPart = { connectMs: hasConnect ? round(connect) : null };
  if (!st || !known(st.answerMs)) return { ...connectPart, requestMs: round(firstMs - connect), originMs: null, prepareMs: null, voteMs: null };
  const answer = Math.min(firstMs, Math.max(connect, /** @type {number} */ (st.answerMs)));
  const origin = known(st.originMs) ? Math.min(answer - connect, Math.max(0, /** @type {number} */ (st.originMs))) : null;
  const prepare = known(st.prepareMs) ? Math.min(answer - connect - (origin ?? 0), Math.max(0, /** @type {number} */ (st.prepareMs))) : null;
  const vote = known(st.decidedMs) ? Math.min(firstMs, Math.max(answer, /** @type {number} */ (st.decidedMs))) - answer : null;
  // rounding each part alone could leave the sum 0.1 ms off the whole: requestMs takes the rest of the rounded ones
  const parts = { originMs: origin === null ? null : round(origin), prepareMs: prepare === null ? null : round(prepare), voteMs: vote === null ? null : round(vote) };
  const rest = round(firstMs) - (connectPart.connectMs ?? 0) - (parts.originMs ?? 0) - (parts.prepareMs ?? 0) - (parts.voteMs ?? 0);
  return { ...connectPart, requestMs: round(Math.max(0, rest)), ...parts };
}

/** @param {number} v */
const round = (v) => Math.round(v * ROUND_STEPS_PER_MS) / ROUND_STEPS_PER_MS;

/** The parts that add up to durationMs, in time order of where they happen (for charts and reports). */
export const TIME_BREAKDOWN_PARTS = /** @type {const} */ (['connectMs', 'requestMs', 'originMs', 'prepareMs', 'voteMs', 'sourceStartMs', 'rampMs', 'inflightHeldMs', 'stallMs', 'nonUsefulMs', 'tailMs', 'transferMs']);
