// SQL for the admin dashboard, for DuckDB and PostgreSQL (their differences are in sql-dialect.js). Inputs come
// from admin/dashboard-filter.js, which admits only finite numbers, integers and fixed list members; those are
// the only values inlined.
import { CLIENT_MODES } from '../schema/common.js';
import { METRICS } from '../admin/dashboard-filter.js';
import { DUCKDB } from './sql-dialect.js';
import { codedError } from '@mutp/common/errors';
import { CLIENT_RECORD_COLUMNS } from './tables.js';

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

/**
 * Columns of the downloads table (paper FIGURE 6); no JSON columns, so a page is a narrow top-N scan.
 * @param {import('./sql-dialect.js').SqlDialect} [d]
 */
export const downloadRowSql = (d = DUCKDB) => `id::VARCHAR AS id, ${d.epochMs('started_at')} AS started_at, ${d.epochMs('received_at')} AS received_at,
  mode, n, proxy_ids, rate_mix, object_bytes, gross_bytes, net_bytes, first_packet_ms, server_fetch_ms, duration_ms,
  throughput_bps, goodput_bps, normalized_goodput, loss_estimate, param_window, param_generation_size, param_feedback_every,
  error_code, error_message, packet_log IS NOT NULL AS has_timeline`;

/**
 * Newest first: received_at is Origo's clock, so a live row lands on top. The columns are qualified so ORDER BY
 * binds to the stored TIMESTAMPTZ/UUID columns, not to the select list's `epoch_ms(…)`/`id::VARCHAR` aliases:
 * the aliases made the top-N convert all 1.3M rows first (84 ms CPU → 10 ms for the first page). Same order:
 * the times are whole milliseconds, and DuckDB orders UUIDs as their canonical strings.
 */
export const DOWNLOAD_ORDER_SQL = 'ORDER BY client_records.received_at DESC, client_records.started_at DESC, client_records.id';

/**
 * The x-axis of each grouping. `keys`: typed expressions the rows are grouped by (integers and doubles hash and
 * compare cheaply; NULL is a group of its own). `grp` (label, never null) and `ord` (sort order) are computed from
 * the key aliases k1, k2 on the aggregated rows only, so 1.3M rows never build strings.
 * Chunk buckets are powers of two in KiB (paper FIGURE 12); loss buckets follow FIGURE 15.
 * `stored`: for keys computed from a column, the column of the boxplot's narrow copy on PostgreSQL that holds it
 * (storedGroupKeys), so the scan does not compute it per row.
 * @param {import('./sql-dialect.js').SqlDialect} d
 * @returns {Record<string, { keys: string[], grp: string, ord: string, stored?: string[] }>}
 */
const groupSql = (d) => ({
  n: { keys: ['n'], grp: 'k1::VARCHAR', ord: 'k1' },
  nRate: { keys: ['n', 'rate_mix'], grp: `k1::VARCHAR || '|' || coalesce(k2, '?')`, ord: 'k1' },
  chunk: {
    keys: [`CASE WHEN object_bytes IS NULL THEN NULL WHEN object_bytes < 1024 THEN -1 ELSE floor(${d.log2('object_bytes / 1024')}) END`],
    grp: `CASE WHEN k1 IS NULL THEN 'none' ELSE k1::INTEGER::VARCHAR END`,
    ord: 'coalesce(k1, -1e9)',
    stored: ['chunk_key'],
  },
  g: { keys: ['param_generation_size'], grp: `coalesce(k1::VARCHAR, 'none')`, ord: 'coalesce(k1, -1e9)' },
  w: { keys: ['param_window'], grp: `coalesce(k1::VARCHAR, 'none')`, ord: 'coalesce(k1, -1e9)' },
  feedbackEvery: { keys: ['param_feedback_every'], grp: `coalesce(k1::VARCHAR, 'none')`, ord: 'coalesce(k1, -1e9)' },
  loss: {
    keys: [`CASE WHEN loss_estimate IS NULL THEN NULL WHEN loss_estimate = 0 THEN 0 WHEN loss_estimate <= 0.001 THEN 1
      WHEN loss_estimate <= 0.005 THEN 2 WHEN loss_estimate <= 0.01 THEN 3 WHEN loss_estimate <= 0.02 THEN 4 ELSE 5 END`],
    grp: `coalesce(k1::VARCHAR, 'none')`,
    ord: 'coalesce(k1, -1e9)',
    stored: ['loss_key'],
  },
});

/**
 * The computed group keys the boxplot's narrow copy stores (generated columns, pg-migrations.js): column name and
 * the expression it holds. A changed expression needs a new migration that redefines the column.
 * @param {import('./sql-dialect.js').SqlDialect} d
 * @returns {{ column: string, type: string, expr: string }[]}
 */
export function storedGroupKeys(d) {
  const g = groupSql(d);
  return [
    { column: 'chunk_key', type: d.types.double, expr: g.chunk.keys[0] },
    { column: 'loss_key', type: d.types.integer, expr: g.loss.keys[0] },
  ];
}

/**
 * One row per (mode, group): count, quantiles (quantile_cont), whiskers at the most extreme data within
 * 1.5·IQR of the box, and the outliers beyond (the OUTLIERS_PER_BOX most extreme, plus their count).
 * @param {{ metric: keyof typeof METRICS, groupBy: string, filter: import('../admin/dashboard-filter.js').DashboardFilter }} q
 * @param {import('./sql-dialect.js').SqlDialect} [d]
 * @param {string} [table] client_records, or a table holding its BOXPLOT_COLUMN_NAMES (tables.js)
 */
export function boxplotSql({ metric, groupBy, filter }, d = DUCKDB, table = 'client_records') {
  const column = METRICS[metric];
  const g = groupSql(d)[groupBy];
  if (!column || !g) throw new TypeError('unknown metric or grouping');
  const where = whereSql(filter);
  const keys = (table !== 'client_records' && g.stored ? g.stored : g.keys).map((k, i) => `${k} AS k${i + 1}`).join(', ');
  const keyNames = g.keys.map((_, i) => `k${i + 1}`).join(', ');
  const rows = `SELECT mode, ${keys}, ${column} AS v FROM ${table} ${where ? `${where} AND` : 'WHERE'} ${column} IS NOT NULL`;
  const boxes = d.name === 'postgres' ? pgBoxesSql(rows, keyNames) : duckdbBoxesSql(rows, keyNames);
  return `WITH ${boxes}
    SELECT mode, ${g.grp} AS grp, ${g.ord} AS ord, count, q1, median, q3, whisker_low, whisker_high, outlier_count, outliers
    FROM boxes ORDER BY ord, grp, mode`;
}

/**
 * DuckDB: two scans of the typed columns, quartiles per group, then whiskers and outliers joined on the group's
 * fences (a hash join on IS NOT DISTINCT FROM, 0.2 s at 1.3M records).
 * @param {string} rows @param {string} keyNames
 */
function duckdbBoxesSql(rows, keyNames) {
  const keyList = keyNames.split(', ');
  return `stats AS (
      SELECT mode, ${keyNames}, count(*) AS cnt, ${DUCKDB.quantiles('v', [0.25, 0.5, 0.75])} AS q FROM (${rows}) r GROUP BY mode, ${keyNames}
    ),
    fences AS (
      SELECT mode, ${keyNames}, cnt, q[1] AS q1, q[2] AS median, q[3] AS q3,
        q[1] - ${WHISKER_IQR} * (q[3] - q[1]) AS low_fence, q[3] + ${WHISKER_IQR} * (q[3] - q[1]) AS high_fence
      FROM stats
    ),
    boxes AS (
      SELECT f.mode, ${keyList.map((k) => `f.${k}`).join(', ')}, ${['cnt', 'q1', 'median', 'q3'].map((c) => `any_value(f.${c}) AS ${c === 'cnt' ? 'count' : c}`).join(', ')},
        min(b.v) FILTER (WHERE b.v >= f.low_fence) AS whisker_low,
        max(b.v) FILTER (WHERE b.v <= f.high_fence) AS whisker_high,
        count(*) FILTER (WHERE b.v < f.low_fence OR b.v > f.high_fence) AS outlier_count,
        arg_max(b.v, abs(b.v - f.median), ${OUTLIERS_PER_BOX}) FILTER (WHERE b.v < f.low_fence OR b.v > f.high_fence) AS outliers
      FROM (${rows}) b JOIN fences f ON b.mode = f.mode AND ${keyList.map((k) => `b.${k} IS NOT DISTINCT FROM f.${k}`).join(' AND ')}
      GROUP BY f.mode, ${keyList.map((k) => `f.${k}`).join(', ')}
    )`;
}

/** quantile p's fractional 0-based position among cnt sorted values, as percentile_cont computes it. @param {number} p */
const pgPosition = (p) => `((cnt - 1) * ${num(p)}::DOUBLE PRECISION)`;
/** 1-based index of the sorted value at or below quantile p. @param {number} p */
const pgIndexAt = (p) => `(floor(${pgPosition(p)})::INTEGER + 1)`;
/** Linear interpolation at quantile p of a sorted 1-based array a of cnt values: quantile_cont's definition. @param {number} p */
const pgQuantileAt = (p) => {
  const i = pgIndexAt(p);
  return `a[${i}] + (a[least(cnt, ${i} + 1)] - a[${i}]) * (${pgPosition(p)} - floor(${pgPosition(p)}))`;
};

/**
 * PostgreSQL: ONE scan of the table. Its rows are wide (JSON packet logs), so each scan costs ~1 s at 1.3M
 * records, and the DuckDB shape was 14–22 s here: a join on IS NOT DISTINCT FROM cannot be hashed, each
 * parallel worker re-ran the quartile CTE, and percentile_cont and array_agg(… ORDER BY) each sorted all rows.
 * Instead each group's values are collected by a hash aggregate, sorted once as a DOUBLE array, and the
 * quartiles (same interpolation as percentile_cont), whiskers and outliers are read from that array.
 * Only its two tails are scanned for whiskers and outliers: the low whisker is at most one past the value
 * below q1 (index i1 + 1), the high one at or above the value below q3 (i3), and every outlier is beyond them.
 * MATERIALIZED: inlined, every a[i] would re-sort or re-copy the array once per use.
 * @param {string} rows @param {string} keyNames
 */
function pgBoxesSql(rows, keyNames) {
  return `grouped AS MATERIALIZED (
      SELECT mode, ${keyNames}, array_agg(v) AS u FROM (${rows}) r GROUP BY mode, ${keyNames}
    ),
    sorted AS MATERIALIZED (
      SELECT mode, ${keyNames}, (SELECT array_agg(x ORDER BY x) FROM unnest(u) x) AS a FROM grouped
    ),
    fences AS MATERIALIZED (
      SELECT mode, ${keyNames}, cnt, q1, median, q3, q1 - ${WHISKER_IQR} * (q3 - q1) AS low_fence, q3 + ${WHISKER_IQR} * (q3 - q1) AS high_fence,
        a[1:least(i1 + 1, i3 - 1)] || a[i3:cnt] AS tails
      FROM (SELECT mode, ${keyNames}, cnt, a, ${pgIndexAt(0.25)} AS i1, ${pgIndexAt(0.75)} AS i3,
          ${pgQuantileAt(0.25)} AS q1, ${pgQuantileAt(0.5)} AS median, ${pgQuantileAt(0.75)} AS q3
        FROM (SELECT mode, ${keyNames}, cardinality(a) AS cnt, a FROM sorted) c) s
    ),
    boxes AS (
      SELECT f.mode, ${keyNames.split(', ').map((k) => `f.${k}`).join(', ')}, f.cnt AS count, f.q1, f.median, f.q3, t.*
      FROM fences f, LATERAL (
        SELECT min(x) FILTER (WHERE x >= f.low_fence) AS whisker_low, max(x) FILTER (WHERE x <= f.high_fence) AS whisker_high,
          count(*) FILTER (WHERE x < f.low_fence OR x > f.high_fence) AS outlier_count,
          (array_agg(x ORDER BY abs(x - f.median) DESC) FILTER (WHERE x < f.low_fence OR x > f.high_fence))[1:${OUTLIERS_PER_BOX}] AS outliers
        FROM unnest(f.tails) x) t
    )`;
}

/** The export's columns: the downloads table plus parameters, one flat row per record. */
export const EXPORT_SQL = `id::VARCHAR AS id, client_id, started_at, received_at, mode, n, array_to_string(proxy_ids, ' ') AS proxy_ids, rate_mix, url,
  object_bytes, param_window, param_generation_size, param_feedback_every, param_payload_size, param_surplus,
  gross_bytes, net_bytes, duration_ms, first_packet_ms, server_fetch_ms, packets, duplicates, loss_estimate,
  throughput_bps, goodput_bps, normalized_goodput, error_code, error_message`;

/**
 * Quantiles of one client-record metric per group, e.g. `{ metric: 'goodput_bps', groupBy: ['mode', 'n'] }`.
 * Column names are checked against the schema (ERR_BAD_QUERY), so only known names are inlined.
 * @param {{ metric: string, groupBy: string[], quantiles?: number[], includeFailed?: boolean }} q
 * @param {import('./sql-dialect.js').SqlDialect} d
 */
export function quantilesByGroupSql({ metric, groupBy, quantiles = [0.05, 0.25, 0.5, 0.75, 0.95], includeFailed = false }, d) {
  const known = new Set(CLIENT_RECORD_COLUMNS.filter((c) => c.kind !== 'json').map((c) => c.name));
  const numeric = new Set(CLIENT_RECORD_COLUMNS.filter((c) => ['integer', 'bigint', 'double'].includes(c.kind)).map((c) => c.name));
  if (!numeric.has(metric)) throw codedError('ERR_BAD_QUERY', `not a numeric column: ${metric}`);
  for (const g of groupBy) if (!known.has(g)) throw codedError('ERR_BAD_QUERY', `not a column: ${g}`);
  if (!quantiles.every((x) => typeof x === 'number' && x >= 0 && x <= 1)) throw codedError('ERR_BAD_QUERY', 'quantiles must be in [0, 1]');
  const groups = groupBy.join(', ');
  return `SELECT ${groups ? `${groups}, ` : ''}count(*) AS count, ${d.quantiles(metric, quantiles)} AS quantiles
    FROM client_records ${includeFailed ? '' : 'WHERE error_code IS NULL'}
    ${groups ? `GROUP BY ${groups} ORDER BY ${groups}` : ''}`;
}
