// The cluster's periodic re-read of the shared registry must not lose what changed while its read was out:
// a proxy that connects to this Origo meanwhile is written after the read (the writes are serial), so the
// rows it returns cannot hold it.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { openPostgresStore } from '../index.js';
import { joinPgCluster } from '../src/cluster/pg-cluster.js';
import { eventually } from './helpers.js';
import { usePostgres } from '@mutp/testkit/postgres';

const SNAPSHOT_SQL = /^SELECT proxy_id, connection_id/;

describe('origo: the cluster re-reads its registry without losing changes made meanwhile', function () {
  this.timeout(60_000);
  const server = usePostgres();

  it('a proxy that connects here while the re-read is out is still offered, and stored, afterwards', async () => {
    const url = await server.freshDatabase();
    await (await openPostgresStore({ url })).close(); // the tables
    const pool = new pg.Pool({ connectionString: url });
    /** the next re-read waits for this; `reached` says it is out */
    let hold = /** @type {{ gate: Promise<void>, open: () => void, reached: () => void } | null} */ (null);
    let reached = /** @type {Promise<void>} */ (Promise.resolve());
    const query = pool.query.bind(pool);
    /** @type {any} */ (pool).query = (/** @type {string} */ sql, /** @type {unknown[]} */ params) => {
      const h = hold;
      if (h && SNAPSHOT_SQL.test(sql.trim())) {
        hold = null;
        h.reached();
        return h.gate.then(() => query(sql, params));
      }
      return query(sql, params);
    };
    const logger = { info() {}, warn() {}, error() {}, debug() {} };
    const cluster = await joinPgCluster({ url, pool, events: new EventEmitter(), policy: { allowPlainHttp: true }, logger: /** @type {any} */ (logger) });
    const listener = new pg.Client(url);
    await listener.connect();
    try {
      let open = () => {};
      const gate = new Promise((r) => { open = () => r(undefined); });
      reached = new Promise((r) => { hold = { gate, open, reached: () => r(undefined) }; });
      // a re-read: the LISTEN connection dropped, so the Origo reconnects and reads the table again
      await listener.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [`origo-listen-${cluster.origoId}`]);
      await reached;
      cluster.registry.connect('px-meanwhile', 'conn-1', '192.0.2.7', Date.now());
      open();
      // its row is written after the re-read (the cluster's writes are serial): then the re-read is done
      await eventually(async () => (await listener.query('SELECT proxy_id FROM live_proxies')).rows.some((r) => r.proxy_id === 'px-meanwhile'));
      assert.deepEqual(cluster.registry.all().map((p) => p.id), ['px-meanwhile']);
    } finally {
      await listener.end();
      await cluster.close();
      await pool.end();
    }
  });
});
