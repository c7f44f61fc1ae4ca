// socket.io namespace `/admin`: live fleet status and new download rows, for logged-in admins only
// (the handshake must carry the session cookie).

/** Newest rows pushed per stored batch: a 1,000-record bulk upload must not flood every open dashboard. */
export const MAX_LIVE_ROWS_PER_BATCH = 50;

/**
 * @param {{ io: import('socket.io').Server, sessions: ReturnType<typeof import('./admin-session.js').createSessionManager> | null,
 *           fleet: import('./fleet-view.js').FleetView, events: import('node:events').EventEmitter, store: any, logger: import('@mutp/common/logger').Logger }} deps
 */
export function mountAdminNamespace({ io, sessions, fleet, events, store, logger }) {
  const nsp = io.of('/admin');
  nsp.use((socket, next) => {
    if (sessions?.isAuthenticated(socket.handshake.headers.cookie)) return next();
    const err = /** @type {Error & { data: { code: string } }} */ (new Error('ERR_AUTH_REQUIRED'));
    err.data = { code: 'ERR_AUTH_REQUIRED' };
    next(err);
  });
  nsp.on('connection', (socket) => socket.emit('fleet', fleet.all()));

  events.on('fleet', (/** @type {import('./fleet-view.js').FleetEntry} */ entry) => nsp.emit('proxy', entry));
  events.on('client-records', async (/** @type {string[]} */ ids) => {
    if (nsp.sockets.size === 0 || ids.length === 0) return;
    try {
      const rows = await store.downloadsByIds(ids.slice(-MAX_LIVE_ROWS_PER_BATCH));
      nsp.emit('downloads', { rows, stored: ids.length });
    } catch (err) {
      logger.warn('live download rows not sent', { code: err.code, message: err.message });
    }
  });
  return nsp;
}
