// What the client's capped link gave each party while the downloads ran: the cross TCP flow's
// throughput and share of the cap, the downloads' share, and the bottleneck queue's delay and
// drops. Measured over the downloads' own time spans only: between two downloads the cross
// flow has the link to itself, which says nothing about sharing it.
import { quantile } from './stats.js';
import { formatRate } from './rates.js';

/**
 * How long the cross traffic runs before the first download, ms. Cubic's slow start fills a
 * 2 MiB/s link at RTT 50 ms in well under a second; a few seconds more put it in congestion
 * avoidance with a full queue, as a long download already running when the video starts is.
 */
export const CROSS_LEAD_MS = 3000;
const PERCENT = 100;

/**
 * @typedef {import('./bottleneck.js').QueueSample} QueueSample
 * @typedef {import('./bottleneck.js').Bottleneck} Bottleneck
 * @typedef {{t: number, crossBytes: number | null, queue: QueueSample | null}} Mark
 * @typedef {{from: Mark, to: Mark, netBytes: number}} Window  one download, netBytes 0 when it failed
 * @typedef {ReturnType<typeof summarizeSharedLink>} SharedLinkSummary
 */

/**
 * @param {{bottleneck: Bottleneck, sampler: ReturnType<typeof import('./bottleneck.js').startQueueSampler>,
 *   cross: {receivedBytes: () => Promise<number>, stop: () => void} | null, crossCongestion?: string}} o
 */
export function createSharedLinkMeter({ bottleneck, sampler, cross, crossCongestion }) {
  /** @type {Window[]} */
  const windows = [];
  /** @returns {Promise<Mark>} */
  const mark = async () => {
    const crossBytes = cross ? await cross.receivedBytes() : null;
    return { t: performance.now(), crossBytes, queue: sampler.latest() };
  };
  return {
    /**
     * Runs one download and counts its time span.
     * @template {{error?: unknown, stats?: {netBytes?: number} | null}} R
     * @param {() => Promise<R>} run
     * @returns {Promise<R>}
     */
    async measure(run) {
      const from = await mark();
      const r = await run();
      const to = await mark();
      windows.push({ from, to, netBytes: r.error ? 0 : (r.stats?.netBytes ?? 0) });
      return r;
    },
    summary: () => summarizeSharedLink({ bottleneck, windows, samples: sampler.samples(), crossCongestion }),
    stop() {
      sampler.stop();
      cross?.stop();
    },
  };
}

/**
 * @param {{bottleneck: Bottleneck, windows: Window[], samples: QueueSample[], crossCongestion?: string}} o
 */
export function summarizeSharedLink({ bottleneck, windows, samples, crossCongestion }) {
  const cap = bottleneck.rateBps;
  let durationMs = 0;
  let crossBytes = 0;
  let netBytes = 0;
  let wireBytes = 0;
  let drops = 0;
  let counted = true; // every window has the bottleneck's counters at both ends
  for (const w of windows) {
    durationMs += w.to.t - w.from.t;
    crossBytes += (w.to.crossBytes ?? 0) - (w.from.crossBytes ?? 0);
    netBytes += w.netBytes;
    if (w.from.queue && w.to.queue) {
      wireBytes += w.to.queue.sentBytes - w.from.queue.sentBytes;
      drops += w.to.queue.drops - w.from.queue.drops;
    } else counted = false;
  }
  const seconds = durationMs / 1000;
  const rate = (/** @type {number} */ bytes) => (seconds > 0 ? bytes / seconds : NaN);
  const delays = samples
    .filter((s) => windows.some((w) => s.t >= w.from.t && s.t <= w.to.t))
    .map((s) => (s.backlogBytes / cap) * 1000)
    .sort((a, b) => a - b);
  const hasCross = windows.length > 0 && windows.every((w) => w.from.crossBytes !== null);
  return {
    capBps: cap,
    queueMs: bottleneck.queueMs,
    queueLimitBytes: bottleneck.limitBytes,
    downloads: windows.length,
    durationMs,
    /** the cross TCP flow's payload, null without cross traffic */
    cross: hasCross ? { bytes: crossBytes, bps: rate(crossBytes), share: rate(crossBytes) / cap, congestion: crossCongestion ?? null } : null,
    /** the downloads' delivered bytes (objects, not headers) over their own time */
    delivered: { bytes: netBytes, bps: rate(netBytes), share: rate(netBytes) / cap },
    /** what left the bottleneck, every header included, over the cap: ~1 when the link was full */
    linkBusy: counted ? rate(wireBytes) / cap : null,
    queueDelayMs: { samples: delays.length, median: quantile(delays, 0.5), p95: quantile(delays, 0.95), max: delays.length ? delays[delays.length - 1] : NaN },
    /** packets the bottleneck's bfifo dropped while the downloads ran */
    drops: counted ? drops : null,
  };
}

/** @param {SharedLinkSummary} s @returns {string} */
export function formatSharedLink(s) {
  const pct = (/** @type {number} */ x) => `${(x * PERCENT).toFixed(1)}%`;
  const ms = (/** @type {number} */ x) => x.toFixed(1);
  const q = s.queueDelayMs;
  return [
    `shared bottleneck: cap ${formatRate(s.capBps)}, queue ≤ ${s.queueMs} ms (${s.queueLimitBytes} B), over the ${s.downloads} downloads' ${(s.durationMs / 1000).toFixed(1)} s`,
    s.cross
      ? `  cross TCP${s.cross.congestion ? ` (${s.cross.congestion})` : ''}: ${formatRate(s.cross.bps)} of payload, ${pct(s.cross.share)} of the cap`
      : '  cross TCP: none',
    `  downloads: ${formatRate(s.delivered.bps)} delivered, ${pct(s.delivered.share)} of the cap`,
    `  link: ${s.linkBusy === null ? 'not counted' : `${pct(s.linkBusy)} of the cap on the wire (headers included)`}`,
    `  queue delay: median ${ms(q.median)} ms, p95 ${ms(q.p95)}, max ${ms(q.max)} (${q.samples} samples); drops at the bottleneck: ${s.drops === null ? 'not counted' : `${s.drops} packets`}`,
  ].join('\n');
}
