// The cost bench's numbers, pure: one row per download from the CPU samples taken around it,
// then per mode the medians over the verified downloads, each as a ratio to Range-split HTTP's,
// and the targets met or missed. No I/O: the tests feed it rows.
import { median } from '../stats.js';

export const MB = 1e6; // bytes per MB here, as in @mutp/common/units (MiB is 2^20)
const MS_PER_S = 1000;
export const BASELINE_MODE = 'range-http'; // the stronger HTTP baseline every ratio is taken to
export const MODES = /** @type {const} */ (['range-http', 'parallel-http', 'uncoded', 'coded']);
export const MODE_NAMES = /** @type {Record<string, string>} */ ({ 'parallel-http': 'Parallel HTTP', 'range-http': 'Range-split HTTP', uncoded: 'Uncoded MUTP', coded: 'Coded MUTP' });

/** The targets for Coded MUTP against Range-split HTTP on loopback. */
export const TARGET_LIMITS = Object.freeze({
  proxyCpuRatio: 2, // the proxies' CPU per MB, at most this many times Range-split HTTP's
  clientCpuRatio: 1.5, // the client's CPU per MB, at most this many times Range-split HTTP's
  goodputMBps: 60, // coded goodput at least this (MB/s) …
  normalizedGoodput: 0.95, // … at a normalized goodput at least this (useful bytes / bytes received)
});

/**
 * @typedef {{proxies: (number | null)[], agent: number | null, origo: number | null, origin: number | null}} CpuSample
 *   CPU seconds used so far (utime + stime) by each process; null: it is gone
 * @typedef {object} RawDownload
 * @property {'warmup' | 'measured'} phase
 * @property {number} round     0 for the warm-up
 * @property {number} slot      its place in the round's order (0 first)
 * @property {string} mode
 * @property {any} result       the client agent's answer to `download`
 * @property {string} expectedSha256  of the object asked for
 * @property {CpuSample} cpu0   before the download
 * @property {CpuSample} cpu1   after it and its trailing work
 * @property {number} loadavg1  1-min load average before it
 * @property {number} busyCores the machine's busy cores during it (NaN: unknown)
 */

/** @param {number | null | undefined} a @param {number | null | undefined} b */
const delta = (a, b) => (a == null || b == null ? null : b - a);
/**
 * The summed CPU seconds of several processes between two readings, null if one is gone.
 * @param {(number | null)[]} before @param {(number | null)[]} after
 */
export function sumDeltas(before, after) {
  const each = before.map((c, i) => delta(c, after[i]));
  return each.some((v) => v === null) ? null : /** @type {number[]} */ (each).reduce((a, b) => a + b, 0);
}
/** @param {number | null} cpuS @param {number} bytes  CPU ms per MB, null without both */
const msPerMB = (cpuS, bytes) => (cpuS == null || !(bytes > 0) ? null : (cpuS * MS_PER_S) / (bytes / MB));
/** @param {number | null} v */
const round6 = (v) => (v == null || !Number.isFinite(v) ? null : Math.round(v * 1e6) / 1e6);

/**
 * Why a download is left out of the medians, or null when it counts: it failed, its bytes are not
 * the object's, or (HTTP modes) no two proxies agreed on a digest of its blocks.
 * @param {any} result @param {string} expectedSha256
 * @param {{vote?: boolean}} [o]  vote: false where one proxy serves each download (no two can agree)
 */
export function exclusion(result, expectedSha256, { vote = true } = {}) {
  if (result?.error) return `failed: ${result.error.code ?? 'ERR_UNKNOWN'}`;
  if (!result?.stats) return 'failed: no stats record';
  if (result.sha256 !== expectedSha256) return 'wrong bytes';
  if (vote && result.stats.verified === false) return 'integrity not verified';
  return null;
}

/**
 * One download's row: what it moved, how fast, and what it cost each process.
 * Goodput is the client record's (net bytes over its duration, from the chunk request to the
 * verified body: Origo's ticket lookup before it is not part of it); the CPU covers the whole
 * measured span (the agent's call, its log post and the proxies' trailing work). The client's
 * CPU leaves out the agent's sha256 of the body: that is the bench's check, not the client's work.
 * @param {RawDownload} d
 */
export function costRow(d) {
  const r = d.result ?? {};
  const s = r.stats ?? {};
  const excluded = exclusion(r, d.expectedSha256);
  const netBytes = excluded ? 0 : s.netBytes;
  const proxyEach = d.cpu0.proxies.map((c, i) => delta(c, d.cpu1.proxies[i]));
  const proxyCpuS = sumDeltas(d.cpu0.proxies, d.cpu1.proxies);
  const hashS = typeof r.hashCpuSeconds === 'number' ? r.hashCpuSeconds : 0;
  const agentS = delta(d.cpu0.agent, d.cpu1.agent);
  const clientCpuS = agentS === null ? null : agentS - hashS;
  const clientCallCpuS = typeof r.clientCpuSeconds === 'number' ? r.clientCpuSeconds - hashS : null;
  const origoCpuS = delta(d.cpu0.origo, d.cpu1.origo);
  const originCpuS = delta(d.cpu0.origin, d.cpu1.origin);
  return {
    phase: d.phase, round: d.round, slot: d.slot, mode: d.mode,
    verified: excluded === null, excluded,
    error: r.error ?? null,
    netBytes: s.netBytes ?? 0, grossBytes: s.grossBytes ?? 0,
    durationMs: s.durationMs ?? null, wallMs: round6(r.wallMs ?? null),
    goodputMBps: excluded ? null : round6(netBytes / MB / (s.durationMs / MS_PER_S)),
    normalizedGoodput: excluded ? null : s.normalizedGoodput ?? null,
    proxyCpuS: round6(proxyCpuS), proxyCpuEachS: proxyEach.map(round6), clientCpuS: round6(clientCpuS), clientCallCpuS: round6(clientCallCpuS),
    hashCpuS: round6(hashS), origoCpuS: round6(origoCpuS), originCpuS: round6(originCpuS),
    proxyCpuMsPerMB: round6(msPerMB(proxyCpuS, netBytes)), clientCpuMsPerMB: round6(msPerMB(clientCpuS, netBytes)),
    clientCallCpuMsPerMB: round6(msPerMB(clientCallCpuS, netBytes)),
    origoCpuMsPerMB: round6(msPerMB(origoCpuS, netBytes)), originCpuMsPerMB: round6(msPerMB(originCpuS, netBytes)),
    loadavg1: round6(d.loadavg1), busyCores: round6(d.busyCores),
    connections: r.connections ?? null,
  };
}

/** @typedef {ReturnType<typeof costRow>} CostRow */

const MEDIAN_FIELDS = /** @type {const} */ (['goodputMBps', 'normalizedGoodput', 'proxyCpuMsPerMB', 'clientCpuMsPerMB', 'clientCallCpuMsPerMB',
  'origoCpuMsPerMB', 'originCpuMsPerMB', 'loadavg1', 'busyCores', 'wallMs']);

/** Median of the finite values, null when there are none. @param {(number | null)[]} values */
export function medianOf(values) {
  const v = /** @type {number[]} */ (values.filter((x) => typeof x === 'number' && Number.isFinite(x)));
  return v.length ? median(v) : null;
}

/** @param {number | null} a @param {number | null} b  a ÷ b, null without both (or b = 0) */
const ratio = (a, b) => (a == null || b == null || b === 0 ? null : a / b);

/**
 * Per mode: downloads, the verified ones, why the others were left out, the medians over the
 * verified ones, and goodput and CPU per MB as ratios to the baseline's medians in the same run.
 * Warm-up rows are left out. Then the targets, and the machine's load over every measured download.
 * @param {CostRow[]} rows
 * @param {{modes?: readonly string[], baseline?: string}} [o]
 */
export function summarize(rows, { modes = MODES, baseline = BASELINE_MODE } = {}) {
  const measured = rows.filter((r) => r.phase === 'measured');
  const perMode = modes.map((mode) => {
    const mine = measured.filter((r) => r.mode === mode);
    const ok = mine.filter((r) => r.verified);
    const med = /** @type {Record<typeof MEDIAN_FIELDS[number], number | null>} */ (
      Object.fromEntries(MEDIAN_FIELDS.map((f) => [f, medianOf(ok.map((r) => r[f]))])));
    return { mode, name: MODE_NAMES[mode] ?? mode, downloads: mine.length, verified: ok.length,
      excluded: mine.filter((r) => !r.verified).map((r) => ({ round: r.round, why: r.excluded })), median: med };
  });
  const base = perMode.find((m) => m.mode === baseline)?.median ?? null;
  const withRatios = perMode.map((m) => ({
    ...m,
    ratio: {
      goodput: ratio(m.median.goodputMBps, base?.goodputMBps ?? null),
      proxyCpu: ratio(m.median.proxyCpuMsPerMB, base?.proxyCpuMsPerMB ?? null),
      clientCpu: ratio(m.median.clientCpuMsPerMB, base?.clientCpuMsPerMB ?? null),
    },
  }));
  return {
    baseline,
    perMode: withRatios,
    targets: evaluateTargets(withRatios.find((m) => m.mode === 'coded') ?? null),
    machine: {
      loadavg1: { median: medianOf(measured.map((r) => r.loadavg1)), max: maxOf(measured.map((r) => r.loadavg1)) },
      busyCores: { median: medianOf(measured.map((r) => r.busyCores)), max: maxOf(measured.map((r) => r.busyCores)) },
    },
  };
}

/** @param {(number | null)[]} values */
function maxOf(values) {
  const v = /** @type {number[]} */ (values.filter((x) => typeof x === 'number' && Number.isFinite(x)));
  return v.length ? Math.max(...v) : null;
}

/** @param {boolean | null} ok */
const verdict = (ok) => (ok === null ? 'no data' : ok ? 'met' : 'missed');

/**
 * The targets for Coded MUTP: 'met', 'missed', or 'no data' (coded or the baseline has no
 * verified download, or the mode was not run).
 * @param {{median: Record<string, number | null>, ratio: Record<string, number | null>} | null} coded
 */
export function evaluateTargets(coded) {
  const proxy = coded?.ratio.proxyCpu ?? null;
  const client = coded?.ratio.clientCpu ?? null;
  const goodput = coded?.median.goodputMBps ?? null;
  const normalized = coded?.median.normalizedGoodput ?? null;
  return [
    { id: 'proxy-cpu', text: `Coded MUTP proxies' CPU/MB ≤ ${TARGET_LIMITS.proxyCpuRatio}× Range-split HTTP's`, measured: { ratio: proxy },
      verdict: verdict(proxy === null ? null : proxy <= TARGET_LIMITS.proxyCpuRatio) },
    { id: 'client-cpu', text: `Coded MUTP client's CPU/MB ≤ ${TARGET_LIMITS.clientCpuRatio}× Range-split HTTP's`, measured: { ratio: client },
      verdict: verdict(client === null ? null : client <= TARGET_LIMITS.clientCpuRatio) },
    { id: 'goodput', text: `Coded MUTP goodput ≥ ${TARGET_LIMITS.goodputMBps} MB/s at normalized ≥ ${TARGET_LIMITS.normalizedGoodput}`, measured: { goodputMBps: goodput, normalizedGoodput: normalized },
      verdict: verdict(goodput === null || normalized === null ? null : goodput >= TARGET_LIMITS.goodputMBps && normalized >= TARGET_LIMITS.normalizedGoodput) },
  ];
}

/**
 * The order of the modes in round `round`: rotated by one per round, so no mode always runs first
 * (or always right after the same one).
 * @template T @param {readonly T[]} modes @param {number} round
 */
export function roundOrder(modes, round) {
  const k = modes.length ? round % modes.length : 0;
  return [...modes.slice(k), ...modes.slice(0, k)];
}
