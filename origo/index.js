// @mutp/origo: the coordinator (proxy registry, client API, log store). See docs/origo-api.md.
export { startOrigo } from './src/server.js';
export { proxyToken, verifyProxyToken } from './src/auth/proxy-token.js';
export { issueTicket, TICKET_TTL_MS } from './src/auth/client-ticket.js';
export { openDuckDbStore } from './src/store/duckdb-store.js';
export { openDuckDbStoreOnThread } from './src/store/threaded-store.js';
export { openPostgresStore } from './src/store/pg-store.js';
export { openStore } from './src/store/open-store.js';
export { createLogger } from '@mutp/common/logger';
