// A client that tries to fill Origo's disk through POST /api/logs, or to mint tickets in bulk.
import assert from 'node:assert/strict';
import { MAX_EXTRA_BYTES } from '../src/limits.js';
import { clientRecord, connectGoodProxy, eventually, getProxies, postLogs, proxyStatus, startTestOrigo } from './helpers.js';

describe('origo: bounded storage per client', () => {
  /** @type {Awaited<ReturnType<typeof startTestOrigo>>} */
  let origo;
  afterEach(async () => { await origo?.close(); });

  it('refuses a record whose unknown fields pass MAX_EXTRA_BYTES (ERR_RECORD_TOO_LARGE); a few unknown bytes are kept', async () => {
    origo = await startTestOrigo();
    const junk = clientRecord({ junk: 'x'.repeat(1024 * 1024) });
    const junkParams = clientRecord({ params: { window: 64, blob: 'y'.repeat(MAX_EXTRA_BYTES) } });
    const small = clientRecord({ futureField: { a: 1 } });
    const { status, body } = await postLogs(origo.url, [junk, small, junkParams]);
    assert.equal(status, 400);
    assert.deepEqual(body.stored, [small.id]);
    assert.deepEqual(body.rejected.map((/** @type {any} */ r) => [r.index, r.id, r.code]),
      [[0, junk.id, 'ERR_RECORD_TOO_LARGE'], [2, junkParams.id, 'ERR_RECORD_TOO_LARGE']]);
    assert.equal((await origo.store.counts()).clientRecords, 1);
    const [back] = await origo.store.listClientRecords();
    assert.deepEqual(/** @type {any} */ (back).futureField, { a: 1 });
  });

  it('caps record bytes stored per client address per minute (429 ERR_QUOTA, nothing of that request stored)', async () => {
    const QUOTA = 20_000;
    origo = await startTestOrigo({ logBytesPerMinute: QUOTA });
    let storedBytes = 0;
    let refused = null;
    for (let i = 0; i < 100 && !refused; i++) {
      const batch = [clientRecord(), clientRecord()];
      const { status, body } = await postLogs(origo.url, batch);
      if (status === 200) storedBytes += Buffer.byteLength(JSON.stringify(batch));
      else refused = { status, body, batch };
    }
    assert.ok(refused, 'the quota refused a request');
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, 'ERR_QUOTA');
    assert.ok(storedBytes <= QUOTA && storedBytes > QUOTA / 2, `stored ${storedBytes} bytes`);
    const ids = new Set((await origo.store.listClientRecords({ limit: 1000 })).map((/** @type {any} */ r) => r.id));
    assert.equal(ids.has(refused.batch[0].id) || ids.has(refused.batch[1].id), false);
  });
});

describe('origo: tickets per client address are bounded', () => {
  it('issues at most ticketsPerMinute tickets per address (429 ERR_TICKET_RATE), on /api/proxies and /api/tickets', async () => {
    let t = Date.now();
    const origo = await startTestOrigo({ ticketsPerMinute: 5, now: () => t });
    const sockets = await Promise.all(['p1', 'p2'].map((id) => connectGoodProxy(origo.url, id)));
    try {
      sockets.forEach((s, i) => s.emit('status', proxyStatus(`p${i + 1}`)));
      await eventually(async () => (await getProxies(origo.url, '?n=2')).body.proxies?.length === 2);
      t += 60_001; // a fresh quota window: the polling above spent tickets
      for (let i = 0; i < 2; i++) assert.equal((await getProxies(origo.url, '?n=2&clientId=c')).body.proxies.length, 2); // 4 tickets issued
      const third = await getProxies(origo.url, '?n=2&clientId=c');
      assert.equal(third.status, 429);
      assert.equal(third.body.error.code, 'ERR_TICKET_RATE');
      const one = await fetch(`${origo.url}/api/tickets?clientId=c&ids=p1`); // the 5th ticket
      assert.equal(one.status, 200);
      const over = await fetch(`${origo.url}/api/tickets?clientId=c&ids=p1`);
      assert.equal(over.status, 429);
      assert.equal((await over.json()).error.code, 'ERR_TICKET_RATE');
    } finally {
      for (const s of sockets) s.close();
      await origo.close();
    }
  });
});
