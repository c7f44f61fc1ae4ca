// A log batch's request body in Node: small ones as they are, larger ones gzipped, which Origo
// inflates back to the same JSON.
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { logBody, LOG_GZIP_FROM_BYTES } from '#log-body';

describe('log body (Node)', () => {
  it('a small batch goes as it is; a large one gzipped, inflating to the same JSON', async () => {
    const small = JSON.stringify([{ id: 'a' }]);
    assert.deepEqual(await logBody(small), { body: small, headers: { 'content-type': 'application/json' } });
    const large = JSON.stringify([{ id: 'b', packetLog: Array.from({ length: 4000 }, (_, i) => [i, i * 7 % 13, 'p1']) }]);
    assert.ok(large.length >= LOG_GZIP_FROM_BYTES);
    const { body, headers } = await logBody(large);
    assert.deepEqual(headers, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    assert.ok(body instanceof Uint8Array && body.byteLength < large.length / 2, 'smaller than the JSON');
    assert.equal(gunzipSync(body).toString('utf8'), large);
  });
});
