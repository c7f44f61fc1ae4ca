// Every mode downloads 1 B, 1 MB and 5 MB objects from a local origin through the real Origo and
// real proxies (HTTP and WebRTC on loopback), byte-exact (sha256), with N ∈ {1, 2, 4}.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createClient } from '@mutp/proxyclientlib';
import { demoBytes } from '@mutp/demo/media';
import { startFleet } from '@mutp/testkit/fleet';

const sha = (/** @type {Uint8Array} */ b) => createHash('sha256').update(b).digest('hex');
const SIZES = [{ name: '1B', size: 1 }, { name: '1MB', size: 1 << 20 }, { name: '5MB', size: 5 << 20 }];
const MODES = ['parallel-http', 'range-http', 'uncoded', 'coded'];

describe('integration: every mode × size × N, byte-exact', function () {
  this.timeout(120_000);
  /** @type {Awaited<ReturnType<typeof startFleet>>} */
  let fleet;
  /** @type {ReturnType<typeof createClient>} */
  let client;
  const expected = new Map(SIZES.map(({ size }) => [size, sha(demoBytes(size))]));
  before(async () => {
    fleet = await startFleet({ proxyCount: 4 });
    client = createClient({ origo: fleet.origo.url, logger: { warn: (...a) => console.warn(...a) } });
  });
  after(async () => {
    client?.close();
    await fleet?.close();
  });

  for (const mode of MODES) {
    for (const n of [1, 2, 4]) {
      it(`${mode}, N=${n}: 1 B, 1 MB, 5 MB`, async () => {
        for (const { name, size } of SIZES) {
          const { data, stats } = await client.download(`${fleet.origin.url}/media/demo-${name}.bin`, { mode, proxies: n });
          assert.equal(data.byteLength, size, `${name} length`);
          assert.equal(sha(data), expected.get(size), `${name} sha256`);
          assert.equal(stats.n, n);
          assert.equal(stats.mode, mode);
          assert.equal(stats.netBytes, size);
          assert.ok(stats.grossBytes >= size);
          assert.equal(stats.error, null);
        }
      });
    }
  }

  it('every record reached Origo and passed its schema', async () => {
    assert.equal(await client.flushLogs(10_000), true, 'log queue drained');
    const c = client.logCounters();
    assert.equal(c.rejected, 0, 'Origo rejected none of our records');
    assert.equal(c.stored, MODES.length * 3 * SIZES.length);
  });
});
