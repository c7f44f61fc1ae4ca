// A packet log in columns (POST /api/logs/v2): the same entries back, exactly; a log the columns
// cannot say exactly is left as it is; columns from the network are checked as they are read.
import assert from 'node:assert/strict';
import { packetLogColumns, packetLogFromColumns } from '../src/packet-log-columns.js';
import { ReceivedLog } from '../src/received-log.js';

const MAX = 100_000;

describe('packet log in columns', () => {
  it('a client\'s log comes back entry for entry (times to 0.01 ms, every source index, dofAfter null or not)', () => {
    const received = new ReceivedLog(4);
    let t = 1000.123456;
    for (let k = 0; k < 5000; k++) {
      t += (k % 7) * 0.0371 + (k % 97 === 0 ? 40 : 0); // bursts (the same 0.01 ms step twice) and gaps
      received.add(t, k % 32, k % 5 !== 0, Math.floor(k * 0.8));
    }
    const { packetLog } = received.toRecord(1000);
    const log = /** @type {Array<[number, number, number, number | null]>} */ (packetLog);
    log[3][3] = null; // a packet with no rank to report
    log[4][3] = 2; // a rank lower than the one before
    const columns = packetLogColumns(log);
    assert.ok(columns);
    assert.deepEqual(packetLogFromColumns(JSON.parse(JSON.stringify(columns)), MAX), log);
    assert.ok(JSON.stringify(columns).length < JSON.stringify(log).length / 2, 'smaller as JSON');
    assert.deepEqual(packetLogFromColumns(packetLogColumns([]), MAX), []);
  });

  it('a log the columns cannot say exactly gets none: a time off the 0.01 ms grid or below 0, a source index over 31, a bad flag or rank', () => {
    for (const entry of [[1.005, 0, 1, 1], [-0.01, 0, 1, 1], [1, 32, 1, 1], [1, 1.5, 1, 1], [1, 0, 2, 1], [1, 0, 1, -1], [1, 0, 1, 0.5], [NaN, 0, 1, 1]]) {
      assert.equal(packetLogColumns([[0.5, 0, 1, 1], /** @type {any} */ (entry)]), null, JSON.stringify(entry));
    }
  });

  it('refuses columns that are not four of one length, or hold a value out of range, saying which', () => {
    const good = { dt: [1, 2], source: '0v', useful: '10', ddof: [1, 0] };
    assert.deepEqual(packetLogFromColumns(good, MAX), [[0.01, 0, 1, 1], [0.03, 31, 0, 1]]);
    for (const [bad, why] of /** @type {[unknown, RegExp][]} */ ([
      [null, /an object/],
      [[1, 2], /an object/],
      [{ ...good, dt: '1,2' }, /arrays dt and ddof/],
      [{ ...good, source: [0, 1] }, /strings source and useful/],
      [{ ...good, useful: '1' }, /differ in length/],
      [{ ...good, ddof: [1] }, /differ in length/],
      [{ ...good, dt: [1, -1] }, /dt\[1\]/],
      [{ ...good, dt: [1, 0.5] }, /dt\[1\]/],
      [{ ...good, dt: [Number.MAX_SAFE_INTEGER, 1] }, /dt\[1\]/],
      [{ ...good, source: '0w' }, /source\[1\]/],
      [{ ...good, useful: '12' }, /useful\[1\]/],
      [{ ...good, ddof: [1, -2] }, /ddof\[1\]/],
      [{ ...good, ddof: [1, 0.5] }, /ddof\[1\]/],
      [{ ...good, ddof: ['1', 0] }, /ddof\[0\]/],
    ])) {
      assert.throws(() => packetLogFromColumns(bad, MAX), why, JSON.stringify(bad));
    }
    assert.throws(() => packetLogFromColumns(good, 1), /2 entries; at most 1/);
  });
});
