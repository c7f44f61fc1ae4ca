// The report's "Where the time goes" section: per box, the median of each part of the
// downloads' time breakdowns (docs/log-record.md, "Time breakdown").
import { TIME_BREAKDOWN_PARTS } from '@mutp/protocol';
import { modeName } from './charts.js';
import { median } from './stats.js';

const PART_NAMES = /** @type {Record<typeof TIME_BREAKDOWN_PARTS[number], string>} */ ({
  connectMs: 'connect', requestMs: 'request', originMs: 'origin fetch', prepareMs: 'hashing', voteMs: 'vote', sourceStartMs: 'late sources', rampMs: 'ramp', inflightHeldMs: 'in-flight held', stallMs: 'stall',
  nonUsefulMs: 'non-useful', tailMs: 'tail', transferMs: 'transfer',
});
const HTTP_MODES = ['parallel-http', 'range-http'];

/**
 * @param {{key: string, ok: boolean, composition: string, mode: string, window: number, generationSize: number, lossPct: number, sizeBin: string,
 *   durationMs: number | null, timeBreakdown?: ReturnType<typeof import('@mutp/protocol').computeTimeBreakdown> | null}[]} rows
 * @param {{delayMs: number, loadText: string}} o
 * @returns {string} Markdown
 */
export function breakdownTable(rows, { delayMs, loadText }) {
  const withTb = rows.filter((r) => r.ok && r.timeBreakdown);
  if (!withTb.length) return 'No download carried a time breakdown (records from before it existed).';
  const keys = [...new Set(withTb.map((r) => r.key))];
  const ms = (/** @type {number} */ v) => (Number.isFinite(v) ? v.toFixed(0) : '–');
  const lines = keys.map((k) => {
    const box = withTb.filter((r) => r.key === k);
    const r0 = box[0];
    const part = (/** @type {typeof TIME_BREAKDOWN_PARTS[number]} */ p) => median(box.map((r) => /** @type {any} */ (r.timeBreakdown)[p]).filter((v) => typeof v === 'number'));
    return `| ${r0.composition} | ${modeName(r0.mode)} | ${HTTP_MODES.includes(r0.mode) ? '–' : r0.window} | ${r0.mode === 'coded' ? r0.generationSize : '–'} | ${r0.lossPct}% | ${r0.sizeBin} | ${box.length} | ${ms(median(box.map((r) => /** @type {number} */ (r.durationMs))))} | ${TIME_BREAKDOWN_PARTS.map((p) => ms(part(p))).join(' | ')} |`;
  });
  return [
    `Each download's duration split into parts that add up to it (ms; \`timeBreakdown\` in docs/log-record.md). Each source has a steady rate (the 90th percentile of its 100 ms spans, or what it delivered in its ramp or after it when that was more); a part is the time sources lost to one cause, weighted by their share of the summed steady rates — i.e. time of the whole download at full speed. **request**: to the first packet (includes the ${delayMs > 0 ? `${2 * delayMs} ms` : ''} round trip and the origin fetch); **late sources**: later sources waiting for their first packet; **ramp**: until each source first ran at ≥ 90% of its steady rate; **in-flight held**: idle time the proxies' in-flight cap reported (joined from the proxies' records); **stall**: other idle time after the ramp; **non-useful**: duplicates and packets of completed generations before the tail; **tail**: time lost once at most one generation's worth of packets was missing; **transfer**: the useful bytes at the summed steady rate. HTTP modes have no packet log: request, then the rest split by useful and non-useful bytes. Medians per part, so a row's parts need not add up to its median duration.`,
    '',
    loadText,
    '',
    `| proxies | mode | w | g | loss | chunk | n | duration | ${TIME_BREAKDOWN_PARTS.map((p) => PART_NAMES[p]).join(' | ')} |`,
    `|---|---|---|---|---|---|---|---|${TIME_BREAKDOWN_PARTS.map(() => '---').join('|')}|`,
    ...lines,
  ].join('\n');
}
