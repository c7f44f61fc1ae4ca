// Real downloads carry each proxy's advertised rate into their record, so Origo's rate_mix column
// and the analysis page's "N + proxy-rate mix" grouping work on real records, not only seeded ones.
import assert from 'node:assert/strict';
import { createClient } from '@mutp/proxyclientlib';
import { startFleet } from '@mutp/testkit/fleet';

const KIB = 1024;
/** The paper's heterogeneous fleet (FIGURE 11): one fast proxy and three at the base rate (bytes/s). */
const RATES = [1792 * KIB, 896 * KIB, 896 * KIB, 896 * KIB];
const RATE_MIX = '1x1792+3x896';
const MODES = ['parallel-http', 'range-http', 'uncoded', 'coded'];
const PASSWORD = 'rate mix test password 0123';

describe('integration: real records grouped by rate mix', function () {
  this.timeout(120_000);
  /** @type {Awaited<ReturnType<typeof startFleet>>} */
  let fleet;
  /** @type {ReturnType<typeof createClient>} */
  let client;
  before(async () => {
    fleet = await startFleet({ proxyCount: RATES.length, rates: RATES, adminPassword: PASSWORD });
    client = createClient({ origo: fleet.origo.url, logger: { warn() {} } });
  });
  after(async () => {
    client?.close();
    await fleet?.close();
  });

  it('every mode: perProxy[].uploadRateBps from Origo, rate_mix stored, one analysis box per mode at N=4 + the mix', async () => {
    for (const mode of MODES) {
      const { stats } = await client.download(`${fleet.origin.url}/media/demo-1MB.bin`, { mode, proxies: RATES.length });
      assert.deepEqual(stats.perProxy.map((/** @type {any} */ p) => p.uploadRateBps).sort((a, b) => b - a), RATES, `${mode}: the advertised rates`);
    }
    // a caller-given list keeps the rates Origo listed
    const list = await client.proxies({ n: 2 });
    const { stats } = await client.download(`${fleet.origin.url}/media/demo-1B.bin`, { mode: 'parallel-http', proxies: list });
    assert.deepEqual(stats.perProxy.map((/** @type {any} */ p) => p.uploadRateBps), list.map((p) => p.uploadRateBps));
    assert.equal(await client.flushLogs(10_000), true, 'log queue drained');
    assert.equal(client.logCounters()?.rejected, 0);

    const login = await fetch(`${fleet.origo.url}/admin/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: PASSWORD }) });
    assert.equal(login.status, 204);
    const cookie = /** @type {string} */ (login.headers.get('set-cookie')).split(';')[0];
    const api = async (/** @type {string} */ path) => {
      const res = await fetch(`${fleet.origo.url}/admin/api/${path}`, { headers: { cookie } });
      assert.equal(res.status, 200, path);
      return res.json();
    };
    const rows = (await api('downloads?n=4')).rows;
    assert.equal(rows.length, MODES.length);
    for (const r of rows) assert.equal(r.rate_mix, RATE_MIX, `${r.mode}: rate_mix`);
    const plot = await api('boxplot?metric=goodput&groupBy=nRate');
    const boxes = plot.boxes.filter((/** @type {any} */ b) => b.group === `4|${RATE_MIX}`);
    assert.deepEqual(boxes.map((/** @type {any} */ b) => b.mode).sort(), [...MODES].sort(), 'one box per mode at "N=4, 1×1792 + 3×896"');
    for (const b of boxes) assert.equal(b.count, 1);
    assert.equal(plot.boxes.some((/** @type {any} */ b) => String(b.group).includes('?')), false, 'no record with an unknown rate');
  });
});
