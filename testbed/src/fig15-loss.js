// FIGURE 15 with injected loss as curves: each mode's median goodput (and interquartile range) on
// the mix at every injected loss rate, its ratio to the same mode's lossless median, and the
// verdict on the claim that Coded MUTP keeps its goodput under random loss.
import { quantile } from './stats.js';
import { MODES, isLossBox } from './campaign-plan.js';

/** "Keeps its goodput": at least 90% of its own lossless median (the paper's FIGURE 15 shows Coded flat within its boxes' spread). */
export const KEEPS_SHARE = 0.9;
/** The loss rates (%) the claim is judged at: the paper's FIGURE 15 runs to 2%; 5% is shown but not judged. */
export const CLAIM_LOSS_RANGE_PCT = /** @type {const} */ ([1, 2]);

/**
 * @typedef {{lossPct: number, n: number, median: number, q1: number, q3: number, ratio: number}} LossPoint  ratio: median ÷ the mode's lossless median (NaN: none)
 * @typedef {{losses: number[], modes: {mode: string, points: LossPoint[]}[]}} LossCurves
 */

/**
 * Goodput against injected loss on the mix (w, g, chunk bin at FIGURE 15's defaults), one curve per mode.
 * @param {{ok: boolean, goodputBps: number | null, lossPct: number, mode: string, composition: string, window: number, generationSize: number, sizeBin: string}[]} rows
 * @returns {LossCurves}
 */
export function lossCurves(rows) {
  const box = rows.filter((r) => r.ok && Number.isFinite(r.goodputBps) && isLossBox(/** @type {any} */ (r)));
  const losses = [...new Set(box.map((r) => r.lossPct))].sort((a, b) => a - b);
  const modes = MODES.filter((m) => box.some((r) => r.mode === m)).map((mode) => {
    const at = (/** @type {number} */ lossPct) => box.filter((r) => r.mode === mode && r.lossPct === lossPct).map((r) => /** @type {number} */ (r.goodputBps)).sort((a, b) => a - b);
    const lossless = quantile(at(0), 0.5);
    const points = losses.map((lossPct) => {
      const v = at(lossPct);
      const median = quantile(v, 0.5);
      return { lossPct, n: v.length, median, q1: quantile(v, 0.25), q3: quantile(v, 0.75), ratio: lossless > 0 ? median / lossless : NaN };
    });
    return { mode, points };
  });
  return { losses, modes };
}

/** @param {LossCurves} curves @param {string} mode @param {number} lossPct */
const pointOf = (curves, mode, lossPct) => curves.modes.find((m) => m.mode === mode)?.points.find((p) => p.lossPct === lossPct) ?? null;

/**
 * Markdown: per mode, the median goodput at each loss rate, × its lossless median, and n.
 * @param {LossCurves} curves
 * @param {(mode: string) => string} name
 * @param {(bps: number) => string} rate
 */
export function lossTable(curves, name, rate) {
  if (!curves.losses.length) return '';
  const cell = (/** @type {LossPoint} */ p) => (p.n ? `${rate(p.median)} (×${Number.isFinite(p.ratio) ? p.ratio.toFixed(2) : 'n/a'}, n ${p.n})` : 'n/a');
  return [
    `| mode | ${curves.losses.map((l) => `${l}% loss`).join(' | ')} |`,
    `|---|${curves.losses.map(() => '---|').join('')}`,
    ...curves.modes.map((m) => `| ${name(m.mode)} | ${m.points.map(cell).join(' | ')} |`),
  ].join('\n');
}

/**
 * The claim "Coded MUTP keeps ≥ KEEPS_SHARE of its lossless goodput at 1–2% loss and beats Range-split
 * HTTP there", judged at every injected rate in that range the data has. null: no such rate, or a
 * median missing at one of them.
 * @param {LossCurves} curves
 * @param {(bps: number) => string} rate
 * @returns {{ok: boolean | null, text: string}}
 */
export function codedKeepsVerdict(curves, rate) {
  const [lo, hi] = CLAIM_LOSS_RANGE_PCT;
  const at = curves.losses.filter((l) => l >= lo && l <= hi);
  if (!at.length) return { ok: null, text: `no injected loss in ${lo}–${hi}%` };
  const checks = at.map((l) => {
    const c = pointOf(curves, 'coded', l);
    const r = pointOf(curves, 'range-http', l);
    const known = Boolean(c?.n && r?.n && Number.isFinite(c.ratio));
    return {
      known, ok: known && /** @type {LossPoint} */ (c).ratio >= KEEPS_SHARE && /** @type {LossPoint} */ (c).median > /** @type {LossPoint} */ (r).median,
      text: `at ${l}%: Coded ${c?.n ? rate(c.median) : 'n/a'} (×${c && Number.isFinite(c.ratio) ? c.ratio.toFixed(2) : 'n/a'} of lossless), Range-split ${r?.n ? rate(r.median) : 'n/a'}`,
    };
  });
  return { ok: checks.every((c) => c.known) ? checks.every((c) => c.ok) : null, text: checks.map((c) => c.text).join('; ') };
}
