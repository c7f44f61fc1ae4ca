// Read-ahead of single-file streams: which range follows an asked one, and the object store's
// rules (held ranges are not fetched again, clients keep their origin slots, a failed wider
// fetch does not fail the request that waited for it).
import assert from 'node:assert/strict';
import { BLOCK_BYTES } from '@mutp/protocol';
import { readAheadRange, READ_AHEAD_FACTOR, MAX_READ_AHEADS_IN_FLIGHT } from '../src/objects/read-ahead.js';
import { createObjectStore } from '../src/objects/object-store.js';

const B = BLOCK_BYTES;

describe('readAheadRange', () => {
  it('starts at the block of the asked range\'s last byte and runs READ_AHEAD_FACTOR lengths past it, in whole blocks', () => {
    const r = readAheadRange({ start: 0, end: 149_999 }, 10_000_000, 8 << 20);
    assert.deepEqual(r, { next: { start: 2 * B, end: 5 * B - 1 }, fetch: { start: 2 * B, end: 7 * B - 1 } });
    assert.equal(READ_AHEAD_FACTOR, 2);
    // an HTTP mode's span of whole blocks: the next download's first block may be its last one
    assert.equal(readAheadRange({ start: 2 * B, end: 5 * B - 1 }, null, 8 << 20)?.fetch.start, 4 * B);
  });

  it('stops at the object\'s end, and at the byte cap', () => {
    assert.equal(readAheadRange({ start: 0, end: 999 }, 1000, 8 << 20), null, 'nothing after the last byte');
    assert.deepEqual(readAheadRange({ start: 0, end: 99_999 }, 150_000, 8 << 20)?.fetch, { start: B, end: 149_999 });
    assert.deepEqual(readAheadRange({ start: 0, end: 4 * B - 1 }, null, 5 * B)?.fetch, { start: 3 * B, end: 8 * B - 1 }, 'at most 5 blocks');
    assert.equal(readAheadRange({ start: 0, end: 4 * B - 1 }, null, 4 * B), null, 'the next range alone passes the cap');
  });
});

describe('object store read-ahead', () => {
  /** A fetcher over a 4 MiB object honouring ranges (refusing ranges that reach `failFrom`); `hold` keeps answers until `release`. */
  function rangedFetcher({ failFrom = Infinity } = {}) {
    const whole = new Uint8Array(4 << 20).map((_, i) => (i * 7) & 0xff);
    /** @type {string[]} */
    const calls = [];
    /** @type {(() => void)[]} */
    const held = [];
    let holding = false;
    const fetcher = async (/** @type {string} */ url, /** @type {any} */ o) => {
      const r = o?.range;
      calls.push(`${r.start}-${r.end}`);
      if (holding) await new Promise((res) => held.push(() => res(undefined)));
      if (r.end >= failFrom) throw Object.assign(new Error('refused by test'), { code: 'ERR_ORIGIN_TOO_LARGE' });
      const end = Math.min(r.end, whole.length - 1);
      return { bytes: whole.slice(r.start, end + 1), contentType: 'video/mp4', range: { start: r.start, end }, total: whole.length };
    };
    return { fetcher, calls, whole, hold: () => { holding = true; }, release: () => { holding = false; for (const h of held.splice(0)) h(); } };
  }

  it('fetches the bytes after a range once; the next range is then a cache hit', async () => {
    const f = rangedFetcher();
    const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 64 << 20, readAheadBytes: 8 << 20 });
    await store.get('http://o/v', { range: { start: 0, end: 99_999 } });
    assert.equal(store.readAheadAfter('http://o/v', { start: 0, end: 99_999 }, 4 << 20), true);
    assert.equal(store.readAheadAfter('http://o/v', { start: 0, end: 99_999 }, 4 << 20), false, 'on its way already');
    const next = await store.get('http://o/v', { range: { start: 100_000, end: 199_999 } });
    assert.deepEqual(f.calls, ['0-99999', `100000-${5 * B - 1}`], 'the second range waited for the read-ahead (of the bytes not held)');
    assert.equal(next.bytes[100_000 - /** @type {any} */ (next.range).start], f.whole[100_000]);
    const again = await store.get('http://o/v', { range: { start: 100_000, end: 199_999 } });
    assert.equal(again.fromCache, true);
    assert.equal(store.stats().readAheads, 1);
  });

  it('leaves clients an origin slot, runs at most MAX_READ_AHEADS_IN_FLIGHT, and does nothing when off', async () => {
    const f = rangedFetcher();
    f.hold();
    const one = createObjectStore({ fetcher: f.fetcher, maxBytes: 64 << 20, readAheadBytes: 8 << 20, maxOriginFetches: 1 });
    assert.equal(one.readAheadAfter('http://o/a', { start: 0, end: 9 }, null), false, 'one origin slot: kept for clients');
    const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 64 << 20, readAheadBytes: 8 << 20 });
    const started = ['a', 'b', 'c'].map((name) => store.readAheadAfter(`http://o/${name}`, { start: 0, end: 9 }, null));
    assert.equal(MAX_READ_AHEADS_IN_FLIGHT, 2);
    assert.deepEqual(started, [true, true, false]);
    f.release();
    const off = createObjectStore({ fetcher: f.fetcher, maxBytes: 64 << 20 });
    assert.equal(off.readAheadAfter('http://o/d', { start: 0, end: 9 }, null), false);
  });

  it('a read-ahead that fails does not fail the request that waited for it: that range is asked for itself', async () => {
    const f = rangedFetcher({ failFrom: 3 * B });
    f.hold();
    const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 64 << 20, readAheadBytes: 8 << 20 });
    store.readAheadAfter('http://o/v', { start: 0, end: 99_999 }, null); // fetches blocks 1..4: refused past block 3
    const waiting = store.get('http://o/v', { range: { start: 100_000, end: 120_000 } });
    f.release();
    const got = await waiting;
    assert.deepEqual(got.range, { start: 100_000, end: 120_000 });
    assert.deepEqual(f.calls, [`${B}-${5 * B - 1}`, '100000-120000']);
    assert.equal(store.stats().readAheadFailures, 1);
  });
});
