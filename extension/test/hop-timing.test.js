// Per-hop timing of a segment: the fleet host's marks with ProxyClientLib's own, in the record
// only when settings.hopTiming asks; the bench's line-up of those marks with the page's times.
import assert from 'node:assert/strict';
import { createClient } from '@mutp/proxyclientlib';
import { createRequestServer } from '../src/frame/serve-requests.js';
import { createHops, HOP_MARKS } from '../src/frame/hop-timing.js';
import { parseSettings } from '../src/shared/settings.js';
import { compilePatterns } from '../src/shared/patterns.js';
import { hopDurations, afterFirstByte, HOPS } from '../bench/hops.js';
import { startFakeProxy } from '@mutp/testkit/fake-proxy';

const ORIGIN = 'http://origin.test';
const PATTERNS = ['origin.test/media/*'];
const quiet = { warn: () => {} };

describe('hop timing', function () {
  this.timeout(30_000);

  it('createHops: the first chunk mark is the first one; the record names the range and the time origin', () => {
    let t = 10;
    const hops = createHops(() => t);
    t = 11; hops.mark('libraryAt');
    hops.library({ listedAt: 11.5, sentAt: 12, firstByteAt: 13, doneAt: null });
    t = 14; hops.mark('firstChunkAt');
    t = 15; hops.mark('firstChunkAt'); // later chunks do not move it
    t = 16; hops.mark('endAt');
    const r = hops.record({ start: 0, end: 99 });
    assert.equal(r.range, '0-99');
    assert.equal(r.origin, Math.round(performance.timeOrigin * 10) / 10);
    assert.deepEqual(HOP_MARKS.map((k) => r[k]), [10, 11, 11.5, 12, 13, 14, undefined, 16]);
    assert.equal(createHops(() => 0).record(null).range, null);
  });

  it('settings: hopTiming is off unless a boolean turns it on', () => {
    assert.equal(parseSettings({}).settings.hopTiming, false);
    assert.equal(parseSettings({ hopTiming: true }).settings.hopTiming, true);
    const bad = parseSettings({ hopTiming: 'yes' });
    assert.equal(bad.settings.hopTiming, false);
    assert.equal(bad.problems.length, 1);
  });

  for (const hopTiming of [true, false]) {
    it(`the segment's record ${hopTiming ? 'carries every mark, in order' : 'carries no hops when hopTiming is off'}`, async () => {
      const ps = [await startFakeProxy(), await startFakeProxy()];
      const lib = createClient({ origo: null, logger: quiet });
      try {
        const refs = ps.map((p, i) => ({ id: `p${i}`, url: p.url }));
        const client = { download: (/** @type {string} */ url, /** @type {any} */ o) => lib.download(url, { ...o, proxies: refs }) };
        const records = [];
        const posted = [];
        const settings = { enabled: true, patterns: PATTERNS, detect: 'off', mode: 'parallel-http', n: 2, randomModes: [], randomN: [], proximity: false, location: null, hopTiming };
        const server = createRequestServer({
          state: () => ({ settings: /** @type {any} */ (settings), matches: compilePatterns(PATTERNS), client }),
          port: { postMessage: (m) => posted.push(m) }, toBackground: (m) => { if (m.t === 'record') records.push(m.record); }, logger: quiet,
        });
        await server.onPageMessage({ t: 'get', id: 1, url: `${ORIGIN}/media/demo-1MB.bin`, range: { start: 1000, end: 300_999 } });
        assert.equal(posted.at(-1).t, 'end');
        assert.equal(records.length, 1);
        const h = records[0].hops;
        if (!hopTiming) return assert.equal(h, undefined);
        assert.equal(h.range, '1000-300999');
        const marks = HOP_MARKS.map((k) => h[k]);
        assert.ok(marks.every((v) => typeof v === 'number'), `missing marks: ${JSON.stringify(h)}`);
        for (let i = 1; i < marks.length; i++) assert.ok(marks[i] >= marks[i - 1], `${HOP_MARKS[i]} before ${HOP_MARKS[i - 1]}: ${JSON.stringify(h)}`);
      } finally {
        lib.close();
        for (const p of ps) await p.close();
      }
    });
  }

  it('bench: a record is matched to the page response of its URL and range, and each hop is the span between its marks', () => {
    const origin = 1000;
    const hops = { origin, range: '0-9', receivedAt: 5, libraryAt: 6, listedAt: 7, sentAt: 8, firstByteAt: 20, firstChunkAt: 22, doneAt: 30, endAt: 31 };
    const responses = [
      { url: 'http://a/x', range: 'bytes=10-19', startAt: 0, endAt: 0 }, // another range of the same URL
      { url: 'http://a/x', range: 'bytes=0-9', startAt: 1003, endAt: 1040 },
    ];
    const [d, ...rest] = hopDurations([{ url: 'http://a/x', hops }, { url: 'http://a/none', hops }], responses);
    assert.equal(rest.length, 0, 'a record without a page response is left out');
    assert.deepEqual(HOPS.map(([name]) => d[name]), [2, 1, 1, 1, 12, 2, 8, 1, 9]);
    assert.equal(d.total, 37);
  });

  it('bench: a segment\'s time after its first byte carries the mode its record ran in and its URL and range', () => {
    const origin = 1000;
    const hops = { origin, range: '0-9', receivedAt: 5, libraryAt: 6, listedAt: 7, sentAt: 8, firstByteAt: 20, firstChunkAt: 22, doneAt: 30, endAt: 31 };
    const responses = [
      { url: 'http://a/x', range: 'bytes=0-9', startAt: 1003, endAt: 1040 },
      { url: 'http://a/y', range: 'bytes=0-9', startAt: 1003, endAt: 1050 },
      { url: 'http://a/z', range: 'bytes=0-9', startAt: 1003, endAt: 1050 },
    ];
    const noFirstByte = { ...hops, firstByteAt: undefined };
    const got = afterFirstByte([
      { url: 'http://a/x', mode: 'coded', hops },
      { url: 'http://a/y', mode: 'parallel-http', hops },
      { url: 'http://a/z', mode: 'coded', hops: noFirstByte }, // no first byte marked: left out
    ], responses);
    assert.deepEqual(got, [{ key: 'http://a/x 0-9', mode: 'coded', ms: 20 }, { key: 'http://a/y 0-9', mode: 'parallel-http', ms: 30 }]);
  });
});
