import assert from 'node:assert/strict';
import { createObjectStore } from '../src/objects/object-store.js';
import { GrowingBody } from '../src/origin/growing-body.js';

/** A fetcher that counts calls and answers when the test says so. */
function controllableFetcher() {
  /** @type {Map<string, { resolve: (v: any) => void, reject: (e: Error) => void }[]>} */
  const waiting = new Map();
  const calls = [];
  /** @param {string} url */
  const fetcher = (url) => new Promise((resolve, reject) => {
    calls.push(url);
    waiting.set(url, [...(waiting.get(url) ?? []), { resolve, reject }]);
  });
  return {
    fetcher,
    calls,
    /** @param {string} url @param {number} size */
    answer(url, size) {
      for (const w of waiting.get(url) ?? []) w.resolve({ bytes: new Uint8Array(size).fill(size & 0xff), contentType: 'x/y' });
      waiting.delete(url);
    },
    /** @param {string} url @param {string} code */
    fail(url, code) {
      for (const w of waiting.get(url) ?? []) w.reject(Object.assign(new Error(code), { code }));
      waiting.delete(url);
    },
  };
}

/** An immediate fetcher returning `size` bytes for URLs like http://o/<size>/<name>. */
function sizedFetcher() {
  const calls = [];
  return {
    calls,
    fetcher: async (/** @type {string} */ url) => {
      calls.push(url);
      const size = Number(new URL(url).pathname.split('/')[1]);
      return { bytes: new Uint8Array(size), contentType: 'x/y' };
    },
  };
}

describe('object store (LRU by bytes + single-flight)', () => {
  it('N concurrent gets of one URL make one origin fetch, and all get the same bytes', async () => {
    const f = controllableFetcher();
    const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 1e6 });
    const gets = Array.from({ length: 10 }, () => store.get('http://o/a'));
    f.answer('http://o/a', 300);
    const got = await Promise.all(gets);
    assert.equal(f.calls.length, 1);
    for (const g of got) {
      assert.equal(g.bytes.length, 300);
      assert.equal(g.fromCache, false);
      assert.equal(typeof g.serverFetchMs, 'number');
    }
    const again = await store.get('http://o/a');
    assert.equal(again.fromCache, true);
    assert.equal(f.calls.length, 1);
  });

  it('treats spellings of one URL as one key', async () => {
    const f = sizedFetcher();
    const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 1e6 });
    await store.get('http://O:80/10/x');
    await store.get('HTTP://o/10/x');
    assert.equal(f.calls.length, 1);
  });

  it('evicts least recently used objects when the byte budget is exceeded', async () => {
    const f = sizedFetcher();
    const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 1000 });
    await store.get('http://o/400/a');
    await store.get('http://o/400/b');
    await store.get('http://o/400/a'); // a is now more recent than b
    await store.get('http://o/400/c'); // 1200 > 1000: b goes
    assert.equal(store.has('http://o/400/a'), true);
    assert.equal(store.has('http://o/400/b'), false);
    assert.equal(store.has('http://o/400/c'), true);
    assert.ok(store.stats().bytes <= 1000);
    assert.equal(f.calls.length, 3);
    await store.get('http://o/400/b');
    assert.equal(f.calls.length, 4, 'an evicted object is fetched again');
  });

  it('serves an object larger than the cache without keeping it', async () => {
    const f = sizedFetcher();
    const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 1000 });
    await store.get('http://o/400/a');
    const big = await store.get('http://o/5000/big');
    assert.equal(big.bytes.length, 5000);
    assert.equal(store.has('http://o/5000/big'), false);
    assert.equal(store.has('http://o/400/a'), true, 'a too-big object does not flush the cache');
  });

  it('does not cache failures: all waiters see the error, the next get retries', async () => {
    const f = controllableFetcher();
    const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 1e6 });
    const gets = [store.get('http://o/x'), store.get('http://o/x')];
    f.fail('http://o/x', 'ERR_ORIGIN_STATUS');
    for (const g of gets) await assert.rejects(g, { code: 'ERR_ORIGIN_STATUS' });
    const retry = store.get('http://o/x');
    f.answer('http://o/x', 5);
    assert.equal((await retry).bytes.length, 5);
    assert.equal(f.calls.length, 2);
  });

  it('one caller aborting does not abort the shared fetch for the others', async () => {
    const f = controllableFetcher();
    const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 1e6 });
    const ac = new AbortController();
    const leaving = store.get('http://o/y', { signal: ac.signal });
    const staying = store.get('http://o/y');
    ac.abort();
    await assert.rejects(leaving, { code: 'ERR_ABORTED' });
    f.answer('http://o/y', 7);
    assert.equal((await staying).bytes.length, 7);
  });

  describe('a range asked alone', () => {
    /** A fetcher over a 1000-byte object that honours ranges unless told not to; records what it was asked. */
    function rangedFetcher({ honour = true } = {}) {
      const whole = new Uint8Array(1000).map((_, i) => i & 0xff);
      /** @type {(string)[]} */
      const calls = [];
      const fetcher = async (/** @type {string} */ url, /** @type {any} */ o) => {
        const r = o?.range ?? null;
        calls.push(r ? `${url} ${r.start}-${r.end}` : url);
        if (!r || !honour) return { bytes: whole, contentType: 'video/mp4' };
        const end = Math.min(r.end, whole.length - 1);
        return { bytes: whole.slice(r.start, end + 1), contentType: 'video/mp4', range: { start: r.start, end }, total: whole.length };
      };
      return { fetcher, calls, whole };
    }

    it('asks the origin for that range, keeps it under the URL and range, and shares it while on its way', async () => {
      const f = rangedFetcher();
      const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 1e6 });
      const [a, b] = await Promise.all([store.get('http://o/v', { range: { start: 100, end: 199 } }), store.get('http://o/v', { range: { start: 100, end: 199 } })]);
      assert.deepEqual(f.calls, ['http://o/v 100-199']);
      assert.deepEqual([a.range, a.total, a.bytes.length, a.bytes[0]], [{ start: 100, end: 199 }, 1000, 100, 100]);
      assert.equal(b.bytes, a.bytes);
      const again = await store.get('http://o/v', { range: { start: 100, end: 199 } });
      assert.equal(again.fromCache, true);
      await store.get('http://o/v', { range: { start: 900, end: 1500 } });
      assert.deepEqual(f.calls, ['http://o/v 100-199', 'http://o/v 900-1500'], 'another range is another origin request');
    });

    it('answers a range that a cached range holds from it (up to the object\'s end), and forgets evicted ranges', async () => {
      const f = rangedFetcher();
      const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 700 });
      const span = await store.get('http://o/s', { range: { start: 0, end: 399 } });
      const inside = await store.get('http://o/s', { range: { start: 100, end: 199 } });
      assert.equal(inside.fromCache, true);
      assert.equal(inside.bytes, span.bytes, 'the holding copy itself; its range says where it starts');
      assert.deepEqual(inside.range, { start: 0, end: 399 });
      await store.get('http://o/s', { range: { start: 300, end: 499 } });
      assert.deepEqual(f.calls, ['http://o/s 0-399', 'http://o/s 400-499'], 'a range past the held bytes: the origin is asked for the rest');
      await store.get('http://o/s', { range: { start: 700, end: 5000 } }); // the object's end: 700-999
      const past = await store.get('http://o/s', { range: { start: 800, end: 2000 } });
      assert.equal(past.fromCache, true, 'held to the object\'s end');
      assert.equal(f.calls.length, 3);
      // 0-399, 300-499 and 700-999 pass the 700-byte budget: the oldest went, and is not answered from
      const again = await store.get('http://o/s', { range: { start: 100, end: 199 } });
      assert.equal(again.fromCache, false);
      assert.equal(f.calls.length, 4);
    });

    it('makes a range of cached ranges that hold parts of it, asking the origin for the bytes they lack only', async () => {
      const f = rangedFetcher();
      const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 1e6 });
      await store.get('http://o/p', { range: { start: 0, end: 399 } });
      await store.get('http://o/p', { range: { start: 400, end: 599 } });
      const held = await store.get('http://o/p', { range: { start: 100, end: 549 } });
      assert.equal(held.fromCache, true, 'the two held ranges make it');
      assert.deepEqual([held.range, held.total], [{ start: 100, end: 549 }, 1000]);
      assert.deepEqual(held.bytes, f.whole.slice(100, 550));
      assert.equal(f.calls.length, 2);
      const [a, b] = await Promise.all([store.get('http://o/p', { range: { start: 300, end: 899 } }), store.get('http://o/p', { range: { start: 300, end: 899 } })]);
      assert.deepEqual(f.calls.slice(2), ['http://o/p 600-899'], 'one origin request, for the bytes no range holds, shared');
      assert.deepEqual([a.fromCache, a.bytes, b.bytes], [false, f.whole.slice(300, 900), f.whole.slice(300, 900)]);
      const inside = await store.get('http://o/p', { range: { start: 650, end: 700 } });
      assert.deepEqual([inside.fromCache, inside.range], [true, { start: 300, end: 899 }], 'the range made is kept');
      const tail = await store.get('http://o/p', { range: { start: 800, end: 5000 } });
      assert.deepEqual([tail.range, tail.bytes], [{ start: 800, end: 999 }, f.whole.slice(800)], 'up to the object\'s end');
      assert.deepEqual(f.calls.slice(3), ['http://o/p 900-999'], 'the rest, to the end the held ranges say');
    });

    it('does not make a range of copies that disagree on the object\'s size (the origin replaced it)', async () => {
      let size = 1000;
      /** @type {string[]} */
      const calls = [];
      const fetcher = async (/** @type {string} */ url, /** @type {any} */ o) => {
        const r = o.range;
        calls.push(`${r.start}-${r.end}`);
        const end = Math.min(r.end, size - 1);
        return { bytes: new Uint8Array(end - r.start + 1).fill(size & 0xff), contentType: 'video/mp4', range: { start: r.start, end }, total: size };
      };
      const store = createObjectStore({ fetcher, maxBytes: 1e6 });
      await store.get('http://o/c', { range: { start: 0, end: 99 } });
      size = 2000;
      await store.get('http://o/c', { range: { start: 100, end: 199 } });
      assert.deepEqual(calls, ['0-99', '100-199'], 'the first copy\'s size did not cut the second');
      const got = await store.get('http://o/c', { range: { start: 50, end: 149 } });
      assert.deepEqual(calls.slice(2), ['50-149'], 'asked for itself');
      assert.equal(got.total, 2000);
    });

    it('takes the whole object when it is cached, and keeps the whole object an origin sent instead of the range', async () => {
      const f = rangedFetcher({ honour: false });
      const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 1e6 });
      const first = await store.get('http://o/w', { range: { start: 0, end: 9 } });
      assert.deepEqual([first.range, first.total, first.bytes.length], [null, 1000, 1000], 'the origin ignored Range: the whole object, said so');
      const later = await store.get('http://o/w', { range: { start: 500, end: 599 } });
      assert.equal(later.fromCache, true);
      assert.equal(later.range, null);
      assert.deepEqual(f.calls, ['http://o/w 0-9'], 'the whole object answers every later range');
      const plain = await store.get('http://o/w');
      assert.equal(plain.fromCache, true);
    });
  });

  describe('open: the object as it comes', () => {
    /** A fetcher that hands each fetch's body to the test as it comes. */
    function growingFetcher() {
      /** @type {{ url: string, body: GrowingBody, resolve: (v: any) => void, reject: (e: Error) => void }[]} */
      const fetches = [];
      /** @param {string} url @param {any} o */
      const fetcher = (url, o) => new Promise((resolve, reject) => {
        const body = new GrowingBody(1000, { contentType: 'x/y', range: null, total: 1000 });
        fetches.push({ url, body, resolve, reject });
        o?.onBody?.(body);
      });
      return { fetcher, fetches };
    }

    it('resolves at the head, fills as the body comes, and is one origin fetch with get(); the finished body is the cached copy', async () => {
      const f = growingFetcher();
      const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 1 << 20 });
      const opened = await store.open('http://o/a');
      const got = store.get('http://o/a');
      assert.equal(f.fetches.length, 1);
      /** @type {number[]} */
      const seen = [];
      opened.subscribe((n) => seen.push(n));
      assert.equal(opened.filled(), 0);
      f.fetches[0].body.append(new Uint8Array(400).fill(1));
      assert.equal(opened.filled(), 400);
      f.fetches[0].body.append(new Uint8Array(600).fill(2));
      assert.deepEqual(seen, [400, 1000]);
      f.fetches[0].resolve({ bytes: f.fetches[0].body.bytes, contentType: 'x/y' });
      const whole = await opened.done;
      assert.equal(whole.bytes, opened.bytes, 'no copy');
      assert.equal((await got).bytes, opened.bytes);
      const again = await store.open('http://o/a');
      assert.equal(again.fromCache, true);
      assert.equal(again.filled(), 1000);
    });

    it('a fetch that gives no body as it comes (no length said) opens whole at its end; a failure before the head rejects', async () => {
      const f = controllableFetcher();
      const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 1 << 20 });
      const opened = store.open('http://o/b');
      f.answer('http://o/b', 300);
      const o = await opened;
      assert.equal(o.filled(), 300);
      assert.equal(o.fromCache, false);
      const failing = store.open('http://o/c');
      f.fail('http://o/c', 'ERR_ORIGIN_STATUS');
      await assert.rejects(failing, { code: 'ERR_ORIGIN_STATUS' });
    });
  });
});
