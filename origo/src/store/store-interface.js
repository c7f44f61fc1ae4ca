// The storage interface Origo talks to. DuckDB implements it (duckdb-store.js); a PostgreSQL
// backend only has to implement the same methods with the same semantics.

/**
 * Records passed in are already validated against the JSON schemas (src/schema/).
 * Inserts are idempotent by record id: a record whose id is already stored (or repeated within
 * the batch) is reported in `duplicates` and not stored again. A batch commits atomically:
 * when the returned promise resolves, every id in `stored` is durable (for a file database).
 *
 * @typedef {{ stored: string[], duplicates: string[] }} InsertResult
 * @typedef {{ limit?: number, offset?: number }} Page
 *
 * @typedef {object} Store
 * @property {(records: object[], opts?: { receivedAt?: Date }) => Promise<InsertResult>} insertClientRecords
 * @property {(records: object[], opts?: { receivedAt?: Date }) => Promise<InsertResult>} insertProxyRecords
 * @property {(statuses: object[], opts?: { receivedAt?: Date }) => Promise<void>} insertProxyStatus
 * @property {(page?: Page) => Promise<object[]>} listClientRecords   newest first, as client records
 * @property {(page?: Page & { proxyId?: string }) => Promise<object[]>} listProxyRecords  newest first
 * @property {() => Promise<{ clientRecords: number, proxyRecords: number, proxyStatus: number }>} counts
 * @property {(q: { metric: string, groupBy: string[], quantiles?: number[], includeFailed?: boolean }) => Promise<object[]>} quantilesByGroup
 * @property {() => Promise<void>} close  waits for pending writes, checkpoints, releases the file
 *
 * The admin dashboard's reads (filters from admin/dashboard-filter.js; see docs/dashboard.md):
 * @property {(q: { filter: DashboardFilter, limit: number, offset: number }) => Promise<{ total: number, rows: object[] }>} listDownloads
 * @property {(ids: string[]) => Promise<object[]>} downloadsByIds   downloads-table rows, for live updates
 * @property {(id: string) => Promise<object | null>} getClientRecord  one record with packetLog, feedbackLog, perProxy
 * @property {(q: { metric: 'throughput' | 'goodput' | 'normalizedGoodput', groupBy: string, filter: DashboardFilter }) => Promise<object[]>} boxplot
 *           one box per (mode, group): count, q1, median, q3, whiskers at 1.5·IQR, capped outliers — computed in the database
 * @property {(q: { filter: DashboardFilter, format: 'csv' | 'parquet', path: string }) => Promise<void>} exportRecords
 * @property {() => Promise<object[]>} latestProxyStatus   the last status of every proxy ever seen
 * @typedef {import('../admin/dashboard-filter.js').DashboardFilter} DashboardFilter
 */

/** The Store's methods, by name: what a store on another thread answers (threaded-store.js). */
export const STORE_METHODS = /** @type {const} */ ([
  'insertClientRecords', 'insertProxyRecords', 'insertProxyStatus', 'listClientRecords', 'listProxyRecords', 'counts',
  'quantilesByGroup', 'listDownloads', 'downloadsByIds', 'getClientRecord', 'boxplot', 'exportRecords', 'latestProxyStatus', 'close',
]);
