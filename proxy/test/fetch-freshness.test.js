// /fetch and an origin that replaces a file it says not to store: a request of another download
// gets the new bytes; the requests of the download the copy was fetched for (its share, then its
// digest list) all see the one version it got first.
import assert from 'node:assert/strict';
import { startProxy } from '../index.js';
import { startOrigin, captureLogger } from '@mutp/testkit/local-origin';

describe('proxy: /fetch of an object its origin replaces', function () {
  this.timeout(20_000);
  /** @type {Awaited<ReturnType<typeof startProxy>>} */ let proxy;
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  let version = 1;

  before(async () => {
    origin = await startOrigin((req, res) => {
      res.writeHead(200, { 'content-type': 'video/iso.segment', 'content-length': '1000', 'cache-control': 'no-store' });
      res.end(Buffer.alloc(1000, version));
    });
    proxy = await startProxy({ allowPrivate: true, allowedHosts: [`127.0.0.1:${origin.port}`], logger: captureLogger().logger });
  });
  after(async () => {
    await proxy?.close();
    await origin?.close();
  });

  /** @param {string} [downloadId] */
  async function firstByte(downloadId) {
    const q = new URLSearchParams({ url: `${origin.url}/seg.m4s`, ...(downloadId ? { downloadId } : {}) });
    const res = await fetch(`${proxy.url}/fetch?${q}`);
    assert.equal(res.status, 200);
    return new Uint8Array(await res.arrayBuffer())[0];
  }

  it('no-store: each download asks the origin; one download\'s requests share its copy', async () => {
    assert.equal(await firstByte('d1'), 1);
    version = 2;
    assert.equal(await firstByte('d1'), 1, 'd1 sees the version it got first');
    const hits = origin.hits();
    assert.equal(await firstByte('d2'), 2);
    assert.equal(await firstByte(), 2, 'a request of no download');
    assert.equal(origin.hits(), hits + 2);
  });
});
