// What cached ranges hold of an asked one, and the copy made of them.
import assert from 'node:assert/strict';
import { assemble, gapsIn, hullOf } from '../src/objects/range-cover.js';

describe('range cover', () => {
  it('gives the parts no held range covers, in order, whatever order the held ranges come in', () => {
    const asked = { start: 100, end: 999 };
    assert.deepEqual(gapsIn(asked, []), [asked]);
    assert.deepEqual(gapsIn(asked, [{ start: 0, end: 2000 }]), []);
    assert.deepEqual(gapsIn(asked, [{ start: 600, end: 700 }, { start: 0, end: 199 }, { start: 650, end: 899 }]),
      [{ start: 200, end: 599 }, { start: 900, end: 999 }]);
    assert.deepEqual(gapsIn(asked, [{ start: 100, end: 499 }, { start: 500, end: 999 }]), [], 'adjacent ranges leave no gap');
    assert.deepEqual(gapsIn(asked, [{ start: 0, end: 99 }, { start: 1000, end: 1100 }]), [asked], 'ranges beside it hold none of it');
  });

  it('spans every gap with one range', () => {
    assert.equal(hullOf([]), null);
    assert.deepEqual(hullOf([{ start: 200, end: 599 }, { start: 900, end: 999 }]), { start: 200, end: 999 });
  });

  it('copies each byte of the asked range from the pieces that hold it', () => {
    const object = new Uint8Array(1000).map((_, i) => (i * 13) & 0xff);
    const piece = (/** @type {number} */ start, /** @type {number} */ end) => ({ range: { start, end }, bytes: object.slice(start, end + 1) });
    const asked = { start: 150, end: 849 };
    const made = assemble(asked, [piece(500, 999), piece(0, 299), piece(250, 549)]);
    assert.deepEqual(made, object.slice(150, 850));
  });
});
