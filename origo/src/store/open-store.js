// Picks the store from the `db` setting: a postgres:// or postgresql:// URL opens PostgreSQL (several
// Origos on one database); anything else is a DuckDB file path or ':memory:' (the default, one
// process), on a thread of its own (threaded-store.js says why).
import { openDuckDbStoreOnThread } from './threaded-store.js';
import { isPostgresUrl, openPostgresStore } from './pg-store.js';

/**
 * @param {string} db
 * @param {{ logger?: import('@mutp/common/logger').Logger }} [opts]
 * @returns {Promise<import('./store-interface.js').Store | import('./pg-store.js').PostgresStore>}
 */
export function openStore(db, { logger } = {}) {
  return isPostgresUrl(db) ? openPostgresStore({ url: db, logger }) : openDuckDbStoreOnThread({ path: db });
}
