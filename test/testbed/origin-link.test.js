// The testbed's origin behind a link of its own (--origin-delay-ms, --origin-rate): a proxy's
// fetch of an object it has not cached pays that link's round trips and rate, and no more than
// the link allows (a delay on the origin's own sends throttled its TCP twentyfold: delay.js).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireOrSkip } from '@mutp/testkit/require-tool';
import { startTestbed } from '@mutp/testbed/testbed';
import { parseRates, parseRate } from '@mutp/testbed/rates';

const TAG = 'ol'; // namespaces mtb-ol-*, apart from the other testbed tests'
const SUBNET = '10.219.8';
const KIB = 1024;
const ORIGIN_DELAY_MS = 20; // one way: the proxy↔origin RTT grows by 40 ms
const ORIGIN_RATE = '1MiB';
const OBJECT_KIB = 512; // 0.5 s at the origin's rate
const HANDSHAKE_AND_REQUEST_RTTS = 2; // a new TCP connection to the origin, then the GET
const AT_MOST_TIMES_THE_LINK = 3; // slow start and the shaper's burst stay well inside this

describe('testbed: the origin behind a link of its own', function () {
  this.timeout(120_000);
  /** @type {Awaited<ReturnType<typeof startTestbed>>} */
  let tb;

  before(async function () {
    requireOrSkip(this, { commands: ['ip', 'tc', 'iptables', 'clang'], root: true });
    tb = await startTestbed({ rates: parseRates('1x896KiB'), dir: mkdtempSync(join(tmpdir(), 'mtb-origin-')), tag: TAG, subnet: SUBNET, origoDb: ':memory:',
      originDelayMs: ORIGIN_DELAY_MS, originRate: { text: ORIGIN_RATE, bps: parseRate(ORIGIN_RATE) } });
  });
  after(async () => {
    await tb?.close();
  });

  it('a proxy\'s fetch of an uncached object costs the link\'s round trips and rate, and stays near them', async () => {
    assert.equal(tb.originLink?.delay?.rttMs, 2 * ORIGIN_DELAY_MS);
    assert.equal(tb.originLink?.rateBps, parseRate(ORIGIN_RATE));
    const p = tb.proxies[0];
    const ask = () => tb.download({ url: tb.objectUrl(OBJECT_KIB, 1), mode: 'range-http', proxies: [{ id: p.id, url: p.url }] });
    // the proxy fetches the object (its first share goes out while the origin still sends, its head
    // telling the time to the origin's head); then its copy answers, its head telling the whole fetch's time
    assert.equal((await ask()).error, undefined);
    const r = await ask();
    assert.equal(r.error, undefined);
    assert.equal(r.stats.netBytes, OBJECT_KIB * KIB);
    const linkMs = HANDSHAKE_AND_REQUEST_RTTS * 2 * ORIGIN_DELAY_MS + (OBJECT_KIB * KIB / parseRate(ORIGIN_RATE)) * 1000;
    const fetchMs = r.stats.serverFetchMs;
    console.log(`      origin fetch of ${OBJECT_KIB} KiB: ${fetchMs.toFixed(0)} ms (the link alone: ${linkMs.toFixed(0)} ms)`);
    assert.ok(fetchMs >= linkMs * 0.95, `${fetchMs} ms: faster than the origin's link allows`);
    assert.ok(fetchMs <= linkMs * AT_MOST_TIMES_THE_LINK, `${fetchMs} ms: the emulation throttles the origin's TCP`);
  });
});
