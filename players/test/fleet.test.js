// The page's own fleet (createFleet): the extension's fleet host and page side in one page, over
// real MessageChannels, with a fake ProxyClientLib client (makeClient). What comes out of
// fetchSegment (byte-exact body, its head), the counters it keeps, the reasons it gives for a
// segment the player fetches itself, the options it refuses, what it learns from a playlist,
// a host started at the page's first play (startOn), and close().
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { buildRecord } from '@mutp/proxyclientlib';
import { createFleet } from '../src/fleet.js';

const ORIGO = 'http://origo.test';
const ORIGIN = 'http://origin.test';
const MODE = 'parallel-http'; // no WebRTC warm-up, no origin-head probe: only download() is asked
const PROXIES = [{ id: 'p1', url: 'http://p1.test', ticket: null }, { id: 'p2', url: 'http://p2.test', ticket: null }];
const quiet = { warn: () => {} };

/** Bytes that differ at every offset (a swapped or shifted piece shows). @param {number} n */
function sourceBytes(n) {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 7 + (i >> 8)) & 0xff;
  return b;
}

/**
 * A record as ProxyClientLib makes one for a finished download.
 * @param {string} url @param {number} bytes
 */
const recordFor = (url, bytes) => buildRecord({
  clientId: 'c1', startedAt: new Date().toISOString(), mode: MODE, n: 2, proxies: PROXIES, url, objectBytes: bytes,
  grossBytes: bytes, netBytes: bytes, durationMs: 5, error: null,
});

/**
 * A fake ProxyClientLib client: `download` is the test's; the rest answers as a client with two
 * proxies and no connections. `downloads` holds each download's url and options.
 * @param {(url: string, o: any) => Promise<{data: Uint8Array, stats: object}>} download
 */
function fakeClient(download) {
  /** @type {{url: string, o: any}[]} */
  const downloads = [];
  const made = { clients: 0, closed: 0 };
  const client = {
    download: (/** @type {string} */ url, /** @type {any} */ o) => { downloads.push({ url, o }); return download(url, o); },
    proxies: async () => PROXIES,
    connectionCounters: () => ({}),
    close: () => { made.closed += 1; },
  };
  const makeClient = /** @type {any} */ (() => { made.clients += 1; return client; });
  return { makeClient, downloads, made };
}

/**
 * A download that hands the body over in `parts` pieces (the second and third swapped: pieces may
 * come in any order) before it resolves.
 * @param {Uint8Array} body @param {number} parts
 */
function servesInPieces(body, parts) {
  return async (/** @type {string} */ url, /** @type {any} */ o) => {
    const size = Math.ceil(body.length / parts);
    const pieces = [];
    for (let at = 0; at < body.length; at += size) pieces.push({ offset: at, bytes: body.slice(at, at + size) });
    [pieces[1], pieces[2]] = [pieces[2], pieces[1]];
    for (const p of pieces) {
      o.onProgress({ objectBytes: body.length, chunks: [p] });
      await new Promise((r) => setImmediate(r));
    }
    return { data: body, stats: recordFor(url, body.length) };
  };
}

describe('players: the page\'s fleet (createFleet)', function () {
  this.timeout(20_000);
  /** @type {ReturnType<typeof createFleet>[]} */
  const fleets = [];
  afterEach(async () => { for (const f of fleets.splice(0)) await f.close(); });

  /** @param {ReturnType<typeof fakeClient>} fake @param {object} [over] */
  function fleetWith(fake, over = {}) {
    const fleet = createFleet({ origo: ORIGO, mode: MODE, n: 2, records: false, logger: quiet, makeClient: fake.makeClient, ...over });
    fleets.push(fleet);
    return fleet;
  }

  for (const range of [{ start: 1000, end: 200_999 }, null]) {
    it(`a body the client hands over in pieces comes out byte-exact with the head a direct fetch gives (${range ? '206 for a range' : '200 for a whole file'}), and is counted once its record arrives`, async () => {
      const body = sourceBytes(200_000); // several page posts (64 KB each)
      const fake = fakeClient(servesInPieces(body, 5));
      const fleet = fleetWith(fake);
      const url = `${ORIGIN}/v/seg1.m4s`;
      /** @type {any[]} */
      const segments = [];
      fleet.addEventListener('segment', (e) => segments.push(/** @type {CustomEvent} */ (e).detail));
      const recorded = once(/** @type {any} */ (fleet), 'record');

      /** @type {number[]} */
      const loaded = [];
      const got = /** @type {any} */ (await fleet.fetchSegment(url, { range, onProgress: (p) => loaded.push(p.loaded) }));
      assert.ok(!('direct' in got), `went direct: ${got.direct}`);
      assert.ok(loaded.length > 1, `the body reached the loader in ${loaded.length} piece(s)`);
      assert.equal(loaded.at(-1), body.length);
      assert.deepEqual(Buffer.from(got.data), Buffer.from(body));
      assert.equal(fake.downloads.length, 1);
      assert.deepEqual(fake.downloads[0].o.range, range);
      const header = (/** @type {string} */ name) => got.head.headers.find((/** @type {[string, string]} */ [k]) => k === name)?.[1];
      assert.equal(got.head.status, range ? 206 : 200);
      assert.equal(header('content-length'), String(body.length));
      assert.equal(header('content-range'), range ? `bytes ${range.start}-${range.end}/*` : undefined);
      assert.ok(got.startAt <= got.firstAt && got.firstAt <= got.endAt, `${got.startAt} ${got.firstAt} ${got.endAt}`);
      assert.equal(got.rest, null);

      assert.equal(segments.length, 1);
      assert.equal(segments[0].via, 'fleet');
      assert.equal(segments[0].url, url);
      assert.equal(segments[0].bytes, body.length);

      const [ev] = await recorded;
      assert.equal(ev.detail.mode, MODE);
      const stats = fleet.stats();
      assert.deepEqual(stats.fleetBytes, { [MODE]: body.length });
      assert.equal(stats.fleet, 1);
      assert.deepEqual(stats.directBytes, {});
    });
  }

  it('a download that fails before any byte: the segment goes direct with the client\'s code, and countDirect counts its bytes under that code', async () => {
    const fake = fakeClient(async () => {
      throw Object.assign(new Error('all 2 proxies failed'), {
        code: 'ERR_ALL_PROXIES_FAILED',
        perProxy: [{ proxyId: 'p1', error: { code: 'ERR_HTTP_502', message: 'x' } }, { proxyId: 'p2', error: { code: 'ERR_HTTP_502', message: 'x' } }],
      });
    });
    const fleet = fleetWith(fake);
    const url = `${ORIGIN}/v/seg2.m4s`;
    const got = /** @type {any} */ (await fleet.fetchSegment(url));
    assert.equal(Object.keys(got).join(), 'direct');
    assert.match(got.direct, /^ERR_ALL_PROXIES_FAILED\b/);
    assert.equal(fake.downloads.length, 1, 'the fleet tried it');

    fleet.countDirect(url, 123, got.direct);
    const stats = fleet.stats();
    assert.deepEqual(stats.directBytes, { ERR_ALL_PROXIES_FAILED: 123 });
    assert.deepEqual(stats.fleetBytes, {});
    assert.equal(stats.fleet, 0);
  });

  describe('options it refuses, with a code', () => {
    const fake = fakeClient(async () => { throw new Error('no download expected'); });
    const make = (/** @type {any} */ o) => () => fleets.push(createFleet({ records: false, logger: quiet, makeClient: fake.makeClient, ...o }));

    it('no origo: ERR_NO_ORIGO', () => {
      assert.throws(make({}), { code: 'ERR_NO_ORIGO' });
    });

    it('an origo that is not an http(s) URL: ERR_BAD_ORIGO_URL', () => {
      assert.throws(make({ origo: 'ftp://x' }), { code: 'ERR_BAD_ORIGO_URL' });
    });

    it('a mode that does not exist: ERR_BAD_OPTION', () => {
      assert.throws(make({ origo: ORIGO, mode: 'fast' }), { code: 'ERR_BAD_OPTION' });
    });

    it('a startOn that does not exist: ERR_BAD_OPTION', () => {
      assert.throws(make({ origo: ORIGO, startOn: 'later' }), { code: 'ERR_BAD_OPTION' });
    });
  });

  describe('startOn: first-frame', () => {
    /** A page's document as watchFirstPlay sees it: the media's `playing` reaches it. */
    let doc = new EventTarget();
    beforeEach(() => {
      doc = new EventTarget();
      /** @type {any} */ (globalThis).document = doc;
    });
    afterEach(() => { delete (/** @type {any} */ (globalThis).document); });
    const playing = () => doc.dispatchEvent(new Event('playing'));

    it('the segments asked before the page\'s media plays go direct (ERR_FLEET_STARTING), counted and told as fallbacks, with no client made; from its first play they come through the fleet byte-exact', async () => {
      const body = sourceBytes(3000);
      const fake = fakeClient(servesInPieces(body, 3));
      const fleet = fleetWith(fake, { startOn: 'first-frame' });
      let placed = /** @type {string | null} */ (null);
      fleet.runsIn().then((p) => { placed = p; });
      /** @type {any[]} */
      const fallbacks = [];
      fleet.addEventListener('fallback', (e) => fallbacks.push(/** @type {CustomEvent} */ (e).detail));
      const early = /** @type {any} */ (await fleet.fetchSegment(`${ORIGIN}/v/init.mp4`));
      assert.match(early.direct, /^ERR_FLEET_STARTING\b/);
      assert.equal(fake.made.clients, 0);
      assert.deepEqual(fleet.stats().directBy, { ERR_FLEET_STARTING: 1 });
      assert.deepEqual(fallbacks.map((f) => f.url), [`${ORIGIN}/v/init.mp4`]);
      assert.equal(placed, null);
      playing();
      assert.equal(fake.made.clients, 1);
      const got = /** @type {any} */ (await fleet.fetchSegment(`${ORIGIN}/v/seg0.m4s`));
      assert.ok(!('direct' in got), got.direct);
      assert.deepEqual(got.data, body);
      assert.equal(await fleet.runsIn(), 'page');
      playing(); // a later play starts nothing more
      assert.equal(fake.made.clients, 1);
    });

    it('a fleet closed before the page\'s media plays never starts its host', async () => {
      const fake = fakeClient(async () => { throw new Error('no download expected'); });
      const fleet = fleetWith(fake, { startOn: 'first-frame' });
      await fleet.close();
      playing();
      assert.equal(fake.made.clients, 0);
      assert.match(/** @type {any} */ (await fleet.fetchSegment(`${ORIGIN}/v/seg0.m4s`)).direct, /^ERR_FLEET_CLOSED\b/);
    });

    it('by default the host starts as the fleet is made', () => {
      const fake = fakeClient(async () => { throw new Error('no download expected'); });
      fleetWith(fake);
      assert.equal(fake.made.clients, 1);
    });
  });

  it('with no document (no media to wait for), startOn: first-frame starts the host at once', () => {
    const fake = fakeClient(async () => { throw new Error('no download expected'); });
    fleetWith(fake, { startOn: 'first-frame' });
    assert.equal(fake.made.clients, 1);
  });

  it('a media playlist it learnt: a segment\'s download is told the next segment\'s absolute URL', async () => {
    const fake = fakeClient(async (url) => ({ data: new Uint8Array([1, 2, 3]), stats: recordFor(url, 3) }));
    const fleet = fleetWith(fake);
    const playlist = `${ORIGIN}/v/720p/index.m3u8`;
    fleet.learn('hls', playlist, '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:4.0,\na.ts\n#EXTINF:4.0,\nb.ts\n#EXTINF:4.0,\nc.ts\n#EXT-X-ENDLIST\n');
    const got = await fleet.fetchSegment(`${ORIGIN}/v/720p/a.ts`);
    assert.ok(!('direct' in got));
    assert.equal(fake.downloads.length, 1);
    assert.equal(fake.downloads[0].o.next, `${ORIGIN}/v/720p/b.ts`);
  });

  it('after close() a segment goes direct (ERR_FLEET_CLOSED), counted, and the client was closed', async () => {
    const fake = fakeClient(async (url) => ({ data: new Uint8Array([1]), stats: recordFor(url, 1) }));
    const fleet = fleetWith(fake);
    assert.equal(fake.made.clients, 1);
    await fleet.close();
    assert.equal(fake.made.closed, 1);
    const got = /** @type {any} */ (await fleet.fetchSegment(`${ORIGIN}/v/seg3.m4s`));
    assert.match(got.direct, /^ERR_FLEET_CLOSED\b/);
    assert.equal(fake.downloads.length, 0);
    assert.deepEqual(fleet.stats().directBy, { ERR_FLEET_CLOSED: 1 });
  });

  it('close() while a segment downloads: it goes direct at once (ERR_FLEET_CLOSED, counted), not after the no-progress timeout', async () => {
    const fake = fakeClient((url, o) => new Promise((resolve, reject) => {
      o.signal.addEventListener('abort', () => reject(o.signal.reason)); // a download that never delivers, until aborted
    }));
    const fleet = fleetWith(fake, { noProgressTimeoutMs: 60_000 });
    const got = fleet.fetchSegment(`${ORIGIN}/v/seg4.m4s`);
    while (fake.downloads.length === 0) await new Promise((r) => setImmediate(r));
    await fleet.close();
    const either = await Promise.race([got, new Promise((r) => setTimeout(() => r('still waiting'), 2000))]);
    assert.match(/** @type {any} */ (either).direct ?? String(either), /^ERR_FLEET_CLOSED\b/);
    assert.deepEqual(fleet.stats().directBy, { ERR_FLEET_CLOSED: 1 });
  });
});
