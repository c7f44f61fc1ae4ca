// A proxy with a valid token that misbehaves: it floods statuses, piles up log batches, or advertises a
// publicUrl that points clients at loopback, link-local or cloud-metadata addresses.
import assert from 'node:assert/strict';
import { openDuckDbStore } from '../index.js';
import { PROXY_EVENTS_BURST } from '../src/limits.js';
import { connectGoodProxy, emitWithAck, eventually, forwardingStore, getProxies, proxyRecord, proxyStatus, startTestOrigo } from './helpers.js';

const FLOOD_STATUSES = 5 * PROXY_EVENTS_BURST;

describe('origo: a flooding proxy', () => {
  /** @type {Awaited<ReturnType<typeof startTestOrigo>>} */
  let origo;
  afterEach(async () => { await origo?.close(); });

  it('is disconnected with a logged ERR_PROXY_FLOOD, refused on reconnect, and costs the store one status row', async () => {
    origo = await startTestOrigo();
    const honest = await connectGoodProxy(origo.url, 'honest');
    const flooder = await connectGoodProxy(origo.url, 'flooder');
    const gone = new Promise((resolve) => flooder.once('disconnect', resolve));
    flooder.emit('status', proxyStatus('flooder'));
    await eventually(async () => (await getProxies(origo.url)).body.proxies.length === 1);
    for (let i = 0; i < FLOOD_STATUSES; i++) flooder.emit('status', proxyStatus('flooder', { activeSessions: i }));
    assert.equal(await gone, 'io server disconnect');
    const warning = await eventually(async () => origo.logger.lines.find((l) => l.msg === 'proxy disconnected' && l.fields?.code === 'ERR_PROXY_FLOOD'));
    assert.equal(warning.fields.proxyId, 'flooder');
    assert.match(warning.fields.reason, /events\/s/);
    flooder.close();
    // the cooldown refuses it at the handshake
    const refused = await connectGoodProxy(origo.url, 'flooder').then((s) => { s.close(); return null; }, (e) => e);
    assert.equal(refused?.message, 'ERR_PROXY_FLOOD');
    // the honest proxy is still served: its batch is stored and acked
    const rec = proxyRecord('honest');
    assert.deepEqual(await emitWithAck(honest, 'logs', [rec]), { ok: true, stored: [rec.id], duplicates: [], rejected: [] });
    assert.equal((await fetch(`${origo.url}/healthz`)).status, 200);
    await eventually(async () => (await origo.store.counts()).proxyStatus >= 1);
    assert.equal((await origo.store.counts()).proxyStatus, 1, 'statuses are coalesced: one row per period');
    honest.close();
  });
});

describe('origo: statuses are coalesced per proxy', () => {
  /** @type {Awaited<ReturnType<typeof startTestOrigo>>} */
  let origo;
  afterEach(async () => { await origo?.close(); });

  it('keeps the latest status live, and stores one row per period however many arrive', async () => {
    origo = await startTestOrigo({ proxyEventsPerSecond: 0 }); // flood limit off: only the sampler is under test
    const socket = await connectGoodProxy(origo.url, 'p1');
    for (let i = 0; i <= 500; i++) socket.emit('status', proxyStatus('p1', { activeSessions: i }));
    const listed = await eventually(async () => {
      const p = (await getProxies(origo.url)).body.proxies[0];
      return p?.activeSessions === 500 ? p : null;
    });
    assert.equal(listed.id, 'p1');
    await eventually(async () => (await origo.store.counts()).proxyStatus >= 1);
    assert.equal((await origo.store.counts()).proxyStatus, 1);
    socket.close();
  });
});

describe('origo: log batches in flight per proxy are bounded', () => {
  it('a third batch while two wait for the store is answered ERR_BUSY at once', async () => {
    const real = await openDuckDbStore();
    let release = () => {};
    const gate = new Promise((r) => { release = () => r(undefined); });
    let waiting = 0;
    const store = forwardingStore(real);
    store.insertProxyRecords = async (/** @type {object[]} */ records) => { waiting++; await gate; return real.insertProxyRecords(records); };
    const origo = await startTestOrigo({ store });
    const socket = await connectGoodProxy(origo.url, 'p1');
    try {
      const first = emitWithAck(socket, 'logs', [proxyRecord('p1')]);
      const second = emitWithAck(socket, 'logs', [proxyRecord('p1')]);
      const third = /** @type {any} */ (await emitWithAck(socket, 'logs', [proxyRecord('p1')]));
      assert.equal(third.ok, false);
      assert.equal(third.error.code, 'ERR_BUSY');
      assert.equal(waiting, 2);
      release();
      assert.equal(/** @type {any} */ (await first).ok, true);
      assert.equal(/** @type {any} */ (await second).ok, true);
      assert.equal((await real.counts()).proxyRecords, 2);
    } finally {
      socket.close();
      await origo.close();
      await real.close();
    }
  });
});

describe('origo: a proxy publicUrl is checked with the proxies\' address policy', () => {
  /** @type {Awaited<ReturnType<typeof startTestOrigo>>} */
  let origo;
  afterEach(async () => { await origo?.close(); });

  /** Sends one status per URL from its own proxy id; returns the ids Origo lists. @param {string[]} urls */
  async function listedAfter(urls) {
    const sockets = await Promise.all(urls.map((_, i) => connectGoodProxy(origo.url, `u${i}`)));
    sockets.forEach((s, i) => s.emit('status', proxyStatus(`u${i}`, { publicUrl: urls[i] })));
    // every status was either listed or logged as ignored
    await eventually(async () => (await getProxies(origo.url, '?n=64')).body.proxies.length
      + origo.logger.lines.filter((l) => l.msg === 'proxy status ignored' && l.fields?.code === 'ERR_PUBLIC_URL').length === urls.length);
    const ids = (await getProxies(origo.url, '?n=64')).body.proxies.map((/** @type {any} */ p) => p.id);
    for (const s of sockets) s.close();
    return urls.filter((_, i) => ids.includes(`u${i}`));
  }

  const refusedByDefault = ['http://169.254.169.254/latest/meta-data/', 'http://127.0.0.1:8090/', 'http://[::1]:8090/', 'http://localhost:8090/',
    'http://10.219.0.5:8090/', 'http://169.254.10.1/', 'http://[fd00:ec2::254]/', 'http://2130706433:8090/', 'http://0.0.0.0:8090/'];
  const publicUrls = ['https://93.184.216.34:8090/', 'https://proxy-1.example.net/']; // https: plain HTTP on a public address is not offered either

  it('by default lists only public addresses and DNS names (loopback, private, link-local and metadata are ignored)', async () => {
    origo = await startTestOrigo({ allowPrivateProxyUrls: false });
    assert.deepEqual(await listedAfter([...refusedByDefault, ...publicUrls]), publicUrls);
  });

  it('with allowPrivateProxyUrls, loopback and private addresses are listed; metadata addresses still are not', async () => {
    origo = await startTestOrigo({ allowPrivateProxyUrls: true });
    const urls = ['http://127.0.0.1:8090/', 'http://10.219.0.5:8090/', 'http://localhost:8090/', 'http://169.254.169.254/', 'http://[fd00:ec2::254]/'];
    assert.deepEqual(await listedAfter(urls), urls.slice(0, 3));
  });
});
