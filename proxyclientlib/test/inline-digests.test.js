// The digest list a body response carries (DIGEST_LIST_HEADER): Parallel HTTP votes with it and
// asks no proxy for its list; without it the list is asked for, as before.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createClient } from '../index.js';
import { parseInlineDigests } from '../src/http/proxy-fetch.js';
import { demoBytes } from '@mutp/demo/media';
import { startFakeProxy } from '@mutp/testkit/fake-proxy';
import { encodeDigestList, digestList, MAX_INLINE_DIGEST_LIST_BYTES } from '@mutp/protocol';

const ORIGIN = 'http://origin.test';
const sha = (/** @type {Uint8Array} */ b) => createHash('sha256').update(b).digest('hex');
const quiet = { warn: () => {} };

describe('HTTP modes: digest lists in the body response', function () {
  this.timeout(30_000);
  const started = [];
  afterEach(async () => { await Promise.all(started.splice(0).map((p) => p.close())); });

  for (const inlineDigests of [true, false]) {
    it(`parallel-http ${inlineDigests ? 'asks no proxy for its list when the response carries it' : 'without lists in the responses'}; byte-exact, verified`, async () => {
      // bodies held after their first blocks, so each proxy's list (asked or carried) is in before the end
      const ps = await Promise.all([0, 1, 2].map(() => startFakeProxy({ inlineDigests, holdAfterBytes: 150_000 })));
      started.push(...ps);
      const client = createClient({ origo: null, logger: quiet });
      /** @type {() => void} */
      let firstVerified = () => {};
      const verifiedBytes = new Promise((resolve) => { firstVerified = () => resolve(undefined); });
      const done = client.download(`${ORIGIN}/media/demo-1MB.bin`, {
        mode: 'parallel-http', range: '1000-300999', proxies: ps.map((p, i) => ({ id: `p${i}`, url: p.url })),
        onProgress: (p) => { if (p.chunks.length) firstVerified(); },
      });
      await verifiedBytes;
      await new Promise((r) => setTimeout(r, 100)); // a list asked after its response's head reaches the proxy meanwhile
      const listRequests = ps.flatMap((p) => p.requests.filter((r) => r.digests)).length;
      for (const p of ps) p.release();
      const { data, stats } = await done;
      client.close();
      assert.equal(sha(data), sha(demoBytes(1 << 20).subarray(1000, 301000)));
      assert.equal(stats.verified, true);
      assert.equal(listRequests, inlineDigests ? 0 : 3, 'list requests');
    });
  }

  it('parseInlineDigests: the encoded list, or null for absent, oversized or non-base64 values', () => {
    const list = encodeDigestList(digestList(demoBytes(300_000)));
    assert.deepEqual(parseInlineDigests(Buffer.from(list).toString('base64')), list);
    assert.equal(parseInlineDigests(null), null);
    assert.equal(parseInlineDigests('not base64!'), null);
    assert.equal(parseInlineDigests('A'.repeat(4 * Math.ceil((MAX_INLINE_DIGEST_LIST_BYTES + 3) / 3))), null);
  });
});
