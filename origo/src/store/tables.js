// DuckDB tables: one typed column per metric (so grouped quantiles over 1M+ rows are columnar scans);
// JSON only for the per-packet logs and for fields this version does not know yet (`extra`).
import { CLIENT_RECORD_KEYS } from '../schema/client-record.schema.js';
import { PARAM_KEYS } from '../schema/common.js';
import { DUCKDB } from './sql-dialect.js';

/**
 * kind picks the appender call and the read-back conversion.
 * @typedef {'uuid'|'varchar'|'timestamptz'|'integer'|'bigint'|'double'|'boolean'|'json'|'varchar[]'} ColumnKind
 * @typedef {{ name: string, sql: string, kind: ColumnKind, get: (record: any, ctx: any) => unknown, key: string | null }} Column
 */


/**
 * @param {string} name @param {ColumnKind} kind @param {string | null} key  dotted path in the record (null: not read back)
 * @param {(record: any, ctx: any) => unknown} [get]  defaults to reading `key`
 * @returns {Column}
 */
function col(name, kind, key, get) {
  const path = key ? key.split('.') : [];
  const read = get ?? ((r) => path.reduce((v, k) => (v == null ? undefined : v[k]), r));
  return { name, sql: DUCKDB.types[kind], kind, key, get: read };
}

/** @param {number} num @param {number} den */
const ratio = (num, den) => (den > 0 ? num / den : null);

/** Keys the client sent that have no column: kept, so a newer client loses nothing. */
export function extraOf(/** @type {any} */ r) {
  /** @type {Record<string, unknown>} */
  const extra = {};
  for (const k of Object.keys(r)) if (!CLIENT_RECORD_KEYS.includes(k)) extra[k] = r[k];
  if (r.params) {
    const unknownParams = Object.keys(r.params).filter((k) => !PARAM_KEYS.includes(k));
    if (unknownParams.length) extra.params = Object.fromEntries(unknownParams.map((k) => [k, r.params[k]]));
  }
  return Object.keys(extra).length ? extra : null;
}

/** Bytes per KiB: the paper quotes proxy rates in KB/s of 1,024 bytes (896 KB/s = 917,504 B/s). */
const BYTES_PER_KIB = 1024;

/**
 * "1x1792+3x896": how many proxies advertised each rate (KiB/s), fastest first; '?' for an unknown rate.
 * Null without perProxy. Stored on ingest so grouping 1.3M records by rate mix is a column scan, not a join.
 */
export function rateMixOf(/** @type {any} */ r) {
  if (!Array.isArray(r.perProxy) || r.perProxy.length === 0) return null;
  /** @type {Map<number, number>} */
  const counts = new Map();
  for (const p of r.perProxy) {
    const kib = typeof p.uploadRateBps === 'number' ? Math.round(p.uploadRateBps / BYTES_PER_KIB) : -1;
    counts.set(kib, (counts.get(kib) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[0] - a[0]).map(([kib, c]) => `${c}x${kib < 0 ? '?' : kib}`).join('+');
}

const paramColumns = [
  col('param_window', 'integer', 'params.window'),
  col('param_generation_size', 'integer', 'params.generationSize'),
  col('param_feedback_every', 'integer', 'params.feedbackEvery'),
  col('param_payload_size', 'integer', 'params.payloadSize'),
  col('param_surplus', 'double', 'params.surplus'),
];

/** The time breakdown's parts as typed columns, its per-source detail as JSON. */
const TIME_BREAKDOWN_COLUMNS = [
  col('tb_method', 'varchar', 'timeBreakdown.method'),
  ...Object.entries({
    tb_request_ms: 'requestMs', tb_source_start_ms: 'sourceStartMs', tb_ramp_ms: 'rampMs', tb_inflight_held_ms: 'inflightHeldMs',
    tb_stall_ms: 'stallMs', tb_non_useful_ms: 'nonUsefulMs', tb_tail_ms: 'tailMs', tb_transfer_ms: 'transferMs',
    tb_tail_start_ms: 'tailStartMs', tb_steady_rate_bps: 'steadyRateBps',
  }).map(([name, key]) => col(name, 'double', `timeBreakdown.${key}`)),
  col('tb_per_source', 'json', 'timeBreakdown.perSource'),
];

/** The start → the first request sent (the record's field), and the time breakdown's part for it. */
const CONNECT_COLUMNS = [
  col('connect_ms', 'double', 'connectMs'),
  col('tb_connect_ms', 'double', 'timeBreakdown.connectMs'),
];

/** The steps before the first byte (the record's field, as JSON), and the time breakdown's parts for them. */
const REQUEST_STEP_COLUMNS = [
  col('request_steps', 'json', 'requestSteps'),
  col('tb_origin_ms', 'double', 'timeBreakdown.originMs'),
  col('tb_prepare_ms', 'double', 'timeBreakdown.prepareMs'),
  col('tb_vote_ms', 'double', 'timeBreakdown.voteMs'),
];

/** @type {Column[]} */
export const CLIENT_RECORD_COLUMNS = [
  col('id', 'uuid', 'id'),
  col('client_id', 'varchar', 'clientId'),
  col('started_at', 'timestamptz', 'startedAt'),
  col('received_at', 'timestamptz', null, (_r, ctx) => ctx.receivedAt),
  col('mode', 'varchar', 'mode'),
  col('n', 'integer', 'n'),
  col('proxy_ids', 'varchar[]', 'proxyIds'),
  col('url', 'varchar', 'url'),
  col('object_bytes', 'bigint', 'objectBytes'),
  ...paramColumns,
  col('gross_bytes', 'bigint', 'grossBytes'),
  col('net_bytes', 'bigint', 'netBytes'),
  col('duration_ms', 'double', 'durationMs'),
  col('first_packet_ms', 'double', 'firstPacketMs'),
  col('server_fetch_ms', 'double', 'serverFetchMs'),
  col('packets', 'bigint', 'packets'),
  col('duplicates', 'bigint', 'duplicates'),
  col('loss_estimate', 'double', 'lossEstimate'),
  col('error_code', 'varchar', 'error.code'),
  col('error_message', 'varchar', 'error.message'),
  // Derived (paper eq. 2), computed here so every row uses one definition.
  col('throughput_bps', 'double', 'throughputBps', (r) => ratio(r.grossBytes, r.durationMs / 1000)),
  col('goodput_bps', 'double', 'goodputBps', (r) => ratio(r.netBytes, r.durationMs / 1000)),
  col('normalized_goodput', 'double', 'normalizedGoodput', (r) => ratio(r.netBytes, r.grossBytes)),
  col('packet_log', 'json', 'packetLog'),
  col('feedback_log', 'json', 'feedbackLog'),
  col('extra', 'json', null, extraOf),
  // Added after the first release (see the ALTER in DDL): the proxies' advertised rates, for grouping by "N and rate mix" (paper FIGURE 11).
  col('rate_mix', 'varchar', null, rateMixOf),
  // Added later too: where the time went (docs/log-record.md), a typed column per part so quantiles are column scans.
  ...TIME_BREAKDOWN_COLUMNS,
  col('verified', 'boolean', 'verified'),
  // Added later still: the connections' set-up before the first request, and the breakdown's part for it.
  ...CONNECT_COLUMNS,
  // And the steps of the time before the first byte.
  ...REQUEST_STEP_COLUMNS,
];

/**
 * What the dashboard's boxplot filters, groups and measures by (dashboard-sql.js whereSql, groupSql, METRICS).
 * PostgreSQL keeps a narrow copy of these columns (pg-migrations.js, BOXPLOT_TABLE): the boxplot scans every
 * matching record, and client_records' rows are wide (packet logs, URLs, time breakdowns), so the scan read
 * ~3× the pages it needed.
 */
export const BOXPLOT_COLUMN_NAMES = ['started_at', 'mode', 'n', 'rate_mix', 'object_bytes', 'param_window', 'param_generation_size',
  'param_feedback_every', 'error_code', 'loss_estimate', 'throughput_bps', 'goodput_bps', 'normalized_goodput'];
/** The narrow copy's table on PostgreSQL (DuckDB scans its columns directly). */
export const BOXPLOT_TABLE = 'client_record_boxes';

/** One row per (record, proxy): per-proxy bytes for the heterogeneous-rate figures (paper FIGURE 11). */
export const CLIENT_RECORD_PROXY_COLUMNS = [
  col('record_id', 'uuid', null, (_p, ctx) => ctx.recordId),
  col('source_index', 'integer', null, (_p, ctx) => ctx.sourceIndex),
  col('proxy_id', 'varchar', 'proxyId'),
  col('bytes', 'bigint', 'bytes'),
  col('packets', 'bigint', 'packets'),
  col('duplicates', 'bigint', 'duplicates'),
  col('upload_rate_bps', 'double', 'uploadRateBps'),
  col('error_code', 'varchar', 'error.code'),
  col('error_message', 'varchar', 'error.message'),
];

/** @type {Column[]} */
export const PROXY_RECORD_COLUMNS = [
  col('id', 'uuid', 'id'),
  col('proxy_id', 'varchar', 'proxyId'),
  col('download_id', 'varchar', 'downloadId'),
  col('started_at', 'timestamptz', 'startedAt'),
  col('received_at', 'timestamptz', null, (_r, ctx) => ctx.receivedAt),
  col('mode', 'varchar', 'mode'),
  col('url', 'varchar', 'url'),
  col('object_bytes', 'bigint', 'objectBytes'),
  col('source_index', 'integer', 'sourceIndex'),
  col('n', 'integer', 'n'),
  ...paramColumns,
  col('packets_sent', 'bigint', 'packetsSent'),
  col('bytes_sent', 'bigint', 'bytesSent'),
  col('duration_ms', 'double', 'durationMs'),
  col('server_fetch_ms', 'double', 'serverFetchMs'),
  col('from_cache', 'boolean', 'fromCache'),
  col('error_code', 'varchar', 'error.code'),
  col('error_message', 'varchar', 'error.message'),
  // Added after the first release (see the ALTER in DDL): how long the in-flight cap held this source (ms).
  col('inflight_held_ms', 'double', 'inflightHeldMs'),
  // Added later still: MUTP, the request → the proxy's first datagram (ms).
  col('first_send_ms', 'double', 'firstSendMs'),
];

/** A sample of each proxy status message: the fleet's load over time (dashboard). */
export const PROXY_STATUS_COLUMNS = [
  col('proxy_id', 'varchar', 'proxyId'),
  col('received_at', 'timestamptz', null, (_s, ctx) => ctx.receivedAt),
  col('public_url', 'varchar', 'publicUrl'),
  col('lat', 'double', 'location.lat'),
  col('lon', 'double', 'location.lon'),
  col('upload_rate_bps', 'double', 'uploadRateBps'),
  col('active_sessions', 'bigint', 'activeSessions'),
  col('bytes_sent', 'bigint', 'bytesSent'),
  col('cpu', 'double', 'cpu'),
];

/** The record tables, as both engines create them (with today's columns). */
const TABLES = [
  { table: 'client_records', columns: CLIENT_RECORD_COLUMNS, key: 'id' },
  { table: 'client_record_proxies', columns: CLIENT_RECORD_PROXY_COLUMNS, key: null },
  { table: 'proxy_records', columns: PROXY_RECORD_COLUMNS, key: 'id' },
  { table: 'proxy_status', columns: PROXY_STATUS_COLUMNS, key: null },
];

/**
 * CREATE TABLE statements of the record tables in one dialect.
 * @param {import('./sql-dialect.js').SqlDialect} d @param {{keyed?: boolean}} [o]  keyed: with their primary keys (default: the dialect's)
 */
export const createTablesSql = (d, { keyed = d.keyedRecords } = {}) => TABLES.map(({ table, columns, key }) =>
  `CREATE TABLE IF NOT EXISTS ${table} (\n  ${columns.map((c) => `${c.name} ${d.types[c.kind]}`).join(',\n  ')}${keyed && key ? `,\n  PRIMARY KEY (${key})` : ''}\n)`);

/** The record tables that carry a primary key where the dialect keys them. */
export const KEYED_TABLES = TABLES.filter((t) => t.key !== null).map((t) => t.table);

export const DDL = [
  ...createTablesSql(DUCKDB),
  // Migrations: columns appended since the first release, so an older database file keeps opening.
  // Appended at the end in both places, so the appender's column order still matches the table.
  'ALTER TABLE client_records ADD COLUMN IF NOT EXISTS rate_mix VARCHAR',
  ...TIME_BREAKDOWN_COLUMNS.map((c) => `ALTER TABLE client_records ADD COLUMN IF NOT EXISTS ${c.name} ${c.sql}`),
  'ALTER TABLE proxy_records ADD COLUMN IF NOT EXISTS inflight_held_ms DOUBLE',
  'ALTER TABLE client_records ADD COLUMN IF NOT EXISTS verified BOOLEAN',
  'ALTER TABLE proxy_records ADD COLUMN IF NOT EXISTS first_send_ms DOUBLE',
  ...CONNECT_COLUMNS.map((c) => `ALTER TABLE client_records ADD COLUMN IF NOT EXISTS ${c.name} ${c.sql}`),
  ...REQUEST_STEP_COLUMNS.map((c) => `ALTER TABLE client_records ADD COLUMN IF NOT EXISTS ${c.name} ${c.sql}`),
];

