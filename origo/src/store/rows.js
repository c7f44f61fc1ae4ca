// Reading stored rows back into records, shared by the DuckDB and PostgreSQL stores.

/** Default page size of the list methods, rows. */
const DEFAULT_LIST_LIMIT = 100;
/** Largest page the list methods return, rows: they are for inspection and tests, not bulk export. */
const MAX_LIST_LIMIT = 10_000;
/** @typedef {import('./tables.js').Column} Column */

/** SELECT expression for reading a column back in a JSON-friendly form. @param {Column} c @param {import('./sql-dialect.js').SqlDialect} d */
export function selectExpr(c, d) {
  if (c.kind === 'uuid') return `${c.name}::VARCHAR AS ${c.name}`;
  if (c.kind === 'timestamptz') return `${d.epochMs(c.name)} AS ${c.name}`;
  if (c.kind === 'json') return `${c.name}::VARCHAR AS ${c.name}`;
  return c.name;
}

/** @param {Column} c @param {unknown} v */
function fromCell(c, v) {
  if (v === null || v === undefined) return null;
  if (c.kind === 'timestamptz') return new Date(Number(v)).toISOString();
  if (c.kind === 'bigint') return Number(v);
  if (c.kind === 'json') return JSON.parse(/** @type {string} */ (v));
  return v;
}

/** A downloads-table row: BIGINTs and timestamps as plain numbers. @param {Record<string, any>} r */
export function downloadRow(r) {
  const out = { ...r };
  for (const k of ['started_at', 'received_at', 'object_bytes', 'gross_bytes', 'net_bytes']) if (out[k] !== null) out[k] = Number(out[k]);
  return out;
}

/** Sets a dotted path, creating objects on the way. */
function setPath(/** @type {any} */ obj, /** @type {string} */ key, /** @type {unknown} */ value) {
  const parts = key.split('.');
  let o = obj;
  for (const p of parts.slice(0, -1)) o = o[p] ??= {};
  o[parts[parts.length - 1]] = value;
}

/** Row object → record: nested objects whose fields are all null become null (error, params, location). */
export function rowToRecord(/** @type {Column[]} */ columns, /** @type {Record<string, unknown>} */ row) {
  /** @type {any} */
  const rec = {};
  for (const c of columns) if (c.key) setPath(rec, c.key, fromCell(c, row[c.name]));
  for (const [k, v] of Object.entries(rec)) {
    if (v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => x === null)) rec[k] = null;
  }
  return rec;
}

/** Puts back the keys kept in the `extra` JSON column (unknown top-level keys and unknown params). */
export function withExtra(/** @type {any} */ rec, /** @type {unknown} */ extraJson) {
  if (typeof extraJson !== 'string') return rec;
  const { params, ...rest } = JSON.parse(extraJson);
  Object.assign(rec, rest);
  if (params) rec.params = { ...(rec.params ?? {}), ...params };
  return rec;
}

/** @param {unknown} limit @param {unknown} offset */
export function page(limit = DEFAULT_LIST_LIMIT, offset = 0) {
  const l = Math.min(Math.max(1, Math.trunc(Number(limit)) || DEFAULT_LIST_LIMIT), MAX_LIST_LIMIT);
  const o = Math.max(0, Math.trunc(Number(offset)) || 0);
  return { l, o };
}


/** A boxplot row (dashboard-sql.js boxplotSql) as the dashboard API shapes it. @param {Record<string, any>} r */
export function boxRow(r) {
  return {
    mode: r.mode, group: r.grp, order: Number(r.ord), count: Number(r.count),
    q1: r.q1, median: r.median, q3: r.q3, whiskerLow: r.whisker_low, whiskerHigh: r.whisker_high,
    outlierCount: Number(r.outlier_count), outliers: /** @type {number[] | null} */ (r.outliers) ?? [],
  };
}

/** A proxy's latest status row as the fleet view takes it. @param {Record<string, any>} r */
export function statusRow(r) {
  return {
    proxyId: r.proxy_id, receivedAt: Number(r.received_at), publicUrl: r.public_url,
    location: r.lat === null || r.lon === null ? null : { lat: r.lat, lon: r.lon },
    uploadRateBps: r.upload_rate_bps, activeSessions: Number(r.active_sessions), bytesSent: Number(r.bytes_sent), cpu: r.cpu,
  };
}
