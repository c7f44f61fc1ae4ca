// The demo page's files (`npm start`'s /player/): asked again on every load, answered 304 while
// unchanged, so a browser reuses what it compiled; a changed file comes whole with a new tag.
import assert from 'node:assert/strict';
import { startDemoOrigin } from '@mutp/demo/origin';

describe('demo origin: the demo page\'s files are revalidated, not refetched', function () {
  let origin;
  let origo = 'http://127.0.0.1:1';
  const plugin = new TextEncoder().encode('export const plugin = 1;\n');

  before(async () => {
    origin = await startDemoOrigin({ player: { origo: () => origo, pluginFile: async (rel) => (rel === 'mutp-players.js' ? { type: 'text/javascript', body: plugin } : null) } });
  });
  after(() => origin?.close());

  const get = (/** @type {string} */ p, /** @type {Record<string, string>} */ headers = {}) => fetch(`${origin.url}${p}`, { headers });

  for (const p of ['/player/', '/player/plugin/mutp-players.js', '/player/config.json']) {
    it(`${p}: no-cache with a tag; the same tag gets 304 and no body`, async () => {
      const first = await get(p);
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('cache-control'), 'no-cache');
      const etag = first.headers.get('etag');
      assert.match(String(etag), /^"[\w-]{22}"$/);
      assert.ok((await first.arrayBuffer()).byteLength > 0);
      const again = await get(p, { 'if-none-match': String(etag) });
      assert.equal(again.status, 304);
      assert.equal(again.headers.get('etag'), etag);
      assert.equal((await again.arrayBuffer()).byteLength, 0);
    });
  }

  it('a changed file: its old tag gets the new body, with a new tag', async () => {
    const old = await get('/player/config.json');
    const oldTag = String(old.headers.get('etag'));
    origo = 'http://127.0.0.1:2';
    const changed = await get('/player/config.json', { 'if-none-match': oldTag });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.get('etag'), oldTag);
    assert.equal((await changed.json()).origo, 'http://127.0.0.1:2');
  });

  it('a file that is not there: 404, with no tag', async () => {
    const r = await get('/player/nothing.js');
    assert.equal(r.status, 404);
    assert.equal(r.headers.get('etag'), null);
  });
});
