// Several Origo processes as one service on one PostgreSQL database. The proxy registry lives in the
// live_proxies table; every Origo keeps the whole fleet in memory (a ProxyRegistry mirror, so
// /api/proxies never waits on the database) and hears the others' changes by LISTEN/NOTIFY on one
// channel, which also carries the admin live view's events. Heartbeats in origo_instances let the
// survivors drop the proxies of an Origo that died without saying so (SIGKILL, host loss).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { ProxyRegistry } from '../registry/proxy-registry.js';

/** The NOTIFY channel every Origo of one database listens on. */
const CHANNEL = 'mutp_cluster';
/** How often each Origo says it is alive, ms. */
export const HEARTBEAT_MS = 2000;
/** An Origo silent this long is dead and its proxies are dropped, ms: several missed beats, so a slow host is not. */
export const ORIGO_DEAD_AFTER_MS = 10_000;
/** How often each Origo reloads the whole registry, ms: repairs anything a lost notification left out. */
const RESYNC_MS = 10_000;
/** First wait before reconnecting a lost LISTEN connection, ms; doubled after each failed try. */
export const LISTEN_RETRY_MS = 100;
/** Longest wait between reconnection tries, ms: a restarted PostgreSQL is back within seconds. */
const LISTEN_RETRY_MAX_MS = 5000;
/** Ids per 'client-records' notification: NOTIFY payloads are limited to 8,000 bytes (37-byte UUIDs). */
const IDS_PER_NOTIFY = 150;

/**
 * The registry for one Origo of a cluster: the ProxyRegistry interface, writes go to the table and to the others.
 * Local changes apply at once; the database write and the NOTIFY follow in order on one queue.
 */
class SharedRegistry extends ProxyRegistry {
  /** @type {(op: object, sql: string, params: unknown[]) => void} */
  #publish;
  #origoId;

  /**
   * @param {import('../registry/public-url-policy.js').UrlPolicy} policy @param {string} origoId
   * @param {(op: object, sql: string, params: unknown[]) => void} publish  writes the table, then tells the others
   */
  constructor(policy, origoId, publish) {
    super(policy);
    this.#origoId = origoId;
    this.#publish = publish;
  }

  /** @param {string} id @param {string} connectionId @param {string} remoteAddress @param {number} now */
  connect(id, connectionId, remoteAddress, now) {
    const previous = super.connect(id, connectionId, remoteAddress, now);
    this.#publish({ op: 'connect', id, connectionId, remoteAddress, at: now },
      `INSERT INTO live_proxies (proxy_id, connection_id, origo_id, remote_address, connected_at) VALUES ($1, $2, $3, $4, to_timestamp($5 / 1000.0))
       ON CONFLICT (proxy_id) DO UPDATE SET connection_id = $2, origo_id = $3, remote_address = $4, connected_at = to_timestamp($5 / 1000.0),
       status = NULL, status_at = NULL`, [id, connectionId, this.#origoId, remoteAddress, now]);
    return previous;
  }

  /** @param {string} id @param {string} connectionId */
  disconnect(id, connectionId) {
    super.disconnect(id, connectionId);
    this.#publish({ op: 'disconnect', id, connectionId }, 'DELETE FROM live_proxies WHERE proxy_id = $1 AND connection_id = $2', [id, connectionId]);
  }

  /** @param {string} id @param {string} connectionId @param {import('../registry/proxy-registry.js').ProxyStatus} status @param {number} now */
  updateStatus(id, connectionId, status, now) {
    super.updateStatus(id, connectionId, status, now);
    this.#publish({ op: 'status', id, connectionId, status, at: now },
      'UPDATE live_proxies SET status = $3, status_at = to_timestamp($4 / 1000.0) WHERE proxy_id = $1 AND connection_id = $2',
      [id, connectionId, JSON.stringify(status), now]);
  }

  /** Applies another Origo's change, without publishing it again. @param {any} m */
  apply(m) {
    if (m.op === 'connect') super.connect(m.id, m.connectionId, m.remoteAddress, m.at);
    else if (m.op === 'disconnect') super.disconnect(m.id, m.connectionId);
    else if (m.op === 'status') super.updateStatus(m.id, m.connectionId, m.status, m.at);
  }

  /**
   * Replaces the whole fleet with the table's rows.
   * @param {any[]} rows
   * @returns {import('../registry/proxy-registry.js').LiveProxy[]} the connections a newer one in the table replaced
   */
  load(rows) {
    const before = new Map(this.all().map((p) => [p.id, p]));
    for (const p of before.values()) super.disconnect(p.id, p.connectionId);
    const replaced = [];
    for (const r of rows) {
      const at = Number(r.connected_at);
      super.connect(r.proxy_id, r.connection_id, r.remote_address, at);
      if (r.status) super.updateStatus(r.proxy_id, r.connection_id, JSON.parse(r.status), Number(r.status_at));
      const old = before.get(r.proxy_id);
      if (old && old.connectionId !== r.connection_id && old.connectedAt <= at) replaced.push(old);
    }
    return replaced;
  }
}

/**
 * Joins the cluster of Origos sharing `url`'s database (the tables come from store/pg-migrations.js).
 * @param {{ url: string, pool: import('pg').Pool, events: import('node:events').EventEmitter,
 *           policy: import('../registry/public-url-policy.js').UrlPolicy, logger: import('@mutp/common/logger').Logger }} o
 * @returns {Promise<{ registry: ProxyRegistry, origoId: string, close: () => Promise<void> }>}
 */
export async function joinPgCluster({ url, pool, events, policy, logger }) {
  const origoId = randomUUID();
  /** @type {Promise<unknown>} */
  let queue = Promise.resolve();
  let closed = false;
  /** Runs database work in order; a failure is logged and the resync repairs the table. @param {() => Promise<unknown>} fn */
  const serial = (fn) => {
    const run = queue.then(fn).catch((err) => {
      if (!closed) logger.warn('cluster write failed', { code: 'ERR_CLUSTER_WRITE', message: err.message });
    });
    queue = run;
    return run;
  };
  /** @param {object} message */
  const notify = (message) => pool.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify({ origo: origoId, ...message })]);

  /**
   * Registry changes made while a snapshot's read is out (this Origo's own, whose writes queue behind it, and the
   * others' notifications), replayed on the rows it read: the read may predate them. Null when no read is out.
   * @type {object[] | null}
   */
  let duringSnapshot = null;
  const registry = new SharedRegistry(policy, origoId, (op, sql, params) => {
    duringSnapshot?.push(op);
    serial(async () => {
      await pool.query(sql, params);
      await notify(op);
    });
  });

  // The admin live view: records stored here are announced to the other Origos' dashboards.
  let relaying = false;
  events.on('client-records', (/** @type {string[]} */ ids) => {
    if (relaying) return;
    for (let i = 0; i < ids.length; i += IDS_PER_NOTIFY) serial(() => notify({ op: 'records', ids: ids.slice(i, i + IDS_PER_NOTIFY) }));
  });
  /** Emits another Origo's event here only. @param {string} name @param {unknown} arg */
  const relay = (name, arg) => {
    relaying = true;
    try { events.emit(name, arg); } finally { relaying = false; }
  };

  /** @param {import('pg').Notification} n */
  const onNotification = (n) => {
    let m;
    try { m = JSON.parse(n.payload ?? ''); } catch { return; }
    if (!m || m.origo === origoId) return;
    if (m.op === 'records') return relay('client-records', m.ids);
    const before = registry.all().find((p) => p.id === m.id);
    duringSnapshot?.push(m);
    registry.apply(m);
    if (m.op === 'connect') {
      // The proxy moved to another Origo: a socket this Origo still holds for it is closed (proxy-namespace.js).
      if (before && before.connectionId !== m.connectionId && before.connectedAt <= m.at) relay('proxy-replaced', before);
      relay('proxy-connected', m.id);
    } else if (m.op === 'status') relay('proxy-status', m.status);
    else if (m.op === 'disconnect' && before && !registry.all().some((p) => p.id === m.id)) relay('proxy-disconnected', m.id);
  };

  const snapshot = () => serial(async () => {
    duringSnapshot = [];
    let rows;
    try {
      ({ rows } = await pool.query(`SELECT proxy_id, connection_id, remote_address, status::VARCHAR AS status,
        (extract(epoch FROM connected_at) * 1000)::BIGINT AS connected_at, (extract(epoch FROM status_at) * 1000)::BIGINT AS status_at FROM live_proxies`));
    } finally {
      const changes = duringSnapshot;
      duringSnapshot = null;
      if (rows) {
        for (const old of registry.load(rows)) relay('proxy-replaced', old);
        for (const m of changes) registry.apply(m);
      }
    }
  });

  // The LISTEN connection: when it drops (server restart, pg_terminate_backend) it is opened again with
  // backoff, and the registry is re-read, as notifications sent meanwhile are lost.
  /** @type {import('pg').Client | null} */
  let listener = null;
  /** @type {NodeJS.Timeout | null} */
  let retryTimer = null;
  let retryMs = LISTEN_RETRY_MS;
  /** Opens, subscribes and only then becomes `listener`, so a failed try's events are ignored. */
  const listen = async () => {
    // application_name: an operator (or a test) can find this Origo's listener in pg_stat_activity.
    const client = new pg.Client({ connectionString: url, application_name: `origo-listen-${origoId}` });
    client.on('notification', onNotification);
    client.on('error', (err) => lost(client, err.message));
    client.on('end', () => lost(client, 'connection ended'));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    listener = client;
  };
  /** @param {import('pg').Client} client @param {string} message */
  const lost = (client, message) => {
    if (closed || client !== listener) return;
    listener = null;
    client.end().catch(() => {});
    logger.warn('cluster listener lost', { code: 'ERR_CLUSTER_LISTEN', message, retryInMs: retryMs });
    reconnectLater();
  };
  const reconnectLater = () => {
    retryTimer = setTimeout(async () => {
      retryTimer = null;
      if (closed) return;
      try {
        await listen();
      } catch (err) {
        retryMs = Math.min(retryMs * 2, LISTEN_RETRY_MAX_MS);
        logger.warn('cluster listener reconnect failed', { code: 'ERR_CLUSTER_LISTEN', message: err.message, retryInMs: retryMs });
        return reconnectLater();
      }
      if (closed) return void listener?.end().catch(() => {});
      retryMs = LISTEN_RETRY_MS;
      logger.info('cluster listener reconnected', { origoId });
      snapshot();
    }, retryMs);
  };
  await listen();
  // Beat, then drop the proxies of Origos that stopped beating (the database's clock, so hosts' clocks do not matter).
  const beat = () => serial(async () => {
    await pool.query(`INSERT INTO origo_instances (origo_id, seen_at) VALUES ($1, now()) ON CONFLICT (origo_id) DO UPDATE SET seen_at = now()`, [origoId]);
    const { rows } = await pool.query(`WITH dead AS (DELETE FROM origo_instances WHERE seen_at < now() - make_interval(secs => $1) RETURNING origo_id)
      DELETE FROM live_proxies WHERE origo_id IN (SELECT origo_id FROM dead) RETURNING proxy_id, connection_id`, [ORIGO_DEAD_AFTER_MS / 1000]);
    for (const r of rows) {
      logger.info('proxy of a dead origo dropped', { proxyId: r.proxy_id });
      registry.apply({ op: 'disconnect', id: r.proxy_id, connectionId: r.connection_id });
      await notify({ op: 'disconnect', id: r.proxy_id, connectionId: r.connection_id });
    }
  });
  await beat();
  await snapshot();
  const beating = setInterval(beat, HEARTBEAT_MS);
  const resyncing = setInterval(snapshot, RESYNC_MS);
  beating.unref();
  resyncing.unref();
  logger.info('origo joined the cluster', { origoId });

  return {
    registry,
    origoId,
    async close() {
      clearInterval(beating);
      clearInterval(resyncing);
      // Own proxies go at once (not after ORIGO_DEAD_AFTER_MS): they reconnect to another Origo.
      await serial(async () => {
        const { rows } = await pool.query('DELETE FROM live_proxies WHERE origo_id = $1 RETURNING proxy_id, connection_id', [origoId]);
        for (const r of rows) await notify({ op: 'disconnect', id: r.proxy_id, connectionId: r.connection_id });
        await pool.query('DELETE FROM origo_instances WHERE origo_id = $1', [origoId]);
      });
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      await listener?.end().catch(() => {});
    },
  };
}
