import assert from 'node:assert/strict';
import { HEURISTIC_MAX_MS, UNDATED_FRESH_MS, cacheHeadersOf, freshnessOf, parseCacheControl, updatedHeaders } from '../src/objects/freshness.js';

const AT = Date.parse('Wed, 02 Dec 2026 04:00:00 GMT'); // when the response came
const httpDate = (/** @type {number} */ ms) => new Date(ms).toUTCString();

describe('proxy: how long an origin\'s response may be used (freshness)', () => {
  it('max-age, less the Age the response had and the time it took to come (Date before arrival)', () => {
    assert.equal(freshnessOf({ 'cache-control': 'public, max-age=60' }, AT).freshMs, 60_000);
    assert.equal(freshnessOf({ 'cache-control': 'max-age=60', age: '10' }, AT).freshMs, 50_000);
    assert.equal(freshnessOf({ 'cache-control': 'max-age=60', date: httpDate(AT - 5000) }, AT).freshMs, 55_000);
    assert.equal(freshnessOf({ 'cache-control': 'max-age=60', date: httpDate(AT + 5000) }, AT).freshMs, 60_000, 'an origin clock ahead adds nothing');
    assert.equal(freshnessOf({ 'cache-control': 'max-age=60', age: '90' }, AT).freshMs, 0);
  });

  it('s-maxage before max-age (a shared cache\'s own), and both before Expires', () => {
    assert.equal(freshnessOf({ 'cache-control': 'max-age=100, s-maxage=5' }, AT).freshMs, 5000);
    assert.equal(freshnessOf({ 'cache-control': 'max-age=100', expires: httpDate(AT + 10_000), date: httpDate(AT) }, AT).freshMs, 100_000);
  });

  it('Expires counts from the origin\'s Date; an Expires that does not parse ("0") is already past', () => {
    assert.equal(freshnessOf({ expires: httpDate(AT + 60_000), date: httpDate(AT) }, AT).freshMs, 60_000);
    assert.equal(freshnessOf({ expires: httpDate(AT + 60_000) }, AT).freshMs, 60_000, 'no Date: the arrival');
    assert.equal(freshnessOf({ expires: '0' }, AT).freshMs, 0);
    assert.equal(freshnessOf({ expires: httpDate(AT - 1000), date: httpDate(AT) }, AT).freshMs, 0);
  });

  it('no-cache and a bad max-age: kept but asked about before each use; no-store, private and Vary: * are not kept', () => {
    assert.deepEqual(freshnessOf({ 'cache-control': 'no-cache', etag: '"v1"' }, AT), { storable: true, freshMs: 0, etag: '"v1"', lastModified: null });
    assert.equal(freshnessOf({ 'cache-control': 'max-age=ten' }, AT).freshMs, 0);
    for (const h of [{ 'cache-control': 'no-store' }, { 'cache-control': 'private, max-age=60' }, { 'cache-control': 'max-age=60', vary: '*' }]) {
      assert.equal(freshnessOf(h, AT).storable, false, JSON.stringify(h));
    }
    assert.equal(freshnessOf({ 'cache-control': 'max-age=60', vary: 'Accept-Encoding' }, AT).storable, true);
  });

  it('no stated lifetime: a tenth of the Last-Modified age, at most a day; no Last-Modified either: UNDATED_FRESH_MS', () => {
    const lm = { 'last-modified': httpDate(AT - 600_000), date: httpDate(AT) };
    assert.deepEqual(freshnessOf(lm, AT), { storable: true, freshMs: 60_000, etag: null, lastModified: httpDate(AT - 600_000) });
    assert.equal(freshnessOf({ 'last-modified': httpDate(AT - 365 * 24 * 3600_000) }, AT).freshMs, HEURISTIC_MAX_MS);
    assert.equal(freshnessOf({}, AT).freshMs, UNDATED_FRESH_MS);
    assert.equal(freshnessOf({ etag: 'W/"x"' }, AT).etag, 'W/"x"');
  });

  it('reads Cache-Control as written: case, spaces, quoted values with commas, stray commas; the first of a repeat counts', () => {
    assert.deepEqual([...parseCacheControl(',,  MAX-AGE = 7 ,, no-store')], [['max-age', '7'], ['no-store', '']]);
    assert.deepEqual([...parseCacheControl('no-cache="set-cookie, x", max-age="9"')], [['no-cache', 'set-cookie, x'], ['max-age', '9']]);
    assert.deepEqual([...parseCacheControl('max-age=5, max-age=9')], [['max-age', '5']]);
    assert.deepEqual([...parseCacheControl('=x, public')], [['public', '']]);
    assert.equal(parseCacheControl(undefined).size, 0);
  });

  it('any header text an origin sends: parsed without a throw or a hang, and freshness a finite ms ≥ 0', () => {
    const alphabet = 'max-ge=,;" \\0123456789sn-torpivc\t*';
    let x = 7;
    const rand = (/** @type {number} */ n) => { x = (x * 1103515245 + 12345) >>> 0; return x % n; };
    for (let k = 0; k < 3000; k++) {
      const text = Array.from({ length: rand(40) }, () => alphabet[rand(alphabet.length)]).join('');
      const cc = parseCacheControl(text);
      assert.ok(cc instanceof Map);
      const f = freshnessOf({ 'cache-control': text, age: text.slice(0, 5), expires: text, date: text, 'last-modified': text, vary: text }, AT);
      assert.ok(Number.isFinite(f.freshMs) && f.freshMs >= 0, JSON.stringify(text));
    }
  });

  it('keeps only the caching fields of a response, a repeated one joined; a 304\'s fields replace the stored ones', () => {
    assert.deepEqual(cacheHeadersOf({ 'content-type': 'video/mp4', 'cache-control': ['max-age=5', 'public'], etag: '"a"' }), { 'cache-control': 'max-age=5, public', etag: '"a"' });
    assert.deepEqual(updatedHeaders({ etag: '"a"', 'cache-control': 'no-cache' }, { 'cache-control': 'max-age=60' }), { etag: '"a"', 'cache-control': 'max-age=60' });
  });
});
