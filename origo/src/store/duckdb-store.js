import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DuckDBInstance, LIST, VARCHAR, listValue } from '@duckdb/node-api';
import { codedError } from '@mutp/common/errors';
import { DOWNLOAD_ORDER_SQL, EXPORT_SQL, boxplotSql, downloadRowSql, quantilesByGroupSql, whereSql } from './dashboard-sql.js';
import { boxRow, downloadRow, page, rowToRecord, selectExpr, statusRow, withExtra } from './rows.js';
import { DUCKDB } from './sql-dialect.js';
import { CLIENT_RECORD_COLUMNS, CLIENT_RECORD_PROXY_COLUMNS, DDL, KEYED_TABLES, PROXY_RECORD_COLUMNS, PROXY_STATUS_COLUMNS } from './tables.js';

const VARCHAR_LIST = LIST(VARCHAR);
const DOWNLOAD_ROW_SQL_DUCKDB = downloadRowSql(DUCKDB);
const select = (/** @type {Column} */ c) => selectExpr(c, DUCKDB);

/** @typedef {import('./tables.js').Column} Column */
/** @typedef {import('./store-interface.js').Store} Store */
/** @typedef {import('./store-interface.js').InsertResult} InsertResult */
/**
 * One caller's insert waiting for its group's commit; `resolve` takes what that caller gets (R).
 * @template R
 * @typedef {{rows: object[], receivedAt: Date, resolve: (r: R) => void, reject: (e: Error) => void}} GroupPart
 */

/**
 * How long an insert waits for others into the same table to share its transaction (ms): the
 * proxies of one download report within a few ms of each other; a caller's ack waits this long.
 * An insert into a table quiet for this long commits at once: a lone client's record (a one-off
 * download's, whose process waits for the ack before it exits) has no one to wait for.
 */
export const GROUP_COMMIT_MS = 20;

/**
 * The same for proxy statuses (ms): a status is a sample no reader waits on, and each proxy
 * reports on its own 5 s phase, so a short window would rarely hold two. With 1000 proxies
 * (200 statuses/s) one append carries ~50 statuses instead of one, each append blocking the
 * event loop ~3.5 ms however few rows it holds.
 */
export const STATUS_GROUP_COMMIT_MS = 250;

/**
 * @param {import('@duckdb/node-api').DuckDBAppender} appender
 * @param {Column} column
 * @param {unknown} value
 */
function appendCell(appender, column, value) {
  if (value === null || value === undefined) return appender.appendNull();
  switch (column.kind) {
    case 'integer': return appender.appendInteger(/** @type {number} */ (value));
    case 'bigint': return appender.appendBigInt(BigInt(/** @type {number} */ (value)));
    case 'double': return appender.appendDouble(/** @type {number} */ (value));
    case 'boolean': return appender.appendBoolean(/** @type {boolean} */ (value));
    case 'json': return appender.appendVarchar(JSON.stringify(value));
    case 'varchar[]': return appender.appendList(/** @type {string[]} */ (value), VARCHAR_LIST);
    // Times are normalised through Date so the cast in DuckDB cannot fail on a schema-valid string.
    case 'timestamptz': return appender.appendVarchar(value instanceof Date ? value.toISOString() : new Date(/** @type {string} */ (value)).toISOString());
    default: return appender.appendVarchar(String(value));
  }
}

/**
 * DuckDB's buffer pool cap. Its default is 80% of RAM, so Origo's RSS would follow the
 * database's size (a 3-minute soak grew it ~26 MB/min); 512 MB keeps the 1.3M-record
 * analysis queries in memory with room to spare and spills beyond that.
 */
const MEMORY_LIMIT = '512MB';

/**
 * Opens (creating if needed) a DuckDB database file, or `:memory:`.
 * @param {{ path?: string }} [opts]
 * @returns {Promise<DuckDbStore>}
 */
export async function openDuckDbStore({ path = ':memory:' } = {}) {
  if (path !== ':memory:') await mkdir(dirname(path), { recursive: true });
  let instance;
  try {
    instance = await DuckDBInstance.create(path, { memory_limit: MEMORY_LIMIT });
  } catch (err) {
    throw codedError('ERR_STORE_OPEN', `cannot open database ${path}: ${err.message}`, { cause: err });
  }
  const writer = await instance.connect();
  const reader = await instance.connect();
  for (const sql of DDL) await writer.run(sql);
  await unkeyRecordTables(writer, path);
  return new DuckDbStore(instance, writer, reader, path);
}

/**
 * A record table an older Origo created with PRIMARY KEY (id) is copied once into one without it
 * (DUCKDB.keyedRecords says why), in one transaction: the same columns in the same order, for the
 * appender, and every row.
 * @param {import('@duckdb/node-api').DuckDBConnection} writer @param {string} path
 */
async function unkeyRecordTables(writer, path) {
  for (const table of KEYED_TABLES) {
    const keys = await writer.runAndReadAll(
      "SELECT count(*) AS n FROM duckdb_constraints() WHERE table_name = $table AND constraint_type = 'PRIMARY KEY'", { table });
    if (Number(keys.getRowObjectsJS()[0].n) === 0) continue;
    await writer.run('BEGIN TRANSACTION');
    try {
      await writer.run(`CREATE TABLE ${table}_unkeyed AS SELECT * FROM ${table}`);
      await writer.run(`DROP TABLE ${table}`);
      await writer.run(`ALTER TABLE ${table}_unkeyed RENAME TO ${table}`);
      await writer.run('COMMIT');
    } catch (err) {
      await writer.run('ROLLBACK').catch(() => {});
      throw codedError('ERR_STORE_OPEN', `cannot drop the primary key of ${table} in ${path}: ${/** @type {Error} */ (err).message}`, { cause: err });
    }
  }
}

/** @implements {Store} */
export class DuckDbStore {
  #instance; #writer; #reader;
  /** Writes run one at a time on the writer connection: DuckDB transactions on one connection cannot interleave. */
  #queue = Promise.resolve();
  #closed = false;
  /** @type {Map<string, {parts: GroupPart<any>[], commit: () => void, timer: ReturnType<typeof setTimeout>}>} inserts waiting to share a transaction, per table */
  #groups = new Map();
  /** @type {Map<string, number>} when (performance.now(), ms) the last insert into each table came */
  #lastInsertAt = new Map();
  #transactions = 0;

  /**
   * @param {import('@duckdb/node-api').DuckDBInstance} instance
   * @param {import('@duckdb/node-api').DuckDBConnection} writer
   * @param {import('@duckdb/node-api').DuckDBConnection} reader
   * @param {string} path
   */
  constructor(instance, writer, reader, path) {
    this.#instance = instance;
    this.#writer = writer;
    this.#reader = reader;
    this.path = path;
  }

  /**
   * @template T
   * @param {() => Promise<T>} fn
   * @returns {Promise<T>}
   */
  #serial(fn) {
    if (this.#closed) return Promise.reject(codedError('ERR_STORE_CLOSED', 'the store is closed'));
    const run = this.#queue.then(fn);
    this.#queue = run.then(() => undefined, () => undefined);
    return run;
  }

  /**
   * Store records once each (by id), sharing a transaction with the other inserts into `table`
   * that arrive within GROUP_COMMIT_MS: a DuckDB append costs ~5 ms however few rows it holds
   * (~3.4 ms of it blocking the event loop in flushSync), and the proxies of one download send
   * their records at the same moment. The first insert after a quiet GROUP_COMMIT_MS commits at
   * once. Each caller still gets its own stored/duplicates.
   * @param {string} table
   * @param {Column[]} columns
   * @param {object[]} records
   * @param {Date} receivedAt
   * @param {(fresh: any[]) => Promise<void>} [appendChildren]  rows of child tables, in the same transaction
   * @returns {Promise<InsertResult>}
   */
  #insertIdempotent(table, columns, records, receivedAt, appendChildren) {
    if (records.length === 0 && !this.#closed) return Promise.resolve({ stored: [], duplicates: [] });
    return this.#grouped(table, GROUP_COMMIT_MS, records, receivedAt, (parts) => this.#transaction(table, columns, parts, appendChildren), true);
  }

  /**
   * Join the group of inserts into `table` that commits `windowMs` after its first one, in one
   * write; if that write fails, each insert is written alone, so one caller's bad batch fails
   * only that caller. With `atOnceWhenQuiet`, a group whose first insert follows none within
   * `windowMs` commits at once (with what joins it in the same turn of the event loop).
   * @template R
   * @param {string} table @param {number} windowMs @param {object[]} rows @param {Date} receivedAt
   * @param {(parts: GroupPart<R>[]) => Promise<R[]>} write  one transaction; a result per part
   * @param {boolean} [atOnceWhenQuiet]
   * @returns {Promise<R>}
   */
  #grouped(table, windowMs, rows, receivedAt, write, atOnceWhenQuiet = false) {
    if (this.#closed) return Promise.reject(codedError('ERR_STORE_CLOSED', 'the store is closed'));
    const now = performance.now();
    const quiet = !(now - (this.#lastInsertAt.get(table) ?? -Infinity) < windowMs);
    this.#lastInsertAt.set(table, now);
    return new Promise((resolve, reject) => {
      let group = this.#groups.get(table);
      if (!group) {
        const parts = /** @type {GroupPart<R>[]} */ ([]);
        const commit = () => {
          this.#groups.delete(table);
          // #settle settles every part itself; #serial refuses only a store closed meanwhile
          this.#serial(() => this.#settle(parts, write)).catch((err) => { for (const part of parts) part.reject(err); });
        };
        group = { parts, commit, timer: setTimeout(commit, atOnceWhenQuiet && quiet ? 0 : windowMs) };
        this.#groups.set(table, group);
      }
      group.parts.push({ rows, receivedAt, resolve, reject });
    });
  }

  /**
   * @template R
   * @param {GroupPart<R>[]} parts @param {(parts: GroupPart<R>[]) => Promise<R[]>} write
   */
  async #settle(parts, write) {
    try {
      const results = await write(parts);
      parts.forEach((part, i) => part.resolve(results[i]));
    } catch (err) {
      if (parts.length === 1) return parts[0].reject(/** @type {Error} */ (err));
      for (const part of parts) {
        try {
          part.resolve((await write([part]))[0]);
        } catch (e) {
          part.reject(/** @type {Error} */ (e)); // ERR_STORE_WRITE from the write
        }
      }
    }
  }

  /**
   * BEGIN, `body`, COMMIT; ROLLBACK and ERR_STORE_WRITE if any of it fails.
   * @template T
   * @param {string} table  for the error @param {() => Promise<T>} body
   * @returns {Promise<T>}
   */
  async #inTransaction(table, body) {
    await this.#writer.run('BEGIN TRANSACTION');
    try {
      const out = await body();
      await this.#writer.run('COMMIT');
      this.#transactions++;
      return out;
    } catch (err) {
      await this.#writer.run('ROLLBACK').catch(() => {});
      throw codedError('ERR_STORE_WRITE', `insert into ${table} failed: ${/** @type {Error} */ (err).message}`, { cause: err });
    }
  }

  /**
   * Skip ids already stored (or earlier in these parts), append the rest, in one transaction: the
   * only guard of ids (the tables have no key, DUCKDB.keyedRecords), sound as this is the one writer.
   * @param {string} table @param {Column[]} columns @param {GroupPart<InsertResult>[]} parts
   * @param {(fresh: any[]) => Promise<void>} [appendChildren]
   * @returns {Promise<InsertResult[]>} per part
   */
  #transaction(table, columns, parts, appendChildren) {
    const ids = parts.flatMap((p) => p.rows.map((r) => /** @type {any} */ (r).id.toLowerCase()));
    return this.#inTransaction(table, async () => {
      const existing = await this.#writer.runAndReadAll(
        `SELECT id::VARCHAR AS id FROM ${table} WHERE id IN (SELECT unnest($ids::VARCHAR[])::UUID)`,
        { ids: listValue(ids) },
      );
      const seen = new Set(existing.getRowObjectsJS().map((r) => /** @type {string} */ (r.id)));
      /** @type {Map<object, Date>} each fresh record and when its insert came */
      const fresh = new Map();
      let k = 0;
      const results = parts.map((part) => {
        /** @type {InsertResult} */
        const out = { stored: [], duplicates: [] };
        for (const r of /** @type {any[]} */ (part.rows)) {
          const id = ids[k++];
          if (seen.has(id)) {
            out.duplicates.push(r.id);
            continue;
          }
          seen.add(id);
          fresh.set(r, part.receivedAt);
          out.stored.push(r.id);
        }
        return out;
      });
      await this.#append(table, columns, [...fresh.keys()], (r) => ({ receivedAt: fresh.get(r), record: r }));
      if (appendChildren) await appendChildren([...fresh.keys()]);
      return results;
    });
  }

  /**
   * @param {string} table @param {Column[]} columns @param {any[]} rows
   * @param {(row: any, index: number) => any} ctxOf
   */
  async #append(table, columns, rows, ctxOf) {
    if (rows.length === 0) return;
    const appender = await this.#writer.createAppender(table);
    try {
      for (const [i, row] of rows.entries()) {
        const ctx = ctxOf(row, i);
        for (const c of columns) appendCell(appender, c, c.get(row, ctx));
        appender.endRow();
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }

  /** @param {object[]} records @param {{ receivedAt?: Date }} [opts] */
  insertClientRecords(records, { receivedAt = new Date() } = {}) {
    return this.#insertIdempotent('client_records', CLIENT_RECORD_COLUMNS, records, receivedAt, async (fresh) => {
      /** @type {Map<object, {recordId: string, sourceIndex: number}>} each per-proxy entry and its record */
      const ctx = new Map();
      for (const r of fresh) (r.perProxy ?? []).forEach((/** @type {object} */ p, /** @type {number} */ sourceIndex) => ctx.set(p, { recordId: r.id, sourceIndex }));
      await this.#append('client_record_proxies', CLIENT_RECORD_PROXY_COLUMNS, [...ctx.keys()], (p) => ctx.get(p));
    });
  }

  /** @param {object[]} records @param {{ receivedAt?: Date }} [opts] */
  insertProxyRecords(records, { receivedAt = new Date() } = {}) {
    return this.#insertIdempotent('proxy_records', PROXY_RECORD_COLUMNS, records, receivedAt);
  }

  /** @param {object[]} statuses @param {{ receivedAt?: Date }} [opts] */
  insertProxyStatus(statuses, { receivedAt = new Date() } = {}) {
    if (statuses.length === 0 && !this.#closed) return Promise.resolve();
    return this.#grouped('proxy_status', STATUS_GROUP_COMMIT_MS, statuses, receivedAt, (parts) => {
      const rows = parts.flatMap((p) => p.rows);
      const contexts = parts.flatMap((p) => p.rows.map(() => ({ receivedAt: p.receivedAt })));
      return this.#inTransaction('proxy_status', async () => {
        await this.#append('proxy_status', PROXY_STATUS_COLUMNS, rows, (_row, i) => contexts[i]);
        return parts.map(() => undefined);
      });
    });
  }

  /** @param {{ limit?: number, offset?: number }} [opts] */
  async listClientRecords({ limit, offset } = {}) {
    const { l, o } = page(limit, offset);
    const reader = await this.#reader.runAndReadAll(
      `SELECT ${CLIENT_RECORD_COLUMNS.map(select).join(', ')} FROM client_records ${DOWNLOAD_ORDER_SQL} LIMIT ${l} OFFSET ${o}`,
    );
    const records = reader.getRowObjectsJS().map((row) => withExtra(rowToRecord(CLIENT_RECORD_COLUMNS, row), row.extra));
    if (records.length === 0) return records;
    const proxies = await this.#reader.runAndReadAll(
      `SELECT ${CLIENT_RECORD_PROXY_COLUMNS.map(select).join(', ')} FROM client_record_proxies
       WHERE record_id IN (SELECT unnest($ids::VARCHAR[])::UUID) ORDER BY record_id, source_index`,
      { ids: listValue(records.map((r) => r.id)) },
    );
    /** @type {Map<string, object[]>} */
    const byRecord = new Map();
    for (const row of proxies.getRowObjectsJS()) {
      const list = byRecord.get(/** @type {string} */ (row.record_id)) ?? [];
      list.push(rowToRecord(CLIENT_RECORD_PROXY_COLUMNS, row));
      byRecord.set(/** @type {string} */ (row.record_id), list);
    }
    for (const r of records) r.perProxy = byRecord.get(r.id) ?? null;
    return records;
  }

  /** @param {{ limit?: number, offset?: number, proxyId?: string }} [opts] */
  async listProxyRecords({ limit, offset, proxyId } = {}) {
    const { l, o } = page(limit, offset);
    const where = proxyId === undefined ? '' : 'WHERE proxy_id = $proxyId';
    const reader = await this.#reader.runAndReadAll(
      `SELECT ${PROXY_RECORD_COLUMNS.map(select).join(', ')} FROM proxy_records ${where}
       ORDER BY proxy_records.received_at DESC, proxy_records.started_at DESC, proxy_records.id LIMIT ${l} OFFSET ${o}`,
      proxyId === undefined ? undefined : { proxyId },
    );
    return reader.getRowObjectsJS().map((row) => rowToRecord(PROXY_RECORD_COLUMNS, row));
  }

  async counts() {
    const r = await this.#reader.runAndReadAll(
      `SELECT (SELECT count(*) FROM client_records) AS c, (SELECT count(*) FROM proxy_records) AS p, (SELECT count(*) FROM proxy_status) AS s`,
    );
    const [row] = r.getRowObjectsJS();
    return { clientRecords: Number(row.c), proxyRecords: Number(row.p), proxyStatus: Number(row.s) };
  }

  /**
   * Quantiles of one client-record metric per group (the dashboard's boxplots), e.g.
   * `{ metric: 'goodput_bps', groupBy: ['mode', 'n'] }`. Column names are checked against the schema.
   * @param {{ metric: string, groupBy: string[], quantiles?: number[], includeFailed?: boolean }} q
   */
  async quantilesByGroup({ metric, groupBy, quantiles, includeFailed }) {
    const sql = quantilesByGroupSql({ metric, groupBy, quantiles, includeFailed }, DUCKDB);
    const reader = await this.#reader.runAndReadAll(sql);
    return reader.getRowObjectsJS().map((row) => ({ ...row, count: Number(row.count) }));
  }

  /**
   * A page of the downloads table, newest first, and the number of rows matching the filter.
   * @param {{ filter: import('../admin/dashboard-filter.js').DashboardFilter, limit: number, offset: number }} q
   * @returns {Promise<{ total: number, rows: object[] }>}
   */
  async listDownloads({ filter, limit, offset }) {
    const where = whereSql(filter);
    const [page, total] = await Promise.all([
      this.#reader.runAndReadAll(`SELECT ${DOWNLOAD_ROW_SQL_DUCKDB} FROM client_records ${where} ${DOWNLOAD_ORDER_SQL}
        LIMIT ${Math.trunc(limit)} OFFSET ${Math.trunc(offset)}`),
      this.#reader.runAndReadAll(`SELECT count(*) AS c FROM client_records ${where}`),
    ]);
    return { total: Number(total.getRowObjectsJS()[0].c), rows: page.getRowObjectsJS().map(downloadRow) };
  }

  /**
   * The downloads-table rows of the given ids (for live updates).
   * @param {string[]} ids
   */
  async downloadsByIds(ids) {
    if (ids.length === 0) return [];
    const reader = await this.#reader.runAndReadAll(
      `SELECT ${DOWNLOAD_ROW_SQL_DUCKDB} FROM client_records WHERE id IN (SELECT unnest($ids::VARCHAR[])::UUID) ${DOWNLOAD_ORDER_SQL}`,
      { ids: listValue(ids) },
    );
    return reader.getRowObjectsJS().map(downloadRow);
  }

  /**
   * One client record in full (packet log, feedback log, per-proxy rows), or null.
   * @param {string} id  a UUID
   */
  async getClientRecord(id) {
    const reader = await this.#reader.runAndReadAll(
      `SELECT ${CLIENT_RECORD_COLUMNS.map(select).join(', ')} FROM client_records WHERE id = $id::UUID`, { id },
    );
    const [row] = reader.getRowObjectsJS();
    if (!row) return null;
    const record = withExtra(rowToRecord(CLIENT_RECORD_COLUMNS, row), row.extra);
    const proxies = await this.#reader.runAndReadAll(
      `SELECT ${CLIENT_RECORD_PROXY_COLUMNS.map(select).join(', ')} FROM client_record_proxies WHERE record_id = $id::UUID ORDER BY source_index`, { id },
    );
    const perProxy = proxies.getRowObjectsJS().map((r) => rowToRecord(CLIENT_RECORD_PROXY_COLUMNS, r));
    record.perProxy = perProxy.length ? perProxy : null;
    record.rateMix = row.rate_mix ?? null;
    return record;
  }

  /**
   * Grouped boxplot statistics computed in the database (see dashboard-sql.js boxplotSql).
   * @param {{ metric: keyof typeof import('../admin/dashboard-filter.js').METRICS, groupBy: string, filter: import('../admin/dashboard-filter.js').DashboardFilter }} q
   */
  async boxplot(q) {
    const reader = await this.#reader.runAndReadAll(boxplotSql(q));
    return reader.getRowObjectsJS().map(boxRow);

  }

  /**
   * Writes the filtered records to a file with DuckDB's COPY (CSV with a header, or Parquet).
   * @param {{ filter: import('../admin/dashboard-filter.js').DashboardFilter, format: 'csv' | 'parquet', path: string }} q
   */
  async exportRecords({ filter, format, path }) {
    if (!/^[\w./:\\-]+$/.test(path)) throw codedError('ERR_BAD_PATH', 'export path has unexpected characters');
    const options = format === 'parquet' ? '(FORMAT parquet)' : '(FORMAT csv, HEADER true)';
    await this.#reader.run(`COPY (SELECT ${EXPORT_SQL} FROM client_records ${whereSql(filter)} ${DOWNLOAD_ORDER_SQL}) TO '${path}' ${options}`);
  }

  /** The last status of every proxy ever seen (for the fleet page after an Origo restart). */
  async latestProxyStatus() {
    const reader = await this.#reader.runAndReadAll(
      `SELECT proxy_id, epoch_ms(max(received_at)) AS received_at, arg_max(public_url, received_at) AS public_url,
         arg_max(lat, received_at) AS lat, arg_max(lon, received_at) AS lon, arg_max(upload_rate_bps, received_at) AS upload_rate_bps,
         arg_max(active_sessions, received_at) AS active_sessions, arg_max(bytes_sent, received_at) AS bytes_sent, arg_max(cpu, received_at) AS cpu
       FROM proxy_status GROUP BY proxy_id ORDER BY proxy_id`,
    );
    return reader.getRowObjectsJS().map(statusRow);

  }

  /** Write transactions committed since the store opened: grouped records or statuses (a test reads it). */
  get transactions() { return this.#transactions; }

  /** Commits the inserts waiting for their group, waits for queued writes, checkpoints the file, releases it. Safe to call twice. */
  async close() {
    if (this.#closed) return;
    for (const g of [...this.#groups.values()]) { // nothing accepted is lost: the waiting inserts commit now
      clearTimeout(g.timer);
      g.commit();
    }
    await this.#queue;
    this.#closed = true;
    try {
      if (this.path !== ':memory:') await this.#writer.run('CHECKPOINT');
    } finally {
      this.#reader.closeSync();
      this.#writer.closeSync();
      this.#instance.closeSync();
    }
  }
}
