import assert from 'node:assert/strict';
import { parseCli, parseUrlList, UsageError, DEFAULT_ORIGO } from '../src/cli/args.js';
import { outputNames, summarize } from '../src/cli/batch.js';
import { buildRecord, redactUrl } from '../index.js';

describe('mutp argument parsing', () => {
  it('parses get with all options', () => {
    const a = /** @type {any} */ (parseCli(['get', 'http://h/x', '--mode', 'range-http', '--proxies', '3', '--origo', 'http://o:1', '-o', 'f', '--json', '--range', '0-9', '--window', '64'], {}));
    assert.deepEqual([a.command, a.urls, a.mode, a.proxies, a.origo, a.output, a.json, a.range, a.window], ['get', ['http://h/x'], 'range-http', 3, 'http://o:1', 'f', true, { start: 0, end: 9 }, 64]);
  });
  it('defaults: coded, 4 proxies, Origo from MUTP_ORIGO or 127.0.0.1:8080', () => {
    const a = /** @type {any} */ (parseCli(['get', 'http://h/x'], {}));
    assert.equal(a.mode, 'coded');
    assert.equal(a.proxies, 4);
    assert.equal(a.origo, DEFAULT_ORIGO);
    assert.equal(/** @type {any} */ (parseCli(['get', 'http://h/x'], { MUTP_ORIGO: 'http://e:2' })).origo, 'http://e:2');
  });
  it('refuses bad input with a UsageError', () => {
    for (const argv of [[], ['get'], ['get', 'ftp://h/'], ['get', 'http://h/', '--proxies', '1.5'], ['get', 'http://h/', '--proxies', '65'], ['get', 'http://h/', '--range', '5-1'],
      ['get', 'http://h/', '--lat', '10'], ['get', 'http://h/', '--lat', '91', '--lon', '0'], ['get', 'http://h/', '--origo', 'nope'], ['get', 'a', 'b'], ['get', 'http://h/', '-o', '-', '--json'], ['x'],
      ['get', 'http://h/a', 'http://h/b', '-o', 'f'], ['get', 'http://h/a', '-i', 'list', '-o', 'f'], ['get', 'http://h/a', '-o', 'f', '-O', 'd'], ['get', 'http://h/a', 'ftp://h/b']]) {
      assert.throws(() => parseCli(argv, {}), UsageError, argv.join(' '));
    }
  });
  it('several URLs, or a list file: in order, with an output folder', () => {
    const a = /** @type {any} */ (parseCli(['get', 'http://h/a', 'http://h/b', '-O', 'out', '-i', 'list.txt'], {}));
    assert.deepEqual([a.urls, a.outputDir, a.input, a.output], [['http://h/a', 'http://h/b'], 'out', 'list.txt', null]);
    assert.deepEqual(/** @type {any} */ (parseCli(['get', '-i', '-'], {})).urls, [], 'the list alone');
  });
  it('a list file: one URL a line, blank lines and # lines skipped; a bad line named by number', () => {
    assert.deepEqual(parseUrlList('# segments\r\nhttp://h/1.ts\n\n  https://h/2.ts#t=1  \n', 'l.txt'), ['http://h/1.ts', 'https://h/2.ts#t=1']);
    assert.throws(() => parseUrlList('http://h/1\nnot a url\n', 'l.txt'), (e) => e instanceof UsageError && /^l\.txt:2: not a URL/.test(e.message));
    assert.throws(() => parseUrlList('http://h/1\nfile:///etc/passwd\n', 'l.txt'), (e) => e instanceof UsageError && /^l\.txt:2: only http/.test(e.message));
    assert.throws(() => parseUrlList('# nothing\n\n', 'l.txt'), (e) => e instanceof UsageError && /no URLs/.test(e.message));
  });
});

describe('mutp get of several objects', () => {
  it('names each file after its URL\'s last segment: safe characters only, never a path, a taken name numbered', () => {
    assert.deepEqual(outputNames(['http://h/v/seg-1.ts?x=1', 'http://h/w/seg-1.ts', 'http://h/v/', 'http://h/a%2F..%2Fb', 'http://h/..', 'http://h/ü b.ts', 'http://h/seg-1.ts']),
      ['seg-1.ts', 'seg-1.ts.1', 'index', 'a_.._b', 'index.1', '__b.ts', 'seg-1.ts.2']);
  });
  it('sums what the downloads that worked delivered over the wall time; counts failed and untried ones', () => {
    const s = summarize(4, [{ stats: { netBytes: 1000, grossBytes: 1250 }, failed: false }, { stats: { netBytes: 0, grossBytes: 250 }, failed: true }, { stats: { netBytes: 3000, grossBytes: 3000 }, failed: false }], 2000, { opened: 2, reused: 4 });
    assert.deepEqual(s, { objects: 4, ok: 2, failed: 1, notTried: 1, netBytes: 4000, grossBytes: 4500, wallMs: 2000, goodputBps: 2000, normalizedGoodput: 4000 / 4500, connections: { opened: 2, reused: 4 } });
  });
});

describe('stats record', () => {
  it('derives rates (paper eq. 2) and redacts secret query values', () => {
    const r = buildRecord({ clientId: 'c', startedAt: '2026-01-01T00:00:00.000Z', mode: 'parallel-http', proxies: [{ id: 'a' }, { id: 'b' }],
      url: 'http://u:p@h/v?sig=SECRET&itag=22', objectBytes: 1000, grossBytes: 2000, netBytes: 1000, durationMs: 500, serverFetchMs: [10, 30, 20] });
    assert.equal(r.throughputBps, 4000);
    assert.equal(r.goodputBps, 2000);
    assert.equal(r.normalizedGoodput, 0.5);
    assert.equal(r.serverFetchMs, 20, 'median over proxies');
    assert.equal(r.n, 2);
    assert.ok(!r.url.includes('SECRET') && !r.url.includes('u:p'), r.url);
    assert.ok(r.url.includes('itag=22'));
    assert.equal(redactUrl('http://h/?token=x'), 'http://h/?token=REDACTED');
  });

  it('carries the time breakdown of its own fields (docs/log-record.md)', () => {
    const http = buildRecord({ clientId: 'c', startedAt: '2026-01-01T00:00:00.000Z', mode: 'parallel-http', proxies: [{ id: 'a' }, { id: 'b' }],
      url: 'http://h/v', objectBytes: 1000, grossBytes: 2000, netBytes: 1000, durationMs: 500, firstPacketMs: 100 });
    assert.deepEqual([http.timeBreakdown.method, http.timeBreakdown.requestMs, http.timeBreakdown.nonUsefulMs, http.timeBreakdown.transferMs], ['bytes', 100, 200, 200]);
    /** @type {Array<[number, number, number, number]>} */
    const packetLog = Array.from({ length: 100 }, (_, k) => [20 + k, 0, 1, k + 1]);
    const coded = buildRecord({ clientId: 'c', startedAt: '2026-01-01T00:00:00.000Z', mode: 'coded', proxies: [{ id: 'a' }], url: 'http://h/v',
      objectBytes: 100_000, grossBytes: 100_000, netBytes: 100_000, durationMs: 120, firstPacketMs: 20, packetLog,
      perProxy: [{ proxyId: 'a', bytes: 100_000, packets: 100, duplicates: 0, error: null }] });
    assert.equal(coded.timeBreakdown.method, 'packets');
    assert.equal(coded.timeBreakdown.requestMs, 20);
    assert.equal(coded.timeBreakdown.transferMs, 100);
    const connected = buildRecord({ clientId: 'c', startedAt: '2026-01-01T00:00:00.000Z', mode: 'coded', proxies: [{ id: 'a' }], url: 'http://h/v',
      objectBytes: 100_000, grossBytes: 100_000, netBytes: 100_000, durationMs: 120, firstPacketMs: 20, connectMs: 15, packetLog,
      perProxy: [{ proxyId: 'a', bytes: 100_000, packets: 100, duplicates: 0, error: null }] });
    assert.deepEqual([connected.connectMs, connected.timeBreakdown.connectMs, connected.timeBreakdown.requestMs], [15, 15, 5]);
  });
});
