// Picks the store from the `db` setting: a postgres:// or postgresql:// URL opens PostgreSQL (several
// Origos on one database); anything else is a DuckDB file path or ':memory:' (the default, one process).
import { openDuckDbStore } from './duckdb-store.js';
import { isPostgresUrl, openPostgresStore } from './pg-store.js';

/**
 * @param {string} db
 * @param {{ logger?: import('@mutp/common/logger').Logger }} [opts]
 * @returns {Promise<import('./duckdb-store.js').DuckDbStore | import('./pg-store.js').PostgresStore>}
 */
export function openStore(db, { logger } = {}) {
  return isPostgresUrl(db) ? openPostgresStore({ url: db, logger }) : openDuckDbStore({ path: db });
}
