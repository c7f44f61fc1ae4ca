// The Store on PostgreSQL, for several Origo processes sharing one database (docs/deploy.md).
// Same semantics as duckdb-store.js: inserts idempotent by record id (ON CONFLICT DO NOTHING, so two
// Origos given the same record store it once), a batch commits atomically with its per-proxy rows.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import pg from 'pg';
import { codedError } from '@mutp/common/errors';
import { DOWNLOAD_ORDER_SQL, EXPORT_SQL, boxplotSql, downloadRowSql, quantilesByGroupSql, whereSql } from './dashboard-sql.js';
import { migrate } from './pg-migrations.js';
import { boxRow, downloadRow, page, rowToRecord, selectExpr, statusRow, withExtra } from './rows.js';
import { POSTGRES } from './sql-dialect.js';
import { BOXPLOT_TABLE, CLIENT_RECORD_COLUMNS, CLIENT_RECORD_PROXY_COLUMNS, PROXY_RECORD_COLUMNS, PROXY_STATUS_COLUMNS } from './tables.js';

/** Connections per Origo: writes of concurrent batches, dashboard reads and the registry run side by side. */
const POOL_SIZE = 10;
/** PostgreSQL's limit on bind parameters in one statement (a 16-bit count). */
const MAX_BIND_PARAMS = 65_535;
/** Rows per FETCH of the CSV export: bounded memory whatever the table's size. */
const EXPORT_FETCH_ROWS = 5000;
/**
 * work_mem for the boxplot query: its hash aggregate holds every matching value in arrays (8 bytes each plus
 * overhead: 14 MB at 1.3M records), over the default 4 MB it would spill to disk.
 */
const BOXPLOT_WORK_MEM = '128MB';
/** How long a new connection may take, ms, before a write fails with ERR_STORE_WRITE instead of hanging. */
const CONNECT_TIMEOUT_MS = 10_000;

const DOWNLOAD_ROW_SQL_PG = downloadRowSql(POSTGRES);
/** Every value as PostgreSQL's text output: the CSV export writes what the database says. */
const TEXT_TYPES = { getTypeParser: () => (/** @type {string} */ v) => v };

/** @typedef {import('./tables.js').Column} Column */
/** @typedef {import('./store-interface.js').Store} Store */
/** @typedef {import('./store-interface.js').InsertResult} InsertResult */

/** True when `db` names a PostgreSQL database rather than a DuckDB file. @param {string} db */
export const isPostgresUrl = (db) => /^postgres(ql)?:\/\//i.test(db);

/** The db setting for logs: a PostgreSQL URL without its password; a file path as it is. @param {string} url */
export function redactDbUrl(url) {
  if (!isPostgresUrl(url)) return url;
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable database URL)';
  }
}

/** A column value as a bind parameter. @param {Column} c @param {unknown} v */
function param(c, v) {
  if (v === null || v === undefined) return null;
  if (c.kind === 'json') return JSON.stringify(v);
  if (c.kind === 'timestamptz') return (v instanceof Date ? v : new Date(/** @type {string} */ (v))).toISOString();
  return v;
}

/** CSV field: quoted when it holds a comma, quote or line break (RFC 4180); NULL is empty. @param {string | null} v */
const csvField = (v) => (v === null ? '' : /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);

/**
 * @param {{ url: string, poolSize?: number, logger?: import('@mutp/common/logger').Logger }} opts
 * @returns {Promise<PostgresStore>}
 */
export async function openPostgresStore({ url, poolSize = POOL_SIZE, logger }) {
  // TimeZone=UTC: the CSV export's timestamps read like DuckDB's ("2026-01-02 03:04:05.678+00").
  const pool = new pg.Pool({ connectionString: url, max: poolSize, options: '-c TimeZone=UTC', connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // An idle connection dropped by the server is replaced on next use; without a listener it would crash Origo.
  pool.on('error', (err) => logger?.warn('postgres connection lost', { code: 'ERR_STORE_CONNECTION', message: err.message }));
  try {
    const applied = await migrate(pool);
    if (applied.length) logger?.info('postgres schema migrated', { versions: applied });
  } catch (err) {
    await pool.end().catch(() => {});
    throw Object.assign(codedError('ERR_STORE_OPEN', `cannot open database ${redactDbUrl(url)}: ${err.message}`), { cause: err });
  }
  return new PostgresStore(pool, url);
}

/** @implements {Store} */
export class PostgresStore {
  #pool;
  #closed = false;
  /** @type {Set<Promise<unknown>>} */
  #pending = new Set();

  /** @param {import('pg').Pool} pool @param {string} url */
  constructor(pool, url) {
    this.#pool = pool;
    this.path = redactDbUrl(url);
  }

  /** The pool, for the shared registry (registry/shared-registry.js), which lives in the same database. */
  get pool() {
    return this.#pool;
  }

  /** Tracks a write so close() can wait for it. @template T @param {() => Promise<T>} fn @returns {Promise<T>} */
  #write(fn) {
    if (this.#closed) return Promise.reject(codedError('ERR_STORE_CLOSED', 'the store is closed'));
    const run = fn();
    this.#pending.add(run);
    run.then(() => this.#pending.delete(run), () => this.#pending.delete(run));
    return run;
  }

  /** @param {string} sql @param {unknown[]} [params] */
  async #read(sql, params) {
    if (this.#closed) throw codedError('ERR_STORE_CLOSED', 'the store is closed');
    return (await this.#pool.query(sql, params)).rows;
  }

  /**
   * Multi-row INSERT in chunks under PostgreSQL's bind-parameter limit.
   * @param {import('pg').PoolClient} client @param {string} table @param {Column[]} columns
   * @param {any[]} rows @param {(row: any) => { record: any, ctx: any }} split  the record a row's columns read, and their context
   * @param {string} [tail]  e.g. ON CONFLICT … RETURNING
   * @returns {Promise<any[]>} the rows RETURNING gave back
   */
  async #insertRows(client, table, columns, rows, split, tail = '') {
    const perStatement = Math.floor(MAX_BIND_PARAMS / columns.length);
    const returned = [];
    for (let start = 0; start < rows.length; start += perStatement) {
      const chunk = rows.slice(start, start + perStatement);
      const params = [];
      const tuples = chunk.map((row) => {
        const { record, ctx } = split(row);
        const slots = columns.map((c) => {
          params.push(param(c, c.get(record, ctx)));
          return `$${params.length}`;
        });
        return `(${slots.join(', ')})`;
      });
      const res = await client.query(`INSERT INTO ${table} (${columns.map((c) => c.name).join(', ')}) VALUES ${tuples.join(', ')} ${tail}`, params);
      returned.push(...res.rows);
    }
    return returned;
  }

  /**
   * One transaction: insert the batch's distinct ids, skipping those already stored (by any Origo), then the
   * children of the rows that were new.
   * @param {string} table @param {Column[]} columns @param {object[]} records @param {Date} receivedAt
   * @param {(client: import('pg').PoolClient, fresh: any[]) => Promise<void>} [insertChildren]
   * @returns {Promise<InsertResult>}
   */
  #insertIdempotent(table, columns, records, receivedAt, insertChildren) {
    return this.#write(async () => {
      /** @type {string[]} */ const stored = [];
      /** @type {string[]} */ const duplicates = [];
      if (records.length === 0) return { stored, duplicates };
      const firstOf = new Map();
      for (const r of records) {
        const id = /** @type {any} */ (r).id.toLowerCase();
        if (!firstOf.has(id)) firstOf.set(id, r);
      }
      let client;
      try {
        client = await this.#pool.connect();
      } catch (err) {
        throw Object.assign(codedError('ERR_STORE_WRITE', `insert into ${table} failed: ${err.message}`), { cause: err });
      }
      try {
        await client.query('BEGIN');
        // Rows in id order: two Origos inserting overlapping batches then take the id locks in one order and cannot deadlock.
        const ordered = [...firstOf.keys()].sort().map((id) => firstOf.get(id));
        const inserted = await this.#insertRows(client, table, columns, ordered, (record) => ({ record, ctx: { receivedAt } }),
          'ON CONFLICT (id) DO NOTHING RETURNING id::VARCHAR AS id');
        const isNew = new Set(inserted.map((r) => r.id));
        const fresh = [];
        for (const r of records) {
          const id = /** @type {any} */ (r).id;
          if (isNew.delete(id.toLowerCase())) {
            fresh.push(r);
            stored.push(id);
          } else {
            duplicates.push(id);
          }
        }
        if (insertChildren) await insertChildren(client, fresh);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw Object.assign(codedError('ERR_STORE_WRITE', `insert into ${table} failed: ${err.message}`), { cause: err });
      } finally {
        client.release();
      }
      return { stored, duplicates };
    });
  }

  /** @param {object[]} records @param {{ receivedAt?: Date }} [opts] */
  insertClientRecords(records, { receivedAt = new Date() } = {}) {
    return this.#insertIdempotent('client_records', CLIENT_RECORD_COLUMNS, records, receivedAt, async (client, fresh) => {
      const rows = fresh.flatMap((r) => (r.perProxy ?? []).map((p, sourceIndex) => ({ p, recordId: r.id, sourceIndex })));
      await this.#insertRows(client, 'client_record_proxies', CLIENT_RECORD_PROXY_COLUMNS, rows, ({ p, ...ctx }) => ({ record: p, ctx }));
    });
  }

  /** @param {object[]} records @param {{ receivedAt?: Date }} [opts] */
  insertProxyRecords(records, { receivedAt = new Date() } = {}) {
    return this.#insertIdempotent('proxy_records', PROXY_RECORD_COLUMNS, records, receivedAt);
  }

  /** @param {object[]} statuses @param {{ receivedAt?: Date }} [opts] */
  insertProxyStatus(statuses, { receivedAt = new Date() } = {}) {
    return this.#write(async () => {
      if (statuses.length === 0) return;
      const client = await this.#pool.connect();
      try {
        await this.#insertRows(client, 'proxy_status', PROXY_STATUS_COLUMNS, statuses, (record) => ({ record, ctx: { receivedAt } }));
      } catch (err) {
        throw Object.assign(codedError('ERR_STORE_WRITE', `insert into proxy_status failed: ${err.message}`), { cause: err });
      } finally {
        client.release();
      }
    });
  }

  /** Attaches perProxy to records read back. @param {any[]} records */
  async #withPerProxy(records) {
    if (records.length === 0) return records;
    const rows = await this.#read(
      `SELECT ${CLIENT_RECORD_PROXY_COLUMNS.map((c) => selectExpr(c, POSTGRES)).join(', ')} FROM client_record_proxies
       WHERE record_id = ANY($1::UUID[]) ORDER BY record_id, source_index`, [records.map((r) => r.id)],
    );
    /** @type {Map<string, object[]>} */
    const byRecord = new Map();
    for (const row of rows) {
      const list = byRecord.get(row.record_id) ?? [];
      list.push(rowToRecord(CLIENT_RECORD_PROXY_COLUMNS, row));
      byRecord.set(row.record_id, list);
    }
    for (const r of records) r.perProxy = byRecord.get(r.id) ?? null;
    return records;
  }

  /** @param {{ limit?: number, offset?: number }} [opts] */
  async listClientRecords({ limit, offset } = {}) {
    const { l, o } = page(limit, offset);
    const rows = await this.#read(
      `SELECT ${CLIENT_RECORD_COLUMNS.map((c) => selectExpr(c, POSTGRES)).join(', ')} FROM client_records ${DOWNLOAD_ORDER_SQL} LIMIT ${l} OFFSET ${o}`,
    );
    return this.#withPerProxy(rows.map((row) => withExtra(rowToRecord(CLIENT_RECORD_COLUMNS, row), row.extra)));
  }

  /** @param {{ limit?: number, offset?: number, proxyId?: string }} [opts] */
  async listProxyRecords({ limit, offset, proxyId } = {}) {
    const { l, o } = page(limit, offset);
    const rows = await this.#read(
      `SELECT ${PROXY_RECORD_COLUMNS.map((c) => selectExpr(c, POSTGRES)).join(', ')} FROM proxy_records
       ${proxyId === undefined ? '' : 'WHERE proxy_id = $1'}
       ORDER BY proxy_records.received_at DESC, proxy_records.started_at DESC, proxy_records.id LIMIT ${l} OFFSET ${o}`,
      proxyId === undefined ? [] : [proxyId],
    );
    return rows.map((row) => rowToRecord(PROXY_RECORD_COLUMNS, row));
  }

  async counts() {
    const [row] = await this.#read(
      'SELECT (SELECT count(*) FROM client_records) AS c, (SELECT count(*) FROM proxy_records) AS p, (SELECT count(*) FROM proxy_status) AS s',
    );
    return { clientRecords: Number(row.c), proxyRecords: Number(row.p), proxyStatus: Number(row.s) };
  }

  /** @param {{ metric: string, groupBy: string[], quantiles?: number[], includeFailed?: boolean }} q */
  async quantilesByGroup(q) {
    const rows = await this.#read(quantilesByGroupSql(q, POSTGRES));
    return rows.map((row) => ({ ...row, count: Number(row.count) }));
  }

  /** @param {{ filter: import('../admin/dashboard-filter.js').DashboardFilter, limit: number, offset: number }} q */
  async listDownloads({ filter, limit, offset }) {
    const where = whereSql(filter);
    const [rows, total] = await Promise.all([
      this.#read(`SELECT ${DOWNLOAD_ROW_SQL_PG} FROM client_records ${where} ${DOWNLOAD_ORDER_SQL}
        LIMIT ${Math.trunc(limit)} OFFSET ${Math.trunc(offset)}`),
      this.#read(`SELECT count(*) AS c FROM client_records ${where}`),
    ]);
    return { total: Number(total[0].c), rows: rows.map(downloadRow) };
  }

  /** @param {string[]} ids */
  async downloadsByIds(ids) {
    if (ids.length === 0) return [];
    const rows = await this.#read(`SELECT ${DOWNLOAD_ROW_SQL_PG} FROM client_records WHERE id = ANY($1::UUID[]) ${DOWNLOAD_ORDER_SQL}`, [ids]);
    return rows.map(downloadRow);
  }

  /** @param {string} id  a UUID */
  async getClientRecord(id) {
    const [row] = await this.#read(
      `SELECT ${CLIENT_RECORD_COLUMNS.map((c) => selectExpr(c, POSTGRES)).join(', ')} FROM client_records WHERE id = $1::UUID`, [id],
    );
    if (!row) return null;
    const [record] = await this.#withPerProxy([withExtra(rowToRecord(CLIENT_RECORD_COLUMNS, row), row.extra)]);
    record.rateMix = row.rate_mix ?? null;
    return record;
  }

  /** @param {Parameters<typeof boxplotSql>[0]} q */
  async boxplot(q) {
    if (this.#closed) throw codedError('ERR_STORE_CLOSED', 'the store is closed');
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN READ ONLY');
      // JIT compiling the expressions costs ~0.3 s, more than it saves on this query's few expressions per row.
      await client.query(`SET LOCAL work_mem = '${BOXPLOT_WORK_MEM}'; SET LOCAL jit = off`);
      const { rows } = await client.query(boxplotSql(q, POSTGRES, BOXPLOT_TABLE));
      await client.query('COMMIT');
      return rows.map(boxRow);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * CSV with a header, read through a cursor so the export's memory stays bounded. Parquet needs DuckDB's
   * writer: refused with ERR_EXPORT_UNSUPPORTED.
   * @param {{ filter: import('../admin/dashboard-filter.js').DashboardFilter, format: 'csv' | 'parquet', path: string }} q
   */
  async exportRecords({ filter, format, path }) {
    if (format !== 'csv') throw codedError('ERR_EXPORT_UNSUPPORTED', `${format} export needs the DuckDB store; PostgreSQL exports CSV`);
    if (this.#closed) throw codedError('ERR_STORE_CLOSED', 'the store is closed');
    const client = await this.#pool.connect();
    const out = createWriteStream(path);
    try {
      await client.query('BEGIN READ ONLY');
      await client.query(`DECLARE export_rows NO SCROLL CURSOR FOR SELECT ${EXPORT_SQL} FROM client_records ${whereSql(filter)} ${DOWNLOAD_ORDER_SQL}`);
      for (let header = true; ;) {
        const res = await client.query({ text: `FETCH ${EXPORT_FETCH_ROWS} FROM export_rows`, types: TEXT_TYPES });
        if (header) out.write(`${res.fields.map((f) => csvField(f.name)).join(',')}\n`);
        header = false;
        if (res.rows.length === 0) break;
        const text = res.rows.map((r) => res.fields.map((f) => csvField(r[f.name])).join(',')).join('\n');
        if (!out.write(`${text}\n`)) await once(out, 'drain');
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
      out.end();
      await once(out, 'close');
    }
  }

  async latestProxyStatus() {
    const rows = await this.#read(
      `SELECT DISTINCT ON (proxy_id) proxy_id, ${POSTGRES.epochMs('received_at')} AS received_at, public_url, lat, lon, upload_rate_bps,
         active_sessions, bytes_sent, cpu
       FROM proxy_status ORDER BY proxy_id, received_at DESC`,
    );
    return rows.map(statusRow);
  }

  /** Waits for writes in flight, then closes every connection. Safe to call twice. */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#pending]);
    await this.#pool.end();
  }
}
