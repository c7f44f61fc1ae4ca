import assert from 'node:assert/strict';
import { checksumTable, computeLayout, normalizeParams } from '@mutp/protocol';
import { checksumTableOf } from '../src/objects/digest-cache.js';

describe('proxy checksum-table cache', () => {
  const params = normalizeParams({}, 'coded');
  /** @param {Uint8Array} data */
  const hash = (data) => checksumTable(data, computeLayout('coded', data.byteLength, params));

  it('hashes a table once per object copy and key, and gives the table of the bytes asked for', () => {
    const bytes = new Uint8Array(100_000).map((_, i) => (i * 7) & 0xff);
    let computed = 0;
    const get = (/** @type {string} */ key, /** @type {Uint8Array} */ data) => checksumTableOf(bytes, key, () => {
      computed++;
      return hash(data);
    });
    const whole = get('coded all', bytes);
    assert.deepEqual(whole, hash(bytes));
    assert.equal(get('coded all', bytes), whole);
    assert.equal(computed, 1);
    const part = bytes.subarray(1000, 50_000);
    const ranged = get('coded 1000-49999', part);
    assert.equal(computed, 2, 'another range is another table');
    assert.deepEqual(ranged, hash(part));
    assert.notDeepEqual(ranged, whole);
  });

  it('keeps tables per object copy: a new copy of the same URL is hashed again', () => {
    const a = new Uint8Array(5000).fill(1);
    const b = new Uint8Array(5000).fill(2);
    const ta = checksumTableOf(a, 'k', () => hash(a));
    const tb = checksumTableOf(b, 'k', () => hash(b));
    assert.deepEqual(tb, hash(b));
    assert.notDeepEqual(ta, tb);
  });

  it('keeps a bounded number of tables per object, dropping the oldest', () => {
    const bytes = new Uint8Array(3000).fill(3);
    let computed = 0;
    const get = (/** @type {number} */ i) => checksumTableOf(bytes, `k${i}`, () => {
      computed++;
      return new Uint8Array([i]);
    });
    for (let i = 0; i < 40; i++) get(i);
    assert.equal(computed, 40);
    get(39);
    assert.equal(computed, 40, 'the newest is still kept');
    get(0);
    assert.equal(computed, 41, 'the oldest was dropped');
  });
});
