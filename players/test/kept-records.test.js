// The records Origo has not taken when a page goes away: kept in the site's storage, sent by the
// next fleet the site makes for that Origo (kept-records.js, and createFleet with records on).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { buildRecord } from '@mutp/proxyclientlib';
import { createFleet } from '../src/fleet.js';
import { keepRecords, takeKeptRecords, KEPT_MAX_CHARS } from '../src/kept-records.js';

const ORIGO = 'http://origo.test';
const OTHER_ORIGO = 'http://other-origo.test';
const MODE = 'parallel-http';
const PROXIES = [{ id: 'p1', url: 'http://p1.test', ticket: null }];
const quiet = { warn: () => {} };

/** Web Storage over a Map, with a quota in characters. @param {number} [quota] */
function memoryStorage(quota = Infinity) {
  /** @type {Map<string, string>} */
  const m = new Map();
  return {
    map: m,
    get length() { return m.size; },
    key: (/** @type {number} */ i) => [...m.keys()][i] ?? null,
    getItem: (/** @type {string} */ k) => m.get(k) ?? null,
    setItem(/** @type {string} */ k, /** @type {string} */ v) {
      if (v.length > quota) throw new Error('QuotaExceededError');
      m.set(k, v);
    },
    removeItem: (/** @type {string} */ k) => { m.delete(k); },
  };
}

const rec = (/** @type {string} */ id, pad = 0) => ({ id, mode: MODE, pad: 'x'.repeat(pad) });

describe('players: kept records (the site\'s localStorage)', () => {
  it('what one fleet keeps, the next fleet for the same Origo takes once; other Origos\' and the site\'s own keys stay', () => {
    const s = memoryStorage();
    s.setItem('site-own', '{"id":"not ours"}');
    assert.deepEqual(keepRecords(s, ORIGO, 'f1', [rec('a'), rec('b')]), { kept: 2, dropped: 0, error: null });
    keepRecords(s, ORIGO, 'f2', [rec('c')]);
    keepRecords(s, OTHER_ORIGO, 'f3', [rec('z')]);
    const got = takeKeptRecords(s, ORIGO);
    assert.deepEqual(got.records.map((r) => r.id).sort(), ['a', 'b', 'c']);
    assert.equal(got.malformed, 0);
    assert.deepEqual(takeKeptRecords(s, ORIGO).records, [], 'taken once');
    assert.deepEqual(takeKeptRecords(s, OTHER_ORIGO).records.map((r) => r.id), ['z']);
    assert.equal(s.getItem('site-own'), '{"id":"not ours"}');
  });

  it('keeping nothing removes the fleet\'s key; the newest records are kept when not all fit', () => {
    const s = memoryStorage();
    keepRecords(s, ORIGO, 'f1', [rec('a')]);
    keepRecords(s, ORIGO, 'f1', []);
    assert.equal(s.length, 0);
    const big = Math.floor(KEPT_MAX_CHARS / 3);
    const r = keepRecords(s, ORIGO, 'f1', [rec('old', big), rec('mid', big), rec('new', big)]);
    assert.deepEqual(r, { kept: 2, dropped: 1, error: null });
    assert.deepEqual(takeKeptRecords(s, ORIGO).records.map((x) => x.id), ['mid', 'new']);
  });

  it('a full or missing storage is reported, not thrown', () => {
    assert.match(String(keepRecords(memoryStorage(10), ORIGO, 'f1', [rec('a')]).error), /Quota/);
    assert.deepEqual(keepRecords(null, ORIGO, 'f1', [rec('a')]), { kept: 0, dropped: 1, error: 'no localStorage' });
    assert.deepEqual(takeKeptRecords(null, ORIGO), { records: [], malformed: 0 });
  });

  it('malformed entries under our keys are dropped and counted', () => {
    const s = memoryStorage();
    s.setItem(`mutp-records ${ORIGO} x1`, 'not json');
    s.setItem(`mutp-records ${ORIGO} x2`, '{"id":"a"}');
    s.setItem(`mutp-records ${ORIGO} x3`, JSON.stringify([rec('ok'), null, { id: 5 }, { id: 'bad id with spaces' }, [1]]));
    const got = takeKeptRecords(s, ORIGO);
    assert.deepEqual(got.records.map((r) => r.id), ['ok']);
    assert.equal(got.malformed, 6);
    assert.equal(s.length, 0);
  });
});

describe('players: a fleet keeps the records Origo did not take', function () {
  this.timeout(20_000);
  const realFetch = globalThis.fetch;
  /** @type {{ up: boolean, stored: string[] }} */
  const origo = { up: false, stored: [] };
  before(() => {
    globalThis.fetch = /** @type {any} */ (async (/** @type {any} */ url, /** @type {any} */ init) => {
      if (!String(url).startsWith(ORIGO)) return realFetch(url, init);
      if (!origo.up) return new Response('down', { status: 503 });
      const ids = JSON.parse(init.body).map((/** @type {any} */ r) => r.id);
      origo.stored.push(...ids);
      return Response.json({ ok: true, stored: ids, duplicates: [] });
    });
  });
  after(() => { globalThis.fetch = realFetch; });

  const client = () => /** @type {any} */ (() => ({
    download: async (/** @type {string} */ url) => ({
      data: new Uint8Array([1, 2, 3]),
      stats: buildRecord({ clientId: 'c1', startedAt: new Date().toISOString(), mode: MODE, n: 1, proxies: PROXIES, url, objectBytes: 3, grossBytes: 3, netBytes: 3, durationMs: 1, error: null }),
    }),
    proxies: async () => PROXIES,
    connectionCounters: () => ({}),
    close: () => {},
  }));

  it('Origo down: close() keeps the segment\'s record; the next fleet of the site sends it and the storage empties', async () => {
    const storage = memoryStorage();
    origo.up = false;
    const first = createFleet({ origo: ORIGO, mode: MODE, n: 1, logger: quiet, makeClient: client(), storage });
    const recorded = once(/** @type {any} */ (first), 'record');
    const got = /** @type {any} */ (await first.fetchSegment('http://origin.test/v/seg1.m4s'));
    assert.ok(!('direct' in got), `went direct: ${got.direct}`);
    const [ev] = await recorded;
    await first.close();
    assert.equal(storage.length, 1, 'kept under the fleet\'s key');
    assert.deepEqual(JSON.parse(/** @type {string} */ (storage.getItem(/** @type {string} */ (storage.key(0))))).map((/** @type {any} */ r) => r.id), [ev.detail.id]);

    origo.up = true;
    const second = createFleet({ origo: ORIGO, mode: MODE, n: 1, logger: quiet, makeClient: client(), storage });
    await second.close();
    assert.deepEqual(origo.stored, [ev.detail.id]);
    assert.equal(storage.length, 0, 'nothing left once Origo took it');
  });

  /**
   * A fleet on a page whose `pagehide` the test fires, and its first segment's record.
   * @param {ReturnType<typeof memoryStorage>} storage @param {string} url
   * @param {(page: EventTarget, fleet: ReturnType<typeof createFleet>, id: string) => Promise<void>} fn
   * @param {{sendBeacon?: (url: string, body: string) => boolean, document?: EventTarget & {visibilityState: string}}} [browser]
   *   the page's navigator.sendBeacon and document, where the test gives them
   */
  async function onPage(storage, url, fn, browser = {}) {
    const page = new EventTarget();
    const g = /** @type {any} */ (globalThis);
    g.addEventListener = page.addEventListener.bind(page);
    g.removeEventListener = page.removeEventListener.bind(page);
    if (browser.sendBeacon) g.navigator = { sendBeacon: browser.sendBeacon };
    if (browser.document) g.document = browser.document;
    try {
      const fleet = createFleet({ origo: ORIGO, mode: MODE, n: 1, logger: quiet, makeClient: client(), storage });
      const recorded = once(/** @type {any} */ (fleet), 'record');
      await fleet.fetchSegment(url);
      const [ev] = await recorded;
      await fn(page, fleet, ev.detail.id);
    } finally {
      delete g.addEventListener;
      delete g.removeEventListener;
      if (browser.sendBeacon) delete g.navigator;
      if (browser.document) delete g.document;
    }
  }

  it('a page that goes away (pagehide) hands its records to the beacon at once, as text for /api/logs/v2, and keeps them; no POST follows', async () => {
    const storage = memoryStorage();
    origo.up = true;
    origo.stored = [];
    /** @type {{url: string, body: string}[]} */
    const beacons = [];
    const doc = Object.assign(new EventTarget(), { visibilityState: 'visible' });
    await onPage(storage, 'http://origin.test/v/seg4.m4s', async (page, fleet, id) => {
      page.dispatchEvent(new Event('pagehide')); // Firefox, as a tab closes: pagehide, then visibilitychange
      assert.deepEqual(beacons.map((b) => b.url), [`${ORIGO}/api/logs/v2`], 'one beacon, begun in the handler');
      assert.deepEqual(JSON.parse(beacons[0].body).map((/** @type {any} */ r) => r.id), [id]);
      doc.visibilityState = 'hidden';
      doc.dispatchEvent(new Event('visibilitychange'));
      for (let i = 0; i < 20; i++) await Promise.resolve();
      assert.deepEqual(origo.stored, [], 'no POST of what the beacon carried');
      assert.deepEqual(takeKeptRecords(storage, ORIGO).records.map((r) => r.id), [id], 'kept: a beacon\'s answer cannot be read');
      await fleet.close();
    }, { sendBeacon: (url, body) => { beacons.push({ url, body }); return true; }, document: doc });
  });

  it('a page only hidden (visibilitychange, no pagehide) POSTs its records, not by beacon, and keeps none once Origo took them', async () => {
    const storage = memoryStorage();
    origo.up = true;
    origo.stored = [];
    let beacons = 0;
    const doc = Object.assign(new EventTarget(), { visibilityState: 'visible' });
    await onPage(storage, 'http://origin.test/v/seg5.m4s', async (_page, fleet, id) => {
      doc.visibilityState = 'hidden';
      doc.dispatchEvent(new Event('visibilitychange'));
      for (let t = 0; t < 50 && origo.stored.length === 0; t++) await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(origo.stored, [id]);
      assert.equal(beacons, 0);
      assert.equal(storage.length, 0, 'nothing kept once Origo took it');
      await fleet.close();
    }, { sendBeacon: () => { beacons += 1; return true; }, document: doc });
  });

  it('a page\'s records wait for a batch while it lives, and go to Origo at once when it goes away (pagehide)', async () => {
    const storage = memoryStorage();
    origo.up = true;
    origo.stored = [];
    await onPage(storage, 'http://origin.test/v/seg3.m4s', async (page, fleet, id) => {
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(origo.stored, [], 'not a POST per segment');
      const realSetTimeout = globalThis.setTimeout;
      // as in a page being unloaded: a timer set from here on never fires
      globalThis.setTimeout = /** @type {any} */ (() => 0);
      try {
        page.dispatchEvent(new Event('pagehide'));
        for (let i = 0; i < 20; i++) await Promise.resolve(); // the handler's task's microtasks only
      } finally {
        globalThis.setTimeout = realSetTimeout;
      }
      assert.deepEqual(origo.stored, [id], 'its POST begun in the pagehide handler, not at the batch\'s time');
      await fleet.close();
      assert.equal(storage.length, 0, 'nothing kept once Origo took it');
    });
  });

  it('a page that goes away (pagehide) keeps what Origo has not taken yet, before close()', async () => {
    const storage = memoryStorage();
    origo.up = false;
    await onPage(storage, 'http://origin.test/v/seg2.m4s', async (page, fleet, id) => {
      assert.equal(storage.length, 0, 'nothing written while the page lives');
      page.dispatchEvent(new Event('pagehide'));
      assert.deepEqual(takeKeptRecords(storage, ORIGO).records.map((r) => r.id), [id]);
      await fleet.close();
    });
  });
});
