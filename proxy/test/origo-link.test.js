import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startProxy } from '../index.js';
import { createOrigoLink } from '../src/origo/origo-link.js';
import { createLogQueue } from '../src/origo/log-queue.js';
import { startFakeOrigo, tokenFor, until } from './helpers/fake-origo.js';
import { startOrigin, captureLogger } from '@mutp/testkit/local-origin';

const SECRET = 'test-secret';
const FAST = { statusEveryMs: 50, reconnectBaseMs: 20, reconnectMaxMs: 100, ackTimeoutMs: 2000 };

/** @param {number} i */
const record = (i) => ({ id: randomUUID(), proxyId: 'p1', seq: i });

describe('Origo link', () => {
  it('a proxy registers with its token, sends status, and ships its /fetch records', async () => {
    const store = new Map();
    const statuses = [];
    const origo = await startFakeOrigo({ secret: SECRET, store, statuses });
    const origin = await startOrigin((_req, res) => res.end('abc'));
    const proxy = await startProxy({
      id: 'proxy-a', token: tokenFor(SECRET, 'proxy-a'), origoUrl: origo.url, statusEveryMs: 50,
      location: { lat: 47.5, lon: 19.04 }, uploadRate: '896KiB', allowPrivate: true,
      allowedHosts: [`127.0.0.1:${origin.port}`], logger: captureLogger().logger,
    });
    try {
      await until(() => statuses.length >= 2);
      const s = statuses.at(-1);
      assert.equal(s.proxyId, 'proxy-a');
      assert.equal(s.publicUrl, proxy.url);
      assert.deepEqual(s.location, { lat: 47.5, lon: 19.04 });
      assert.equal(s.uploadRateBps, 896 * 1024);
      assert.equal(s.activeSessions, 0);
      assert.ok(s.cpu >= 0 && s.cpu <= 1);
      const res = await fetch(`${proxy.url}/fetch?url=${encodeURIComponent(origin.url + '/a')}&downloadId=d-1&mode=range-http&sourceIndex=2&n=4`);
      assert.equal(await res.text(), 'abc');
      await until(() => store.size >= 1);
      const [rec] = [...store.values()];
      assert.equal(rec.proxyId, 'proxy-a');
      assert.equal(rec.downloadId, 'd-1');
      assert.equal(rec.mode, 'range-http');
      assert.equal(rec.sourceIndex, 2);
      assert.equal(rec.n, 4);
      assert.equal(rec.bytesSent, 3);
      assert.equal(rec.objectBytes, 3);
      assert.equal(rec.error, null);
      await until(() => statuses.at(-1).bytesSent === 3);
    } finally {
      await proxy.close();
      await origo.close();
      await origin.close();
    }
  });

  it('loses no record across an Origo restart, and stores each exactly once', async () => {
    const store = new Map();
    /** @type {Map<string, number>} */ const receivedTimes = new Map();
    /** @type {'commit' | 'lose' | null} */ let crashNext = null;
    /** @type {() => void} */ let crashed = () => {};
    const onLogs = (/** @type {any[]} */ records) => {
      for (const r of records) receivedTimes.set(r.id, (receivedTimes.get(r.id) ?? 0) + 1);
      if (!crashNext) return false;
      // Die before acking, after committing the batch or before: the proxy must re-send.
      if (crashNext === 'commit') for (const r of records) store.set(r.id, r);
      crashNext = null;
      crashed();
      return true;
    };
    let origo = await startFakeOrigo({ secret: SECRET, store, onLogs });
    const port = origo.port;
    const queue = createLogQueue();
    const { logger } = captureLogger();
    const link = createOrigoLink({ origoUrl: origo.url, proxyId: 'p1', token: tokenFor(SECRET, 'p1'), queue, logger,
      getStatus: () => ({}), ...FAST });
    try {
      const all = [];
      const push = (/** @type {number} */ i) => {
        const r = record(i);
        all.push(r.id);
        queue.push(r);
        link.notify();
      };
      for (let i = 0; i < 5; i++) push(i);
      await until(() => store.size === 5 && queue.size === 0);

      // Origo stops (graceful shutdown); records keep coming while it is away.
      await origo.close({ graceful: true });
      for (let i = 5; i < 300; i++) push(i);
      assert.equal(queue.size, 295);
      origo = await startFakeOrigo({ secret: SECRET, store, onLogs, port });
      await until(() => queue.size === 0);

      // Origo crashes with a batch un-acked: once after committing it, once before.
      for (const [mode, from] of /** @type {const} */ ([['commit', 300], ['lose', 310]])) {
        const crash = new Promise((resolve) => { crashed = () => resolve(undefined); });
        crashNext = mode;
        for (let i = from; i < from + 10; i++) push(i);
        await crash;
        await origo.close();
        origo = await startFakeOrigo({ secret: SECRET, store, onLogs, port });
        await until(() => queue.size === 0);
      }

      assert.equal(store.size, all.length);
      for (const id of all) assert.ok(store.has(id), `record ${id} lost`);
      // Re-sent only when an ack was missing: the crashed batch, nothing acked was sent again.
      const resent = [...receivedTimes.values()].filter((n) => n > 1).length;
      assert.ok(resent >= 10 && resent <= 20, `only the un-acked batches are re-sent, got ${resent}`);
    } finally {
      link.close();
      await origo.close();
    }
  });

  it('re-sends a batch Origo could not commit (ok: false), and drops only what it rejected', async () => {
    const store = new Map();
    let failures = 1;
    const onLogs = (/** @type {any[]} */ records, /** @type {(a: object) => void} */ ack) => {
      if (failures-- > 0) {
        ack({ ok: false, error: { code: 'ERR_STORE', message: 'disk full' } });
        return true;
      }
      const bad = records.filter((r) => r.seq === 1).map((r) => ({ id: r.id, reason: 'schema' }));
      const good = records.filter((r) => r.seq !== 1);
      for (const r of good) store.set(r.id, r);
      ack({ ok: true, stored: good.map((r) => r.id), duplicates: [], rejected: bad });
      return true;
    };
    const origo = await startFakeOrigo({ secret: SECRET, store, onLogs });
    const queue = createLogQueue();
    const cap = captureLogger();
    const link = createOrigoLink({ origoUrl: origo.url, proxyId: 'p1', token: tokenFor(SECRET, 'p1'), queue,
      logger: cap.logger, getStatus: () => ({}), ...FAST });
    try {
      for (let i = 0; i < 3; i++) queue.push(record(i));
      link.notify();
      await until(() => queue.size === 0);
      assert.equal(store.size, 2);
      assert.ok(cap.lines.some((l) => l.msg === 'Origo rejected a log record'));
      assert.ok(cap.lines.some((l) => l.msg === 'log batch not acked, will re-send'));
    } finally {
      link.close();
      await origo.close();
    }
  });

  it('is refused with a wrong token and logs the code', async () => {
    const refusals = [];
    const origo = await startFakeOrigo({ secret: SECRET, store: new Map(), refusals });
    const cap = captureLogger();
    const link = createOrigoLink({ origoUrl: origo.url, proxyId: 'p1', token: tokenFor('other-secret', 'p1'),
      queue: createLogQueue(), logger: cap.logger, getStatus: () => ({}), ...FAST });
    try {
      await until(() => cap.lines.some((l) => l.level === 'error'));
      assert.equal(refusals[0], 'ERR_AUTH_BAD_TOKEN');
      const line = cap.lines.find((l) => l.level === 'error');
      assert.equal(/** @type {any} */ (line.fields).code, 'ERR_AUTH_BAD_TOKEN');
      assert.equal(link.socket.connected, false);
    } finally {
      link.close();
      await origo.close();
    }
  });
});
