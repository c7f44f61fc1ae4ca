// SQL for the admin dashboard (DuckDB dialect). Inputs come from admin/dashboard-filter.js, which
// admits only finite numbers, integers and fixed list members; those are the only values inlined.
import { CLIENT_MODES } from '../schema/common.js';
import { METRICS } from '../admin/dashboard-filter.js';

/** IQR multiple for the whiskers (paper V.C: "whiskers at Q1 − 1.5·IQR and Q3 + 1.5·IQR"). */
export const WHISKER_IQR = 1.5;
/** Outliers sent per box, values: the most extreme ones; the rest are only counted, so a box never ships thousands of points. */
export const OUTLIERS_PER_BOX = 40;

/** @param {number} v */
const num = (v) => {
  if (!Number.isFinite(v)) throw new TypeError(`not a finite number: ${v}`);
  return String(v);
};
/** @param {string} m */
const mode = (m) => {
  if (!CLIENT_MODES.includes(m)) throw new TypeError(`not a mode: ${m}`);
  return `'${m}'`;
};

/** @param {import('../admin/dashboard-filter.js').DashboardFilter} f @returns {string} a WHERE clause ('' when none) */
export function whereSql(f) {
  const and = [];
  if (f.fromMs !== null) and.push(`started_at >= to_timestamp(${num(f.fromMs / 1000)})`);
  if (f.toMs !== null) and.push(`started_at < to_timestamp(${num(f.toMs / 1000)})`);
  if (f.minBytes !== null) and.push(`object_bytes >= ${num(f.minBytes)}`);
  if (f.maxBytes !== null) and.push(`object_bytes <= ${num(f.maxBytes)}`);
  if (f.modes.length) and.push(`mode IN (${f.modes.map(mode).join(', ')})`);
  /** @type {[string, number[]][]} */
  const lists = [['n', f.n], ['param_window', f.window], ['param_generation_size', f.generationSize], ['param_feedback_every', f.feedbackEvery]];
  for (const [column, values] of lists) if (values.length) and.push(`${column} IN (${values.map(num).join(', ')})`);
  if (f.errors === 'exclude') and.push('error_code IS NULL');
  if (f.errors === 'only') and.push('error_code IS NOT NULL');
  return and.length ? `WHERE ${and.join(' AND ')}` : '';
}

/** Columns of the downloads table (paper FIGURE 6); no JSON columns, so a page is a narrow top-N scan. */
export const DOWNLOAD_ROW_SQL = `id::VARCHAR AS id, epoch_ms(started_at) AS started_at, epoch_ms(received_at) AS received_at,
  mode, n, proxy_ids, rate_mix, object_bytes, gross_bytes, net_bytes, first_packet_ms, server_fetch_ms, duration_ms,
  throughput_bps, goodput_bps, normalized_goodput, loss_estimate, param_window, param_generation_size, param_feedback_every,
  error_code, error_message, packet_log IS NOT NULL AS has_timeline`;

/** Newest first: received_at is Origo's clock, so a live row lands on top. */
export const DOWNLOAD_ORDER_SQL = 'ORDER BY received_at DESC, started_at DESC, id';

/**
 * The x-axis key of each grouping: `grp` (a label key, never null) and `ord` (sort order).
 * Chunk buckets are powers of two in KiB (paper FIGURE 12); loss buckets follow FIGURE 15.
 * @type {Record<string, { grp: string, ord: string }>}
 */
const GROUP_SQL = {
  n: { grp: 'n::VARCHAR', ord: 'n' },
  nRate: { grp: `n::VARCHAR || '|' || coalesce(rate_mix, '?')`, ord: 'n' },
  chunk: {
    grp: `CASE WHEN object_bytes IS NULL THEN 'none' WHEN object_bytes < 1024 THEN '-1' ELSE floor(log2(object_bytes / 1024))::INTEGER::VARCHAR END`,
    ord: `CASE WHEN object_bytes IS NULL THEN -1e9 WHEN object_bytes < 1024 THEN -1 ELSE floor(log2(object_bytes / 1024)) END`,
  },
  g: { grp: `coalesce(param_generation_size::VARCHAR, 'none')`, ord: 'coalesce(param_generation_size, -1e9)' },
  w: { grp: `coalesce(param_window::VARCHAR, 'none')`, ord: 'coalesce(param_window, -1e9)' },
  feedbackEvery: { grp: `coalesce(param_feedback_every::VARCHAR, 'none')`, ord: 'coalesce(param_feedback_every, -1e9)' },
  loss: {
    grp: `CASE WHEN loss_estimate IS NULL THEN 'none' WHEN loss_estimate = 0 THEN '0' WHEN loss_estimate <= 0.001 THEN '1'
      WHEN loss_estimate <= 0.005 THEN '2' WHEN loss_estimate <= 0.01 THEN '3' WHEN loss_estimate <= 0.02 THEN '4' ELSE '5' END`,
    ord: `CASE WHEN loss_estimate IS NULL THEN -1e9 WHEN loss_estimate = 0 THEN 0 WHEN loss_estimate <= 0.001 THEN 1
      WHEN loss_estimate <= 0.005 THEN 2 WHEN loss_estimate <= 0.01 THEN 3 WHEN loss_estimate <= 0.02 THEN 4 ELSE 5 END`,
  },
};

/**
 * One row per (mode, group): count, quartiles (quantile_cont), whiskers at the most extreme data
 * within 1.5·IQR of the box, and the outliers beyond (the OUTLIERS_PER_BOX most extreme, plus their count).
 * @param {{ metric: keyof typeof METRICS, groupBy: string, filter: import('../admin/dashboard-filter.js').DashboardFilter }} q
 */
export function boxplotSql({ metric, groupBy, filter }) {
  const column = METRICS[metric];
  const g = GROUP_SQL[groupBy];
  if (!column || !g) throw new TypeError('unknown metric or grouping');
  const where = whereSql(filter);
  return `WITH base AS MATERIALIZED (
      SELECT mode, ${g.grp} AS grp, ${g.ord} AS ord, ${column} AS v FROM client_records
      ${where ? `${where} AND` : 'WHERE'} ${column} IS NOT NULL
    ),
    stats AS (
      SELECT mode, grp, min(ord) AS ord, count(*) AS cnt, quantile_cont(v, [0.25, 0.5, 0.75]) AS q FROM base GROUP BY mode, grp
    ),
    fences AS (
      SELECT mode, grp, ord, cnt, q[1] AS q1, q[2] AS median, q[3] AS q3,
        q[1] - ${WHISKER_IQR} * (q[3] - q[1]) AS low_fence, q[3] + ${WHISKER_IQR} * (q[3] - q[1]) AS high_fence
      FROM stats
    )
    SELECT f.mode, f.grp, any_value(f.ord) AS ord, any_value(f.cnt) AS count, any_value(f.q1) AS q1, any_value(f.median) AS median, any_value(f.q3) AS q3,
      min(b.v) FILTER (WHERE b.v >= f.low_fence) AS whisker_low,
      max(b.v) FILTER (WHERE b.v <= f.high_fence) AS whisker_high,
      count(*) FILTER (WHERE b.v < f.low_fence OR b.v > f.high_fence) AS outlier_count,
      list(b.v ORDER BY abs(b.v - f.median) DESC) FILTER (WHERE b.v < f.low_fence OR b.v > f.high_fence)[1:${OUTLIERS_PER_BOX}] AS outliers
    FROM base b JOIN fences f ON b.mode = f.mode AND b.grp = f.grp
    GROUP BY f.mode, f.grp
    ORDER BY ord, f.grp, f.mode`;
}

/** The export's columns: the downloads table plus parameters, one flat row per record. */
export const EXPORT_SQL = `id::VARCHAR AS id, client_id, started_at, received_at, mode, n, array_to_string(proxy_ids, ' ') AS proxy_ids, rate_mix, url,
  object_bytes, param_window, param_generation_size, param_feedback_every, param_payload_size, param_surplus,
  gross_bytes, net_bytes, duration_ms, first_packet_ms, server_fetch_ms, packets, duplicates, loss_estimate,
  throughput_bps, goodput_bps, normalized_goodput, error_code, error_message`;
