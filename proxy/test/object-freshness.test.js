// The object store keeps a copy only as long as the origin's caching fields allow: a stale whole
// object with a validator is asked about (a 304 keeps its bytes), anything else stale is fetched
// again, and a response the origin says not to store is not kept.
import assert from 'node:assert/strict';
import { NO_STORE_HOST_MS, ONE_DOWNLOAD_REUSE_MS, createObjectStore } from '../src/objects/object-store.js';
import { UNDATED_FRESH_MS } from '../src/objects/freshness.js';

/**
 * A fetcher playing an origin whose object at each URL has a version and the caching fields the
 * test gives; it answers 304 to a request whose validators match the current version's ETag.
 */
function versionedOrigin() {
  /** @type {{ url: string, validators: any, range: any }[]} */
  const calls = [];
  /** @type {Map<string, { version: number, headers: Record<string, string> }>} */
  const objects = new Map();
  return {
    calls,
    /** @param {string} url @param {Record<string, string>} headers  caching fields */
    put(url, headers) {
      const version = (objects.get(url)?.version ?? 0) + 1;
      objects.set(url, { version, headers });
    },
    /** @type {import('../src/objects/object-store.js').Fetcher} */
    fetcher: async (url, opts = {}) => {
      calls.push({ url, validators: opts.validators ?? null, range: opts.range ?? null });
      const o = /** @type {{ version: number, headers: Record<string, string> }} */ (objects.get(url));
      const etag = o.headers.etag === undefined ? undefined : `"v${o.version}"`;
      const cacheHeaders = { ...o.headers, ...(etag ? { etag } : {}) };
      if (opts.validators?.etag && opts.validators.etag === etag) {
        return { bytes: new Uint8Array(0), contentType: '', notModified: true, cacheHeaders, receivedAt: 0 };
      }
      const whole = new Uint8Array(100).fill(o.version);
      const range = opts.range ?? null;
      const bytes = range ? whole.subarray(range.start, range.end + 1) : whole;
      return { bytes, contentType: 'x/y', range, total: 100, cacheHeaders, receivedAt: 0 };
    },
  };
}

function clock() {
  let t = 1000;
  return { now: () => t, advance: (/** @type {number} */ ms) => { t += ms; } };
}

describe('object store: freshness of its copies', () => {
  it('serves a copy within its max-age without asking the origin; after it, asks with the ETag, and a 304 keeps the bytes for another max-age', async () => {
    const o = versionedOrigin();
    const c = clock();
    const store = createObjectStore({ fetcher: o.fetcher, maxBytes: 1e6, now: c.now });
    o.put('http://o/a', { 'cache-control': 'max-age=10', etag: '' });
    assert.equal((await store.get('http://o/a')).bytes[0], 1);
    c.advance(9_000);
    const hit = await store.get('http://o/a');
    assert.equal(hit.fromCache, true);
    assert.equal(o.calls.length, 1);
    c.advance(2_000);
    const revalidated = await store.get('http://o/a');
    assert.equal(o.calls.length, 2);
    assert.deepEqual(o.calls[1].validators, { etag: '"v1"', lastModified: null });
    assert.equal(revalidated.bytes.length, 100);
    assert.equal(revalidated.bytes[0], 1);
    c.advance(9_000);
    assert.equal((await store.get('http://o/a')).fromCache, true, 'fresh again for max-age after the 304');
    assert.equal(o.calls.length, 2);
  });

  it('an object the origin replaced (no-cache, a new ETag): the next get has the new bytes', async () => {
    const o = versionedOrigin();
    const store = createObjectStore({ fetcher: o.fetcher, maxBytes: 1e6, now: clock().now });
    o.put('http://o/a', { 'cache-control': 'no-cache', etag: '' });
    assert.equal((await store.get('http://o/a')).bytes[0], 1);
    assert.equal((await store.get('http://o/a')).bytes[0], 1, 'unchanged: a 304');
    o.put('http://o/a', { 'cache-control': 'no-cache', etag: '' });
    const replaced = await store.get('http://o/a');
    assert.equal(replaced.bytes[0], 2);
    assert.equal(replaced.fromCache, false);
    assert.equal(o.calls.length, 3);
    assert.ok(o.calls.slice(1).every((call) => call.validators?.etag), 'each use asked with the kept ETag');
  });

  it('open() of a stale object asks too, and hands the kept bytes over whole on a 304', async () => {
    const o = versionedOrigin();
    const c = clock();
    const store = createObjectStore({ fetcher: o.fetcher, maxBytes: 1e6, now: c.now });
    o.put('http://o/a', { 'cache-control': 'max-age=1', etag: '' });
    await store.get('http://o/a');
    c.advance(2_000);
    const opened = await store.open('http://o/a');
    assert.equal(opened.filled(), 100);
    assert.equal((await opened.done).bytes[0], 1);
    assert.equal(o.calls.length, 2);
    assert.ok(o.calls[1].validators);
  });

  it('a stale copy without a validator is fetched again whole, not asked about', async () => {
    const o = versionedOrigin();
    const c = clock();
    const store = createObjectStore({ fetcher: o.fetcher, maxBytes: 1e6, now: c.now });
    o.put('http://o/a', {});
    await store.get('http://o/a');
    c.advance(UNDATED_FRESH_MS - 1);
    assert.equal((await store.get('http://o/a')).fromCache, true, 'no caching fields: kept UNDATED_FRESH_MS');
    c.advance(2);
    o.put('http://o/a', {});
    assert.equal((await store.get('http://o/a')).bytes[0], 2);
    assert.equal(o.calls[1].validators, null);
  });

  it('no-store: concurrent gets share one fetch; a later get fetches again, and nothing was kept to ask about', async () => {
    const o = versionedOrigin();
    const store = createObjectStore({ fetcher: o.fetcher, maxBytes: 1e6, now: clock().now });
    o.put('http://o/a', { 'cache-control': 'no-store', etag: '' });
    await Promise.all([store.get('http://o/a'), store.get('http://o/a')]);
    assert.equal(o.calls.length, 1);
    assert.equal(store.has('http://o/a'), false);
    assert.equal((await store.get('http://o/a')).bytes.length, 100);
    assert.equal(o.calls.length, 2);
    assert.equal(o.calls[1].validators, null, 'nothing kept to ask about');
  });

  it('a download\'s later requests (its list after its share) are answered from the copy fetched for it, whatever the origin says, for ONE_DOWNLOAD_REUSE_MS; other downloads ask the origin', async () => {
    for (const fields of [{ 'cache-control': 'no-store' }, { 'cache-control': 'no-cache' }, { 'cache-control': 'max-age=0' }]) {
      const o = versionedOrigin();
      const c = clock();
      const store = createObjectStore({ fetcher: o.fetcher, maxBytes: 1e6, now: c.now });
      o.put('http://o/a', fields);
      await store.get('http://o/a', { downloadId: 'd1' });
      o.put('http://o/a', fields); // replaced after d1's first request
      c.advance(1_000);
      const again = await store.get('http://o/a', { downloadId: 'd1' });
      assert.deepEqual([again.bytes[0], again.fromCache, o.calls.length], [1, true, 1], `${fields['cache-control']}: d1 sees one version`);
      assert.equal((await store.open('http://o/a', { downloadId: 'd1' })).bytes[0], 1);
      assert.equal((await store.get('http://o/a', { downloadId: 'd2' })).bytes[0], 2, 'another download has the new bytes');
      o.put('http://o/a', fields);
      c.advance(ONE_DOWNLOAD_REUSE_MS + 1);
      assert.equal((await store.get('http://o/a', { downloadId: 'd2' })).bytes[0], 3, 'not past ONE_DOWNLOAD_REUSE_MS');
    }
  });

  it('a download that joins a fetch on its way may use its copy too', async () => {
    const o = versionedOrigin();
    const store = createObjectStore({ fetcher: o.fetcher, maxBytes: 1e6, now: clock().now });
    o.put('http://o/a', { 'cache-control': 'no-store' });
    await Promise.all([store.get('http://o/a', { downloadId: 'd1' }), store.get('http://o/a', { downloadId: 'd2' })]);
    o.put('http://o/a', { 'cache-control': 'no-store' });
    assert.equal((await store.get('http://o/a', { downloadId: 'd2' })).bytes[0], 1);
    assert.equal(o.calls.length, 1);
  });

  it('a host that answers no-store gets nothing fetched ahead (no download could use it) until it answers storable, or NO_STORE_HOST_MS passes', async () => {
    const o = versionedOrigin();
    const c = clock();
    const store = createObjectStore({ fetcher: o.fetcher, maxBytes: 1e6, now: c.now, readAheadBytes: 1e6 });
    for (const name of ['a', 'b', 'c', 'd']) o.put(`http://o/${name}`, { 'cache-control': 'no-store' });
    o.put('http://other/x', { 'cache-control': 'no-store' });
    o.put('http://o/kept', { 'cache-control': 'max-age=60' });
    assert.equal(store.prefetch('http://o/a'), true, 'nothing known of the host yet');
    await new Promise((r) => setTimeout(r, 0));
    assert.equal(store.prefetch('http://o/b'), false);
    assert.equal(store.prefetch('http://other/x'), true, 'another host');
    await store.get('http://o/kept');
    assert.equal(store.prefetch('http://o/b'), true, 'the host answered storable since');
    await new Promise((r) => setTimeout(r, 0));
    assert.equal(store.prefetch('http://o/c'), false);
    c.advance(NO_STORE_HOST_MS + 1);
    assert.equal(store.prefetch('http://o/c'), true);
    assert.deepEqual(o.calls.map((call) => call.url), ['http://o/a', 'http://other/x', 'http://o/kept', 'http://o/b', 'http://o/c']);
  });

  it('a range made of cached pieces is fresh only while every piece is', async () => {
    const o = versionedOrigin();
    const c = clock();
    const store = createObjectStore({ fetcher: o.fetcher, maxBytes: 1e6, now: c.now });
    o.put('http://o/a', { 'cache-control': 'max-age=10' });
    await store.get('http://o/a', { range: { start: 0, end: 49 } });
    c.advance(8_000);
    await store.get('http://o/a', { range: { start: 50, end: 99 } });
    assert.equal((await store.get('http://o/a', { range: { start: 0, end: 99 } })).fromCache, true, 'made of the two cached pieces');
    c.advance(3_000); // its first piece's 10 s are over
    o.put('http://o/a', { 'cache-control': 'max-age=10' });
    const again = await store.get('http://o/a', { range: { start: 0, end: 99 } });
    assert.deepEqual([again.bytes[0], again.bytes[99]], [2, 2]);
    assert.deepEqual(o.calls.at(-1), { url: 'http://o/a', validators: null, range: { start: 0, end: 99 } });
  });

  it('pieces of two versions are never put together: the stale piece\'s new bytes have another ETag, so the range is asked whole', async () => {
    const o = versionedOrigin();
    const c = clock();
    const store = createObjectStore({ fetcher: o.fetcher, maxBytes: 1e6, now: c.now });
    o.put('http://o/a', { 'cache-control': 'max-age=10', etag: '' });
    await store.get('http://o/a', { range: { start: 0, end: 49 } });
    c.advance(8_000);
    o.put('http://o/a', { 'cache-control': 'max-age=10', etag: '' }); // replaced: the second piece is version 2
    await store.get('http://o/a', { range: { start: 50, end: 99 } });
    const both = await store.get('http://o/a', { range: { start: 0, end: 99 } });
    assert.deepEqual([both.bytes[0], both.bytes[99]], [2, 2], 'version 1\'s piece (fresh still) is not mixed with version 2\'s');
    assert.deepEqual(o.calls.at(-1)?.range, { start: 0, end: 99 });
  });
});
