// A proxy that serves another object of the same size, its meta and packets consistent with it
// (a consistent liar, or an origin that changed between the proxies' fetches). Nothing from one
// proxy is believed alone: beside one honest proxy the download fails unresolved and names
// nobody; beside two it is outvoted and named, and the download is byte-exact.
import assert from 'node:assert/strict';
import { runPiped, assertByteExact, actionsOf } from './piped-download.js';
import { LATE_META_WAIT_MS } from '../src/download-constants.js';

const SIZE = 200_000;

/** @param {any} r */
const drops = (r) => actionsOf(r, 'drop').map((/** @type {any} */ d) => [d.source, d.code]);

describe('integrity: a consistent liar', function () {
  this.timeout(30_000);

  for (const mode of /** @type {const} */ (['coded', 'uncoded'])) {
    it(`${mode}, two proxies: ERR_INTEGRITY_UNRESOLVED, no byte delivered, nobody named`, async () => {
      const r = await runPiped({ mode, size: SIZE, n: 2, faults: { 0: { otherObject: true } } });
      assert.equal(r.end?.type, 'fail', `ended with ${r.end?.type}`);
      assert.equal(r.end.code, 'ERR_INTEGRITY_UNRESOLVED');
      assert.equal(r.deliveredBytes, 0);
      assert.deepEqual(drops(r).filter(([, code]) => code === 'ERR_INTEGRITY'), []);
    });

    if (mode === 'coded') {
      it('coded, checksums taken off the thread (a browser), two proxies: unresolved, nothing delivered, nobody named', async () => {
        const r = await runPiped({ mode, size: SIZE, n: 2, faults: { 1: { otherObject: true } }, hashMs: () => 2 });
        assert.equal(r.end?.code, 'ERR_INTEGRITY_UNRESOLVED', `ended with ${r.end?.type} ${r.end?.code}`);
        assert.equal(r.deliveredBytes, 0);
        assert.deepEqual(drops(r).filter(([, code]) => code === 'ERR_INTEGRITY'), []);
      });

      it('coded, checksums taken off the thread, a proxy lying in its meta only (its packets honest), two proxies: its packets show it; byte-exact', async () => {
        const flip = (/** @type {any} */ m) => (m.checksums ? { ...m, checksums: { ...m.checksums, values: m.checksums.values.map((/** @type {number} */ v) => v ^ 1) } } : m);
        const r = await runPiped({ mode, size: SIZE, n: 2, faults: { 1: { tamperMeta: flip } }, hashMs: () => 2 });
        assertByteExact(r);
        assert.deepEqual(drops(r), [[1, 'ERR_INTEGRITY']]);
      });
    }

    it(`${mode}, three proxies: the liar is outvoted and named; byte-exact`, async () => {
      const r = await runPiped({ mode, size: SIZE, n: 3, faults: { 0: { otherObject: true } } });
      assertByteExact(r);
      assert.deepEqual(drops(r), [[0, 'ERR_INTEGRITY']]);
    });
  }
});

describe('integrity: the layout vote waits for a strict majority', () => {
  it('three proxies, the first two give two sizes: the vote waits for the third past the quorum wait; the liar is outvoted; byte-exact', async () => {
    const shorter = (/** @type {any} */ m) => ({ ...m, totalSize: m.totalSize - 1 });
    const r = await runPiped({ mode: 'coded', size: SIZE, n: 3, faults: { 0: { tamperMeta: shorter }, 2: { metaDelayMs: 400 } } });
    assertByteExact(r);
    assert.deepEqual(drops(r), [[0, 'ERR_META_MISMATCH']]);
  });
});

describe('integrity: a proxy that leaves before the vote keeps its meta\'s votes', () => {
  for (const mode of /** @type {const} */ (['coded', 'uncoded'])) {
    it(`${mode}: an honest proxy gives its meta and its channel closes before the vote; with the other honest one it outvotes the liar; byte-exact`, async () => {
      const r = await runPiped({ mode, size: SIZE, n: 3, faults: { 0: { goneAfterMetaMs: 1 }, 1: { otherObject: true }, 2: { metaDelayMs: 100 } } });
      assertByteExact(r);
      assert.deepEqual(drops(r), [[0, 'ERR_PROXY_GONE'], [1, 'ERR_INTEGRITY']]);
    });
  }
});

describe('integrity: a tie waits for the metas still to come', () => {
  for (const mode of /** @type {const} */ (['coded', 'uncoded'])) {
    for (const lateMs of [400, 1500]) {
      it(`${mode}: a liar and an honest proxy tie, the other honest proxy's meta comes ${lateMs} ms later and breaks it; byte-exact`, async () => {
        const r = await runPiped({ mode, size: SIZE, n: 3, faults: { 0: { otherObject: true }, 2: { metaDelayMs: lateMs } } });
        assertByteExact(r);
        assert.deepEqual(drops(r), [[0, 'ERR_INTEGRITY']]);
      });
    }

    it(`${mode}: the third proxy never answers: after LATE_META_WAIT_MS the tie is the data's, unresolved, nothing delivered, nobody named`, async () => {
      const r = await runPiped({ mode, size: SIZE, n: 3, faults: { 0: { otherObject: true }, 2: { silent: true } } });
      assert.equal(r.end?.code, 'ERR_INTEGRITY_UNRESOLVED', `ended with ${r.end?.type} ${r.end?.code}`);
      assert.ok(r.end.t >= LATE_META_WAIT_MS && r.end.t < LATE_META_WAIT_MS + 1000, `failed at ${r.end.t} ms`);
      assert.equal(r.deliveredBytes, 0);
      assert.deepEqual(drops(r).filter(([, code]) => code === 'ERR_INTEGRITY'), []);
    });
  }

  it('coded, checksums taken off the thread (a browser): the late honest meta breaks the tie; byte-exact', async () => {
    const r = await runPiped({ mode: 'coded', size: SIZE, n: 3, faults: { 0: { otherObject: true }, 2: { metaDelayMs: 400 } }, hashMs: () => 2 });
    assertByteExact(r);
    assert.deepEqual(drops(r), [[0, 'ERR_INTEGRITY']]);
  });
});
