import assert from 'node:assert/strict';
import { openDuckDbStore } from '../index.js';
import { connectGoodProxy, emitWithAck, forwardingStore, proxyRecord, startTestOrigo } from './helpers.js';

describe('origo: proxy logs over socket.io', () => {
  it('acks a batch only after the store committed it', async () => {
    const real = await openDuckDbStore();
    let releaseGate = () => {};
    const gate = new Promise((r) => { releaseGate = () => r(undefined); });
    let insertStarted = () => {};
    const started = new Promise((r) => { insertStarted = () => r(undefined); });
    let committed = false;
    const store = forwardingStore(real);
    store.insertProxyRecords = async (/** @type {object[]} */ records) => {
      if (records.length) insertStarted();
      await gate;
      const result = await real.insertProxyRecords(records);
      committed = true;
      return result;
    };
    const origo = await startTestOrigo({ store });
    const socket = await connectGoodProxy(origo.url, 'p1');
    try {
      const rec = proxyRecord('p1');
      let acked = false;
      const ack = emitWithAck(socket, 'logs', [rec]).then((reply) => { acked = true; return reply; });
      await started;
      // A second emit is answered at once (it never reaches the store); socket.io keeps order on one
      // connection, so had the first batch been acked before its commit, that ack would be here by now.
      const refused = await emitWithAck(socket, 'logs', 'not an array');
      assert.equal(/** @type {any} */ (refused).error.code, 'ERR_BAD_BATCH');
      assert.equal(acked, false, 'no ack while the commit is pending');
      releaseGate();
      const reply = await ack;
      assert.equal(committed, true);
      assert.deepEqual(reply, { ok: true, stored: [rec.id], duplicates: [], rejected: [] });
      const rows = await real.listProxyRecords();
      assert.deepEqual(rows, [rec]);
    } finally {
      socket.close();
      await origo.close();
      await real.close();
    }
  });

  describe('with a real store', () => {
    /** @type {Awaited<ReturnType<typeof startTestOrigo>>} */
    let origo;
    /** @type {import('socket.io-client').Socket} */
    let socket;
    beforeEach(async () => {
      origo = await startTestOrigo();
      socket = await connectGoodProxy(origo.url, 'p1');
    });
    afterEach(async () => {
      socket.close();
      await origo.close();
    });

    it('a re-sent record is a duplicate, stored once', async () => {
      const a = proxyRecord('p1');
      const b = proxyRecord('p1', { mode: 'coded', error: { code: 'ERR_ORIGIN_TIMEOUT', message: 'slow' } });
      assert.deepEqual(await emitWithAck(socket, 'logs', [a]), { ok: true, stored: [a.id], duplicates: [], rejected: [] });
      assert.deepEqual(await emitWithAck(socket, 'logs', [a, b]), { ok: true, stored: [b.id], duplicates: [a.id], rejected: [] });
      assert.equal((await origo.store.counts()).proxyRecords, 2);
      const stored = await origo.store.listProxyRecords({ proxyId: 'p1' });
      assert.deepEqual(stored.find((r) => r.id === b.id), b);
    });

    it('rejects invalid records and records of another proxy; stores the rest', async () => {
      const good = proxyRecord('p1');
      const other = proxyRecord('p2');
      const bad = proxyRecord('p1', { bytesSent: -5 });
      const reply = /** @type {any} */ (await emitWithAck(socket, 'logs', [good, other, bad, null]));
      assert.equal(reply.ok, true);
      assert.deepEqual(reply.stored, [good.id]);
      assert.deepEqual(reply.rejected.map((r) => r.id), [other.id, bad.id, null]);
      assert.match(reply.rejected[0].reason, /proxyId/);
      assert.match(reply.rejected[1].reason, /bytesSent/);
      assert.equal((await origo.store.counts()).proxyRecords, 1);
    });

    it('refuses a batch that is not an array or too long', async () => {
      const tooMany = Array.from({ length: 1001 }, () => proxyRecord('p1'));
      const reply = /** @type {any} */ (await emitWithAck(socket, 'logs', tooMany));
      assert.deepEqual(reply.ok, false);
      assert.equal(reply.error.code, 'ERR_BAD_BATCH');
      assert.equal((await origo.store.counts()).proxyRecords, 0);
    });
  });
});
