// Versioned schema migrations for the PostgreSQL store. Each runs once, in order, recorded in
// schema_migrations; several Origo processes starting together serialise on an advisory lock.
// A released migration is never edited: a change is a new version appended to the list.
import { POSTGRES } from './sql-dialect.js';
import { storedGroupKeys } from './dashboard-sql.js';
import { BOXPLOT_COLUMN_NAMES, BOXPLOT_TABLE, CLIENT_RECORD_COLUMNS, createTablesSql } from './tables.js';

/** pg_advisory_xact_lock key for migrations: any constant shared by every Origo ("mutp" in ASCII). */
const MIGRATION_LOCK_KEY = 0x6d757470;

/** @type {{ version: number, name: string, sql: string[] }[]} */
export const MIGRATIONS = [
  {
    version: 1,
    name: 'record tables',
    sql: [
      ...createTablesSql(POSTGRES),
      // The downloads page and the list methods read newest first (dashboard-sql.js DOWNLOAD_ORDER_SQL).
      'CREATE INDEX IF NOT EXISTS client_records_newest ON client_records (received_at DESC, started_at DESC, id)',
      'CREATE INDEX IF NOT EXISTS client_record_proxies_record ON client_record_proxies (record_id, source_index)',
      'CREATE INDEX IF NOT EXISTS proxy_records_newest ON proxy_records (received_at DESC, started_at DESC, id)',
      'CREATE INDEX IF NOT EXISTS proxy_status_latest ON proxy_status (proxy_id, received_at DESC)',
    ],
  },
  {
    version: 2,
    name: 'shared proxy registry',
    sql: [
      // One row per live proxy connection, whichever Origo holds it (registry/shared-registry.js).
      `CREATE TABLE IF NOT EXISTS live_proxies (
        proxy_id VARCHAR PRIMARY KEY,
        connection_id VARCHAR NOT NULL,
        origo_id VARCHAR NOT NULL,
        remote_address VARCHAR NOT NULL,
        connected_at TIMESTAMPTZ NOT NULL,
        status JSON,
        status_at TIMESTAMPTZ
      )`,
      // Each Origo's heartbeat: rows of an Origo that stopped beating are dropped by the others.
      `CREATE TABLE IF NOT EXISTS origo_instances (
        origo_id VARCHAR PRIMARY KEY,
        seen_at TIMESTAMPTZ NOT NULL
      )`,
    ],
  },
  {
    version: 3,
    name: 'narrow copy of the boxplot columns',
    sql: boxplotCopySql(),
  },
  {
    version: 4,
    name: 'proxy records: first send',
    // version 1 creates the tables from the current column lists: a database made since has the column
    sql: ['ALTER TABLE proxy_records ADD COLUMN IF NOT EXISTS first_send_ms DOUBLE PRECISION'],
  },
  {
    version: 5,
    name: 'client records: the connections\' set-up',
    sql: ['ALTER TABLE client_records ADD COLUMN IF NOT EXISTS connect_ms DOUBLE PRECISION',
      'ALTER TABLE client_records ADD COLUMN IF NOT EXISTS tb_connect_ms DOUBLE PRECISION'],
  },
  {
    version: 6,
    name: 'client records: the steps before the first byte',
    sql: ['ALTER TABLE client_records ADD COLUMN IF NOT EXISTS request_steps JSON',
      ...['tb_origin_ms', 'tb_prepare_ms', 'tb_vote_ms'].map((c) => `ALTER TABLE client_records ADD COLUMN IF NOT EXISTS ${c} DOUBLE PRECISION`)],
  },
];

/**
 * The boxplot's columns copied into a narrow table, with its computed group keys stored: a statement trigger
 * copies each insert in the inserting transaction (a batch and its copy commit together, and a record skipped
 * by ON CONFLICT is not in NEW TABLE); the rows stored before this version are copied once.
 */
function boxplotCopySql() {
  const columns = BOXPLOT_COLUMN_NAMES.map((name) => {
    const c = CLIENT_RECORD_COLUMNS.find((col) => col.name === name);
    if (!c) throw new Error(`no client_records column ${name}`);
    return c;
  });
  const names = columns.map((c) => c.name).join(', ');
  return [
    `CREATE TABLE ${BOXPLOT_TABLE} (${[...columns.map((c) => `${c.name} ${POSTGRES.types[c.kind]}`),
      ...storedGroupKeys(POSTGRES).map((k) => `${k.column} ${k.type} GENERATED ALWAYS AS (${k.expr}) STORED`)].join(', ')})`,
    `CREATE FUNCTION ${BOXPLOT_TABLE}_copy() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO ${BOXPLOT_TABLE} (${names}) SELECT ${names} FROM new_records; RETURN NULL; END $$`,
    `CREATE TRIGGER ${BOXPLOT_TABLE}_copy AFTER INSERT ON client_records REFERENCING NEW TABLE AS new_records
      FOR EACH STATEMENT EXECUTE FUNCTION ${BOXPLOT_TABLE}_copy()`,
    `INSERT INTO ${BOXPLOT_TABLE} (${names}) SELECT ${names} FROM client_records`,
  ];
}

/**
 * Brings the database to the newest version, in one transaction.
 * @param {import('pg').Pool} pool
 * @returns {Promise<number[]>} the versions applied now (empty when already current)
 */
export async function migrate(pool) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
    const { rows } = await client.query('SELECT coalesce(max(version), 0) AS v FROM schema_migrations');
    const current = Number(rows[0].v);
    const applied = [];
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      for (const sql of m.sql) await client.query(sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
