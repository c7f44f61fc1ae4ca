// The paths a source remembers per client: the latest estimate, forgotten when old or when too
// many clients came after it, and nothing stored that would not start an in-flight limit.
import assert from 'node:assert/strict';
import { createPathCache, createInflightLimit, PATH_CACHE_MAX_AGE_MS } from '@mutp/protocol';

describe('path cache', () => {
  it('gives the latest estimate for a key, a copy, until it is older than its age limit', () => {
    const c = createPathCache();
    c.set('a', { rate: 0.5, minRttMs: 50 }, 0);
    c.set('a', { rate: 0.8, minRttMs: 48 }, 10);
    const p = c.get('a', 10 + PATH_CACHE_MAX_AGE_MS);
    assert.deepEqual(p, { rate: 0.8, minRttMs: 48 });
    /** @type {any} */ (p).rate = 99;
    assert.equal(c.get('a', 20)?.rate, 0.8);
    assert.equal(c.get('b', 20), null);
    assert.equal(c.get('a', 11 + PATH_CACHE_MAX_AGE_MS), null);
    assert.equal(c.size, 0, 'an expired entry is dropped');
  });

  it('forgets the least recently stored key past maxEntries', () => {
    const c = createPathCache({ maxEntries: 2 });
    c.set('a', { rate: 1, minRttMs: 1 }, 0);
    c.set('b', { rate: 1, minRttMs: 1 }, 1);
    c.set('a', { rate: 2, minRttMs: 1 }, 2); // a is now the newest
    c.set('c', { rate: 1, minRttMs: 1 }, 3);
    assert.equal(c.size, 2);
    assert.equal(c.get('b', 3), null);
    assert.equal(c.get('a', 3)?.rate, 2);
  });

  it('keeps the older estimate when a download measured nothing usable', () => {
    const c = createPathCache();
    c.set('a', { rate: 0.5, minRttMs: 50 }, 0);
    for (const bad of [null, { rate: 0, minRttMs: 50 }, { rate: 1, minRttMs: 0 }, { rate: NaN, minRttMs: 5 }, { rate: 1, minRttMs: Infinity }]) {
      c.set('a', /** @type {any} */ (bad), 1);
    }
    assert.deepEqual(c.get('a', 1), { rate: 0.5, minRttMs: 50 });
  });

  it('a limit started from a cached path allows its bandwidth-delay product at once, a fresh one its initial packets', () => {
    const c = createPathCache();
    c.set('client', { rate: 0.75, minRttMs: 50 }, 0); // ~896 KiB/s of 1200-byte packets, RTT 50 ms
    const kept = createInflightLimit({ path: c.get('client', 1) });
    const fresh = createInflightLimit({ path: c.get('other', 1) });
    assert.ok(kept.cap() >= 0.75 * 50, `cap ${kept.cap()}`);
    assert.ok(fresh.cap() < kept.cap());
  });
});
