// The proxy list with tickets, shared between page loads through session storage: the next page
// takes it without asking Origo, unless it is from another Origo, too old, or malformed; a proxy
// failure forgets it for every page.
import assert from 'node:assert/strict';
import { createProxyCache, LIST_TTL_MS } from '../src/frame/proxy-cache.js';

const LIST = [{ id: 'p1', url: 'http://p1.test/', ticket: 't1' }, { id: 'p2', url: 'http://p2.test/', ticket: null }];

function session() {
  /** @type {any} */
  let v = null;
  return { get: async () => v, set: async (x) => { v = x; }, peek: () => v, poke: (x) => { v = x; } };
}

function page(store, clock, origo = 'http://origo.test') {
  const asked = [];
  const cache = createProxyCache({ client: () => ({ proxies: async (q) => { asked.push(q); return LIST.map((p) => ({ ...p, location: null })); } }), now: () => clock.t, origo: () => origo, shared: store });
  return { cache, asked };
}

describe('extension frame: proxy list shared between page loads', () => {
  it('a second page takes the first page\'s list and tickets without asking Origo', async () => {
    const store = session();
    const clock = { t: 1000 };
    const a = page(store, clock);
    assert.deepEqual(await a.cache.list({}), LIST);
    assert.equal(a.asked.length, 1);
    assert.equal(store.peek(), null, 'not handed on before a download through it worked');
    await a.cache.worked();
    clock.t += 5000;
    const b = page(store, clock);
    assert.deepEqual(await b.cache.list({}), LIST);
    assert.equal(b.asked.length, 0, 'no Origo round trip on the next page');
    clock.t += LIST_TTL_MS - 4000;
    await b.cache.list({});
    assert.equal(b.asked.length, 1, 'the taken list ages from when Origo made it: its tickets do');
  });

  it('not taken: from another Origo, older than the TTL, malformed; a proxy failure forgets it for all pages', async () => {
    const store = session();
    const clock = { t: 1000 };
    const first = page(store, clock).cache;
    await first.list({});
    await first.worked();
    const other = page(store, clock, 'http://other-origo.test');
    await other.cache.list({});
    assert.equal(other.asked.length, 1, 'another Origo');
    await other.cache.worked();
    clock.t += LIST_TTL_MS + 1;
    const late = page(store, clock, 'http://other-origo.test');
    await late.cache.list({});
    assert.equal(late.asked.length, 1, 'too old');
    await late.cache.worked();
    store.poke({ ...store.peek(), list: [{ id: 'p1', url: 42, ticket: null }] });
    const bad = page(store, clock, 'http://other-origo.test');
    await bad.cache.list({});
    assert.equal(bad.asked.length, 1, 'malformed');
    bad.cache.invalidate();
    await new Promise((r) => setImmediate(r));
    assert.equal(store.peek(), null);
  });
});
