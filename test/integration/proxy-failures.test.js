// Proxies killed (SIGKILL of real proxy processes) mid-download.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createClient } from '@mutp/proxyclientlib';
import { demoBytes } from '@mutp/demo/media';
import { startFleet } from '@mutp/testkit/fleet';

const sha = (/** @type {Uint8Array} */ b) => createHash('sha256').update(b).digest('hex');
const ALL_FAILED_BOUND_MS = 10_000; // all proxies killed → a clear error within 10 s (a player falls back to a direct fetch well before its buffer runs out)
const quiet = { warn() {} };
const OBJECT_BYTES = 5 << 20; // demo-5MB.bin
/** A proxy killed at the download's first byte has sent at most its start-up window: far below half the object (MUTP). */
const KILLED_SHARE_MAX = 0.1;

describe('integration: proxies killed mid-download', function () {
  this.timeout(120_000);

  for (const mode of ['parallel-http', 'range-http', 'uncoded', 'coded']) {
    it(`${mode}: completes from the other proxy when one of 2 is killed at the first byte`, async () => {
      const fleet = await startFleet({ proxyCount: 2, processes: true });
      const client = createClient({ origo: fleet.origo.url, logger: quiet });
      try {
        const list = await client.proxies({ n: 2 });
        const victim = fleet.proxies.find((p) => p.id === list[0].id);
        let killed = false;
        const { data, stats } = await client.download(`${fleet.origin.url}/media/demo-5MB.bin`, {
          mode, proxies: list, log: false,
          onProgress: () => { if (!killed) { killed = true; victim.kill(); } },
        });
        assert.ok(killed, 'the victim was killed while bytes were flowing');
        assert.equal(sha(data), sha(demoBytes(5 << 20)));
        assert.equal(stats.error, null);
        const [dead, alive] = stats.perProxy;
        assert.equal(dead.proxyId, victim.id);
        const http = mode === 'parallel-http' || mode === 'range-http';
        if (http && dead.error === null) {
          // the victim's broken connection need not show: in Parallel HTTP the survivor's whole
          // copy can arrive first (the victim lost the race); in Range-split HTTP the victim's
          // first share can be whole in the client's socket buffer before the kill lands, and the
          // survivor then takes every later range. Either way the victim gave part of the object
          // and must be dead
          assert.ok(dead.bytes < OBJECT_BYTES, `the killed proxy delivered the whole object: ${dead.bytes}`);
          await assert.rejects(fetch(`${list[0].url}/healthz`), 'the victim still answers: it was not killed');
        } else if (http) {
          // its HTTP connection broke: the record says so
          assert.match(dead.error?.code ?? '', /^ERR_PROXY_/, `the killed proxy's error: ${JSON.stringify(dead.error)}`);
        } else {
          // a killed WebRTC peer sends no close; the download ends from the other proxy before silence
          // would drop it (only while the download stalls), so its packets simply stopped
          assert.ok(dead.bytes < KILLED_SHARE_MAX * OBJECT_BYTES, `the killed proxy delivered ${dead.bytes} bytes after the kill`);
        }
        assert.ok(alive.bytes >= OBJECT_BYTES - dead.bytes, `the survivor delivered the rest: ${alive.bytes}`);
      } finally {
        client.close();
        await fleet.close();
      }
    });

    it(`${mode}: all proxies killed → ERR_ALL_PROXIES_FAILED within 10 s`, async () => {
      const fleet = await startFleet({ proxyCount: 2, processes: true });
      const client = createClient({ origo: fleet.origo.url, logger: quiet });
      try {
        const list = await client.proxies({ n: 2 });
        let killed = false;
        const t0 = performance.now();
        let killedAt = 0;
        const err = await client.download(`${fleet.origin.url}/media/demo-5MB.bin`, {
          mode, proxies: list, log: false,
          onProgress: () => {
            if (killed) return;
            killed = true;
            killedAt = performance.now();
            for (const p of fleet.proxies) p.kill();
          },
        }).then(() => null, (e) => e);
        const after = performance.now() - (killedAt || t0);
        if (!killed) {
          // the whole object arrived before the first progress callback ran: impossible for 5 MB
          assert.fail('no progress was reported before completion');
        }
        assert.ok(err, 'the download must fail');
        assert.equal(err.code, 'ERR_ALL_PROXIES_FAILED');
        assert.equal(err.stats.error.code, 'ERR_ALL_PROXIES_FAILED');
        assert.ok(after < ALL_FAILED_BOUND_MS, `failed ${after.toFixed(0)} ms after the kill (bound ${ALL_FAILED_BOUND_MS} ms)`);
      } finally {
        client.close();
        await fleet.close();
      }
    });
  }
});
