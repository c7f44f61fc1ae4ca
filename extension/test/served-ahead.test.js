// Init sections downloaded ahead (served-ahead.js): what a download sent before the request goes
// to it at once with the request's id, the rest as it comes; failed, too large or too old ones
// are not handed out.
import assert from 'node:assert/strict';
import { createServedAhead, AHEAD_MAX_PER_PAGE, AHEAD_KEEP_MS, AHEAD_MAX_BYTES, AHEAD_STOPPED } from '../src/frame/served-ahead.js';

function harness() {
  let t = 0;
  /** @type {number[]} */
  const aborted = [];
  /** @type {string[]} */
  const why = [];
  const ahead = createServedAhead({ now: () => t, abort: (id, err) => { aborted.push(id); why.push(err.message); } });
  /** @type {any[]} */
  const sent = [];
  /** @type {any[]} */
  const records = [];
  const page = (/** @type {number} */ id) => ({ id, how: 'player', send: (/** @type {any} */ m) => sent.push(m), record: (/** @type {object} */ r, /** @type {string | null} */ seen) => records.push({ r, seen }) });
  return { ahead, aborted, why, sent, records, page, wait: (/** @type {number} */ ms) => { t += ms; } };
}
const data = (/** @type {number} */ bytes) => ({ t: 'data', buf: new ArrayBuffer(bytes) });

describe('extension frame: init sections downloaded ahead', () => {
  it('a request gets what came before it at once and the rest as it comes, with its own id; the record says ahead, with the request\'s how and no hop marks', () => {
    const h = harness();
    const a = /** @type {NonNullable<ReturnType<typeof h.ahead.start>>} */ (h.ahead.start('u1'));
    assert.ok(a.id < 0, 'never a page request\'s id');
    a.out.send({ ...data(10), id: a.id });
    a.out.send({ t: 'alive', id: a.id });
    assert.deepEqual(h.sent, []);
    assert.deepEqual(h.ahead.take('u1', h.page(7)), { id: a.id, running: true });
    assert.deepEqual(h.sent.map((m) => [m.t, m.id]), [['data', 7], ['alive', 7]]);
    a.out.send({ t: 'end', id: a.id });
    a.out.record({ url: 'u1', segment: 'ahead', hops: { sentAt: 1 } }, 'ahead');
    assert.deepEqual(h.sent.map((m) => [m.t, m.id]), [['data', 7], ['alive', 7], ['end', 7]]);
    assert.deepEqual(h.records, [{ r: { url: 'u1', segment: 'player', ahead: true }, seen: 'player' }]);
    assert.equal(h.ahead.take('u1', h.page(8)), null, 'taken once');
  });

  it('a finished download\'s records wait for the request; a failed one is not handed out', () => {
    const h = harness();
    const ok = /** @type {any} */ (h.ahead.start('ok'));
    ok.out.send({ ...data(3), id: ok.id });
    ok.out.send({ t: 'end', id: ok.id });
    ok.out.record({ url: 'ok' }, 'ahead');
    const bad = /** @type {any} */ (h.ahead.start('bad'));
    bad.out.send({ t: 'fail', id: bad.id, code: 'ERR_ALL_PROXIES_FAILED' });
    assert.deepEqual(h.records, []);
    assert.deepEqual(h.ahead.take('ok', h.page(1)), { id: ok.id, running: false });
    assert.deepEqual(h.records.map((x) => [x.r.segment, x.seen]), [['player', 'player']]);
    assert.equal(h.ahead.take('bad', h.page(2)), null, 'the request downloads anew');
  });

  it(`at most ${AHEAD_MAX_PER_PAGE} per page, each object once`, () => {
    const h = harness();
    assert.ok(h.ahead.start('a'));
    assert.equal(h.ahead.start('a'), null);
    for (let i = 1; i < AHEAD_MAX_PER_PAGE; i++) assert.ok(h.ahead.start(`k${i}`));
    assert.equal(h.ahead.start('one-more'), null);
  });

  it('one larger than an init section is stopped and not handed out', () => {
    const h = harness();
    const a = /** @type {any} */ (h.ahead.start('big'));
    a.out.send({ ...data(AHEAD_MAX_BYTES), id: a.id });
    assert.deepEqual(h.aborted, []);
    a.out.send({ ...data(1), id: a.id });
    assert.deepEqual(h.aborted, [a.id]);
    assert.deepEqual(h.why, [AHEAD_STOPPED.TOO_LARGE]);
    assert.equal(h.ahead.take('big', h.page(1)), null);
  });

  it(`one no request took within ${AHEAD_KEEP_MS} ms is dropped, and stopped if it still runs`, () => {
    const h = harness();
    const running = /** @type {any} */ (h.ahead.start('running'));
    const done = /** @type {any} */ (h.ahead.start('done'));
    done.out.send({ t: 'end', id: done.id });
    h.wait(AHEAD_KEEP_MS);
    assert.ok(h.ahead.take('done', h.page(1)), 'still kept at the limit');
    h.wait(1);
    assert.equal(h.ahead.take('running', h.page(2)), null);
    assert.deepEqual(h.aborted, [running.id]);
    assert.deepEqual(h.why, [AHEAD_STOPPED.UNASKED]);
  });

  it('the page\'s abort of a request stops the download ahead it took while that runs, and only then', () => {
    const h = harness();
    const a = /** @type {any} */ (h.ahead.start('a'));
    const b = /** @type {any} */ (h.ahead.start('b'));
    const stop = new Error('the page aborted the request');
    assert.equal(h.ahead.abortTaken(1, stop), false, 'not taken yet');
    h.ahead.take('a', h.page(1));
    h.ahead.take('b', h.page(2));
    b.out.send({ t: 'end', id: b.id });
    assert.equal(h.ahead.abortTaken(2, stop), false, 'ended: nothing to stop');
    assert.equal(h.ahead.abortTaken(1, stop), true);
    assert.deepEqual([h.aborted, h.why], [[a.id], [stop.message]]);
    assert.equal(h.ahead.abortTaken(1, stop), false, 'once');
  });
});
