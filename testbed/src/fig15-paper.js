// FIGURE 15 the paper's way (section V.e): no injected loss. Each MUTP download's loss rate is
// measured on the wire (its sequence gaps, `lossEstimate`); an HTTP download's loss, which
// JavaScript cannot see, is inferred as the mean loss of the MUTP downloads by the same client
// with the same proxies that completed within ±30 s of it. Downloads are then binned by loss.

/** Paper V.e: MUTP downloads within the last or following 30 s stand for an HTTP download's loss. */
export const INFER_WINDOW_MS = 30_000;
const MUTP = ['uncoded', 'coded'];

/** Loss bins [lo, hi) in percent: the paper's regimes (< 0.5%: flat; 0.5–1%: drop starts; ≥ 1%: HTTP collapses). */
export const LOSS_BINS = /** @type {const} */ ([
  { label: '<0.1%', lo: 0, hi: 0.1 },
  { label: '0.1–0.5%', lo: 0.1, hi: 0.5 },
  { label: '0.5–1%', lo: 0.5, hi: 1 },
  { label: '1–2%', lo: 1, hi: 2 },
  { label: '≥2%', lo: 2, hi: Infinity },
]);

/**
 * @typedef {{mode: string, ok: boolean, proxyIds: string[], startedAt: string | null, durationMs: number | null, lossEstimate: number | null, clientId?: string | null}} LossRow
 */

/** @param {LossRow} r */
const endMs = (r) => (r.startedAt && Number.isFinite(r.durationMs) ? Date.parse(r.startedAt) + /** @type {number} */ (r.durationMs) : NaN);
/** @param {string[]} ids */
const setKey = (ids) => [...ids].sort().join(',');

/**
 * The loss each download is binned by: measured for MUTP, inferred for HTTP. `how` says which
 * MUTP downloads stood in: 'same-proxies' (the paper's rule) or, when none did, 'shared-proxy'
 * (ours: the testbed picks each download's proxies at random from the fleet, so an identical set
 * within ±30 s is rare; then MUTP downloads sharing at least one proxy with it, each weighted by
 * the proxies shared); null when nothing stood in.
 * @template {LossRow} T
 * @param {T[]} rows   successful and failed downloads of one un-injected run
 * @returns {(T & {lossPctOnWire: number | null, lossHow: 'measured' | 'same-proxies' | 'shared-proxy' | null})[]}
 */
export function inferLoss(rows) {
  const mutp = rows.filter((r) => r.ok && MUTP.includes(r.mode) && Number.isFinite(r.lossEstimate) && Number.isFinite(endMs(r)));
  return rows.map((r) => {
    if (MUTP.includes(r.mode)) {
      return { ...r, lossPctOnWire: Number.isFinite(r.lossEstimate) ? /** @type {number} */ (r.lossEstimate) * 100 : null, lossHow: Number.isFinite(r.lossEstimate) ? 'measured' : null };
    }
    const t = endMs(r);
    const near = mutp.filter((m) => Math.abs(endMs(m) - t) <= INFER_WINDOW_MS && (r.clientId == null || m.clientId == null || m.clientId === r.clientId));
    const same = near.filter((m) => setKey(m.proxyIds) === setKey(r.proxyIds));
    if (same.length) return { ...r, lossPctOnWire: (100 * same.reduce((a, m) => a + /** @type {number} */ (m.lossEstimate), 0)) / same.length, lossHow: 'same-proxies' };
    let weight = 0;
    let sum = 0;
    for (const m of near) {
      const shared = m.proxyIds.filter((id) => r.proxyIds.includes(id)).length;
      weight += shared;
      sum += shared * /** @type {number} */ (m.lossEstimate);
    }
    return { ...r, lossPctOnWire: weight > 0 ? (100 * sum) / weight : null, lossHow: weight > 0 ? 'shared-proxy' : null };
  });
}

/** The bin label of a loss in percent (null: no loss known). @param {number | null} pct */
export function lossBin(pct) {
  if (pct === null || !Number.isFinite(pct)) return null;
  return LOSS_BINS.find((b) => pct >= b.lo && pct < b.hi)?.label ?? null;
}
