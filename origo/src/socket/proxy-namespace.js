import { verifyProxyToken } from '../auth/proxy-token.js';
import {
  MAX_LOG_BATCHES_IN_FLIGHT_PER_PROXY, MAX_PROXY_RECORDS_PER_EMIT, PROXY_EVENTS_BURST, PROXY_EVENTS_PER_SECOND,
  PROXY_FLOOD_COOLDOWN_MS, STATUS_STORE_EVERY_MS,
} from '../limits.js';
import { validateProxyRecord, validateProxyStatus } from '../schema/validators.js';
import { createEventBudget } from './event-budget.js';
import { checkPublicUrl } from '../registry/public-url-policy.js';
import { createStatusSampler } from './status-sampler.js';

/** A proxy id is short and printable: it is logged and shown on the dashboard. */
const PROXY_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * An auth refusal: socket.io sends `message` and `data` to the client's `connect_error`.
 * @param {'ERR_AUTH_MISSING' | 'ERR_AUTH_BAD_TOKEN' | 'ERR_PROXY_FLOOD'} code
 */
function authError(code) {
  const err = /** @type {Error & { data: { code: string } }} */ (new Error(code));
  err.data = { code };
  return err;
}

/**
 * The `/proxy` namespace: token-checked registration, `status`, and `logs` acked after commit.
 * Every connection has an event budget; a proxy that floods is disconnected (logged, ERR_PROXY_FLOOD)
 * and refused for a cooldown. Statuses reach the store at most once per period per proxy, and a
 * connection has at most a few log batches in the store's queue.
 * @param {{ io: import('socket.io').Server, secret: string, registry: import('../registry/proxy-registry.js').ProxyRegistry,
 *           store: import('../store/store-interface.js').Store, logger: import('@mutp/common/logger').Logger, now?: () => number,
 *           events?: import('node:events').EventEmitter, allowPrivateProxyUrls?: boolean,
 *           eventsPerSecond?: number, eventsBurst?: number }} deps
 *   events: emits 'proxy-connected' (id), 'proxy-status' (clean status), 'proxy-disconnected' (id); hears 'proxy-replaced';
 *   allowPrivateProxyUrls: accept loopback/private publicUrls (local fleets); eventsPerSecond 0 turns the flood limit off
 * @returns {{ nsp: import('socket.io').Namespace, close: () => void }}
 */
export function mountProxyNamespace({ io, secret, registry, store, logger, now = Date.now, events, allowPrivateProxyUrls = false,
  eventsPerSecond = PROXY_EVENTS_PER_SECOND, eventsBurst = PROXY_EVENTS_BURST }) {
  const nsp = io.of('/proxy');
  const sampler = createStatusSampler({ store, logger, periodMs: STATUS_STORE_EVERY_MS, now });
  /** proxy id → ms until which it may not reconnect (it flooded) */
  const cooldownUntil = new Map();

  nsp.use((socket, next) => {
    const auth = socket.handshake.auth ?? {};
    const proxyId = typeof auth.proxyId === 'string' ? auth.proxyId.slice(0, 128) : null;
    const address = socket.handshake.address;
    if (!proxyId || typeof auth.token !== 'string' || auth.token.length === 0) {
      logger.warn('proxy refused', { proxyId, address, code: 'ERR_AUTH_MISSING', reason: 'proxyId or token missing' });
      return next(authError('ERR_AUTH_MISSING'));
    }
    if (!PROXY_ID.test(proxyId) || !verifyProxyToken(secret, proxyId, auth.token)) {
      logger.warn('proxy refused', { proxyId, address, code: 'ERR_AUTH_BAD_TOKEN', reason: 'token does not match the proxy id' });
      return next(authError('ERR_AUTH_BAD_TOKEN'));
    }
    const until = cooldownUntil.get(proxyId) ?? 0;
    if (now() < until) {
      logger.warn('proxy refused', { proxyId, address, code: 'ERR_PROXY_FLOOD', reason: `flooded; may reconnect in ${until - now()} ms` });
      return next(authError('ERR_PROXY_FLOOD'));
    }
    cooldownUntil.delete(proxyId);
    socket.data.proxyId = proxyId;
    next();
  });

  // Another Origo now holds this proxy (cluster/pg-cluster.js): an old socket here is closed, as a local
  // replacement's is. Its disconnect then removes nothing: the registry and the table hold the new connection.
  events?.on('proxy-replaced', (/** @type {{ id: string, connectionId: string }} */ old) => {
    const socket = nsp.sockets.get(old.connectionId);
    if (!socket) return;
    logger.info('proxy moved to another origo', { proxyId: old.id });
    socket.disconnect(true);
  });

  nsp.on('connection', (socket) => {
    const proxyId = /** @type {string} */ (socket.data.proxyId);
    const address = socket.handshake.address;
    const replaced = registry.connect(proxyId, socket.id, address, now());
    if (replaced) nsp.sockets.get(replaced.connectionId)?.disconnect(true);
    logger.info('proxy connected', { proxyId, address, replaced: Boolean(replaced) });
    events?.emit('proxy-connected', proxyId);

    if (eventsPerSecond > 0) {
      const budget = createEventBudget({ perSecond: eventsPerSecond, burst: eventsBurst, now: now() });
      let flooded = false;
      socket.use((_packet, next) => {
        if (flooded) return;
        if (budget.take(now())) return next();
        flooded = true;
        cooldownUntil.set(proxyId, now() + PROXY_FLOOD_COOLDOWN_MS);
        logger.warn('proxy disconnected', { proxyId, address, code: 'ERR_PROXY_FLOOD',
          reason: `more than ${eventsPerSecond} events/s (burst ${eventsBurst}); refused for ${PROXY_FLOOD_COOLDOWN_MS} ms` });
        socket.disconnect(true);
      });
    }
    let batchesInFlight = 0;

    socket.on('disconnect', (reason) => {
      registry.disconnect(proxyId, socket.id);
      logger.info('proxy disconnected', { proxyId, reason });
      // A connection replaced by a newer one with the same id is not a disconnected proxy.
      if (!registry.all().some((p) => p.id === proxyId)) events?.emit('proxy-disconnected', proxyId);
    });

    socket.on('status', (status) => {
      const verdict = validateProxyStatus(status);
      if (!verdict.ok) return logger.warn('proxy status ignored', { proxyId, reason: verdict.reason });
      if (status.proxyId !== proxyId) return logger.warn('proxy status ignored', { proxyId, reason: `proxyId ${status.proxyId} is not the authenticated id` });
      const url = checkPublicUrl(status.publicUrl, { allowPrivate: allowPrivateProxyUrls });
      if (!url.ok) return logger.warn('proxy status ignored', { proxyId, code: 'ERR_PUBLIC_URL', reason: url.reason });
      const clean = {
        proxyId,
        publicUrl: status.publicUrl,
        location: status.location ?? null,
        uploadRateBps: status.uploadRateBps ?? null,
        activeSessions: status.activeSessions,
        bytesSent: status.bytesSent,
        cpu: status.cpu ?? null,
      };
      registry.updateStatus(proxyId, socket.id, clean, now());
      events?.emit('proxy-status', clean);
      sampler.offer(clean);
    });

    socket.on('logs', async (records, ack) => {
      const reply = typeof ack === 'function' ? ack : () => {};
      if (typeof ack !== 'function') logger.warn('proxy logs without an ack callback', { proxyId });
      if (!Array.isArray(records) || records.length > MAX_PROXY_RECORDS_PER_EMIT) {
        logger.warn('proxy log batch refused', { proxyId, reason: 'not an array or too long' });
        return reply({ ok: false, error: { code: 'ERR_BAD_BATCH', message: `send an array of at most ${MAX_PROXY_RECORDS_PER_EMIT} records` } });
      }
      if (batchesInFlight >= MAX_LOG_BATCHES_IN_FLIGHT_PER_PROXY) {
        return reply({ ok: false, error: { code: 'ERR_BUSY', message: `at most ${MAX_LOG_BATCHES_IN_FLIGHT_PER_PROXY} batches at once; wait for the ack` } });
      }
      /** @type {{ id: string | null, reason: string }[]} */
      const rejected = [];
      const valid = [];
      for (const record of records) {
        const verdict = validateProxyRecord(record);
        const id = record && typeof record === 'object' && typeof record.id === 'string' ? record.id.slice(0, 64) : null;
        if (!verdict.ok) rejected.push({ id, reason: verdict.reason });
        else if (record.proxyId !== proxyId) rejected.push({ id, reason: '/proxyId is not the authenticated proxy' });
        else valid.push(record);
      }
      if (rejected.length) logger.warn('proxy records rejected', { proxyId, count: rejected.length, first: rejected[0].reason });
      batchesInFlight++;
      try {
        const { stored, duplicates } = await store.insertProxyRecords(valid);
        reply({ ok: true, stored, duplicates, rejected });
      } catch (err) {
        logger.error('proxy records not stored', { proxyId, code: err.code, message: err.message });
        reply({ ok: false, error: { code: 'ERR_STORE_UNAVAILABLE', message: 'the log store could not commit; re-send later' } });
      } finally {
        batchesInFlight--;
      }
    });
  });

  return { nsp, close: () => sampler.close() };
}
