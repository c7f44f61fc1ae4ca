// The origin fetcher asks whether a kept copy is current: If-None-Match with its ETag, else
// If-Modified-Since with its Last-Modified; a 304 comes back as notModified with the 304's caching
// fields, and every answer carries its caching fields and arrival time.
import assert from 'node:assert/strict';
import { createOriginFetcher } from '../src/origin/fetch-origin.js';
import { startOrigin } from '@mutp/testkit/local-origin';

const LAST_MODIFIED = 'Tue, 01 Dec 2026 10:00:00 GMT';

describe('proxy: conditional origin requests', () => {
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  /** @type {ReturnType<typeof createOriginFetcher>} */ let fetcher;
  /** @type {import('node:http').IncomingHttpHeaders[]} */ const seen = [];

  before(async () => {
    origin = await startOrigin((req, res) => {
      seen.push(req.headers);
      const fields = req.url === '/tagged' ? { etag: '"v7"', 'cache-control': 'max-age=60' } : { 'last-modified': LAST_MODIFIED };
      if (req.headers['if-none-match'] === '"v7"' || req.headers['if-modified-since'] === LAST_MODIFIED) {
        res.writeHead(304, { ...fields, 'cache-control': 'max-age=120' }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': '3', ...fields }).end('abc');
    });
    fetcher = createOriginFetcher({ allowPrivate: true, isHostAllowed: () => true, maxObjectBytes: 1e6, originTimeoutMs: 5000 });
  });
  after(async () => {
    fetcher.close();
    await origin.close();
  });

  it('a plain fetch sends no validator and returns the caching fields with the bytes', async () => {
    const t0 = Date.now();
    const o = await fetcher.fetchOrigin(`${origin.url}/tagged`);
    assert.equal(Buffer.from(o.bytes).toString(), 'abc');
    assert.equal(o.notModified, false);
    assert.deepEqual(o.cacheHeaders, { etag: '"v7"', 'cache-control': 'max-age=60', date: o.cacheHeaders.date });
    assert.ok(o.receivedAt >= t0 && o.receivedAt <= Date.now());
    assert.equal(seen.at(-1)?.['if-none-match'], undefined);
  });

  it('with an ETag: If-None-Match (not If-Modified-Since); a 304 is notModified, with its own fields', async () => {
    const o = await fetcher.fetchOrigin(`${origin.url}/tagged`, { validators: { etag: '"v7"', lastModified: LAST_MODIFIED } });
    assert.equal(o.notModified, true);
    assert.equal(o.bytes.byteLength, 0);
    assert.equal(o.cacheHeaders['cache-control'], 'max-age=120');
    assert.equal(seen.at(-1)?.['if-none-match'], '"v7"');
    assert.equal(seen.at(-1)?.['if-modified-since'], undefined);
  });

  it('with Last-Modified alone: If-Modified-Since; a changed object comes whole', async () => {
    const same = await fetcher.fetchOrigin(`${origin.url}/dated`, { validators: { etag: null, lastModified: LAST_MODIFIED } });
    assert.equal(same.notModified, true);
    assert.equal(seen.at(-1)?.['if-modified-since'], LAST_MODIFIED);
    const changed = await fetcher.fetchOrigin(`${origin.url}/dated`, { validators: { etag: null, lastModified: 'Mon, 30 Nov 2026 10:00:00 GMT' } });
    assert.equal(changed.notModified, false);
    assert.equal(Buffer.from(changed.bytes).toString(), 'abc');
  });
});
