import { io as connectSocket } from 'socket.io-client';
import { backoffDelayMs } from '@mutp/common/backoff';
import { origoUrlList } from './origo-urls.js';

// Paper III: proxies report "periodically"; a few seconds keeps Origo's live list fresh.
export const STATUS_EVERY_MS = 5000;
// Reconnect backoff (socket.io's Manager applies it with jitter for transport failures; we
// apply @mutp/common/backoff after a refused handshake, which socket.io does not retry).
export const RECONNECT_BASE_MS = 500;
export const RECONNECT_MAX_MS = 30_000;
const RECONNECT_JITTER = 0.5;
// Origo acks only after its store committed; a commit of one batch takes well under this.
export const LOGS_ACK_TIMEOUT_MS = 10_000;
// Coalesce records produced close together into one batch.
export const LOG_FLUSH_DELAY_MS = 100;

/**
 * @typedef {import('@mutp/common/logger').Logger} Logger
 * @typedef {ReturnType<typeof import('./log-queue.js').createLogQueue>} LogQueue
 */

/**
 * The proxy's socket.io link to Origo (namespace /proxy): register with id + token, send
 * status, ship log records with acks, re-send unacked records after reconnecting.
 * `origoUrl` may list several Origos of one service, comma-separated: the link holds one at a time and
 * moves to the next when it is lost or refuses.
 * @param {{ origoUrl: string, proxyId: string, token: string | null, queue: LogQueue,
 *           getStatus: () => object, logger: Logger, statusEveryMs?: number,
 *           reconnectBaseMs?: number, reconnectMaxMs?: number, ackTimeoutMs?: number }} opts
 */
export function createOrigoLink(opts) {
  const { queue, logger } = opts;
  const statusEveryMs = opts.statusEveryMs ?? STATUS_EVERY_MS;
  const baseMs = opts.reconnectBaseMs ?? RECONNECT_BASE_MS;
  const maxMs = opts.reconnectMaxMs ?? RECONNECT_MAX_MS;
  const ackTimeoutMs = opts.ackTimeoutMs ?? LOGS_ACK_TIMEOUT_MS;
  const nsUrls = origoUrlList(opts.origoUrl).map((u) => new URL('/proxy', u).href);
  let current = 0;
  let nsUrl = nsUrls[current];
  const socket = connectSocket(nsUrl, {
    auth: { proxyId: opts.proxyId, token: opts.token ?? '' },
    transports: ['websocket'],
    reconnectionDelay: baseMs,
    reconnectionDelayMax: maxMs,
    randomizationFactor: RECONNECT_JITTER,
    // Its own connection: failing over rewrites the manager's URL, which must not be shared.
    forceNew: nsUrls.length > 1,
  });
  // Several Origos (one service on PostgreSQL): every reconnect attempt, on socket.io's backoff, tries the next one.
  const failOver = () => {
    if (nsUrls.length < 2) return;
    current = (current + 1) % nsUrls.length;
    nsUrl = nsUrls[current];
    /** @type {any} */ (socket.io).uri = nsUrl;
    logger.info('trying the next Origo', { origo: nsUrl });
  };
  socket.io.on('reconnect_attempt', failOver);

  let closed = false;
  let sending = false;
  // Bumped on disconnect so a late ack from the old connection cannot clear `sending`.
  let connectionSeq = 0;
  let logRetryAttempt = 0;
  let manualRetryAttempt = 0; // reconnects socket.io does not do itself
  /** @type {NodeJS.Timeout | null} */ let flushTimer = null;
  /** @type {NodeJS.Timeout | null} */ let retryTimer = null;
  /** @type {Set<() => void>} */ const idleWaiters = new Set();

  const sendStatus = () => {
    if (socket.connected) socket.volatile.emit('status', opts.getStatus());
  };
  const statusTimer = setInterval(sendStatus, statusEveryMs);

  socket.on('connect', () => {
    logger.info('connected to Origo', { origo: nsUrl, pendingLogs: queue.size });
    manualRetryAttempt = 0;
    logRetryAttempt = 0;
    queue.releaseAll();
    sendStatus();
    scheduleFlush(0);
  });
  socket.on('disconnect', (reason) => {
    logger.warn('disconnected from Origo', { reason, pendingLogs: queue.size });
    queue.releaseAll();
    sending = false;
    connectionSeq++;
    // Origo told us to go (e.g. graceful shutdown): socket.io will not retry by itself.
    if (reason === 'io server disconnect') retryLater('Origo closed the connection', reason);
  });
  socket.on('connect_error', (err) => {
    const code = /** @type {any} */ (err).data?.code ?? err.message;
    if (socket.active) {
      logger.warn('cannot reach Origo, retrying', { code });
      return;
    }
    // Refused by Origo's middleware (bad token…): socket.io gives up; we retry slowly.
    retryLater('Origo refused this proxy', code, 'error');
  });

  /** @param {string} msg @param {string} code @param {'warn' | 'error'} [level] */
  function retryLater(msg, code, level = 'warn') {
    if (closed || retryTimer) return;
    const delay = backoffDelayMs(manualRetryAttempt++, { baseMs, maxMs });
    logger[level](msg, { code, retryInMs: delay });
    retryTimer = setTimeout(() => {
      retryTimer = null;
      if (closed || socket.connected) return;
      failOver();
      socket.connect();
    }, delay);
  }

  /** @param {number} delayMs */
  function scheduleFlush(delayMs) {
    if (closed || flushTimer) return;
    flushTimer = setTimeout(() => {
      flushTimer = null;
      flush();
    }, delayMs);
  }

  function flush() {
    if (!socket.connected || sending) return;
    const batch = queue.takeBatch();
    if (batch.length === 0) {
      for (const w of idleWaiters) w();
      return;
    }
    sending = true;
    const ids = batch.map((r) => r.id);
    const seq = connectionSeq;
    socket.timeout(ackTimeoutMs).emit('logs', batch, (/** @type {Error | null} */ err, /** @type {any} */ ack) => {
      if (seq !== connectionSeq) {
        // The connection this batch went out on is gone; its records were re-queued, but an
        // ack that still arrived is honoured so they are not sent twice.
        if (!err && ack?.ok === true) queue.ack(ids, ack, { stale: true });
        return;
      }
      sending = false;
      if (err || !ack || ack.ok !== true) {
        queue.release(ids);
        const delay = backoffDelayMs(logRetryAttempt++, { baseMs, maxMs });
        logger.warn('log batch not acked, will re-send', { records: ids.length, reason: err ? err.message : ack?.error ?? 'bad ack', retryInMs: delay });
        return scheduleFlush(delay);
      }
      logRetryAttempt = 0;
      const { rejected } = queue.ack(ids, ack);
      for (const r of rejected) logger.warn('Origo rejected a log record', { id: r.id, reason: r.reason });
      scheduleFlush(0);
    });
  }

  return {
    socket,
    /** Called after a record was queued. */
    notify() {
      scheduleFlush(LOG_FLUSH_DELAY_MS);
    },
    sendStatus,
    /**
     * Resolves once every queued record was acked, or after timeoutMs.
     * @param {number} timeoutMs
     * @returns {Promise<boolean>} true when the queue drained
     */
    drain(timeoutMs) {
      if (queue.size === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const done = (/** @type {boolean} */ ok) => {
          clearTimeout(timer);
          idleWaiters.delete(waiter);
          resolve(ok);
        };
        const waiter = () => { if (queue.size === 0) done(true); };
        const timer = setTimeout(() => done(queue.size === 0), timeoutMs);
        idleWaiters.add(waiter);
        scheduleFlush(0);
      });
    },
    close() {
      closed = true;
      clearInterval(statusTimer);
      if (flushTimer) clearTimeout(flushTimer);
      if (retryTimer) clearTimeout(retryTimer);
      socket.close();
    },
  };
}
