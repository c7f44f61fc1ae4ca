// Coded MUTP on a link it shares with TCP: the client's download capped at 2 MiB/s with a
// bounded queue (the testbed's --client-cap), one long cubic TCP download to the client through
// the same queue, and 4 proxies at 896 KiB/s (3.5 MiB/s offered) at RTT 50 ms. The proxies'
// sender does not back off on random loss, so its pacer's congestion controller must yield to
// the queue: TCP keeps its share and the queue stays short. Then, without TCP and over a deep
// queue, the coded downloads alone must keep it near their controller's own queue target.
// Measured with the in-flight cap disabled (every allows() true): TCP kept 33.5% (54-64% with
// it), 854 drops instead of 81-198, and the deep queue's p95 rose from 18 to 108 ms.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireOrSkip, requireStepOrSkip, skipOrFail } from '@mutp/testkit/require-tool';
import { startTestbed, clientProxy } from '@mutp/testbed/testbed';
import { parseRates } from '@mutp/testbed/rates';
import { ensureDelayLine } from '@mutp/testbed/delay';
import { formatSharedLink } from '@mutp/testbed/shared-link';
import { tunedBuildPresent, TUNED_DIR } from '@mutp/proxy/wrtc';
import { INFLIGHT_QUEUE_TARGET_MS } from '@mutp/protocol';
import { demoBytes } from '@mutp/demo/media';

const TAG = 'fair'; // namespaces mtb-fair-*: distinct from the smoke run's and a campaign's
const SUBNET = '10.219.9'; // a /24 of its own for the same reason
const KIB = 1024;
const CAP_BPS = 2048 * KIB; // the client's access link
const QUEUE_MS = 100; // the testbed's default bound: 2 RTTs
const DELAY_MS = 25; // one way: RTT 50 ms, as the campaign
const SIZE_KIB = 1536; // a 1.5 MiB video segment
const DOWNLOADS = 13; // ~25 s of downloads beside TCP: many cubic sawteeth, within the time budget
const MIN_TCP_SHARE = 0.3; // TCP's fair share against one more application is 1/2; 0.3 leaves room for the downloads' gaps and ramps
const MAX_MEDIAN_QUEUE_MS = 100;
/** Two long senders into a 2-RTT queue keep the link full (measured 96-100%): less means the cap was not the bottleneck. */
const MIN_LINK_BUSY = 0.9;
/** The deep queue of the second part, ms: far more than any controller that keeps a small queue needs. */
const DEEP_QUEUE_MS = 500;
const ALONE_DOWNLOADS = 5; // ~1 s each at the cap
const PROXIES = 4;
/** Each source may keep its controller's queue target in the bottleneck: their sum bounds the p95, ms. */
const MAX_ALONE_P95_QUEUE_MS = PROXIES * INFLIGHT_QUEUE_TARGET_MS;
const expectedSha = createHash('sha256').update(demoBytes(SIZE_KIB * KIB)).digest('hex');

describe('coded MUTP on a capped client link shared with cubic TCP (namespaces, RTT 50 ms)', function () {
  this.timeout(120_000);
  /** @type {Awaited<ReturnType<typeof startTestbed>>} */
  let tb;

  before(async function () {
    if (!tunedBuildPresent()) skipOrFail(this, `no tuned WebRTC build in ${TUNED_DIR} (npm run build:rtc)`);
    requireOrSkip(this, { commands: ['ip', 'tc', 'iptables', 'clang'], root: true });
    requireStepOrSkip(this, ensureDelayLine);
    tb = await startTestbed({
      rates: parseRates(`${PROXIES}x896KiB`), dir: mkdtempSync(join(tmpdir(), 'mtb-fair-')), tag: TAG, subnet: SUBNET, origoDb: ':memory:',
      delayMs: DELAY_MS, clientCap: { rateBps: CAP_BPS, queueMs: QUEUE_MS }, crossTcp: true,
    });
  });
  after(async () => {
    await tb?.close();
  });

  /**
   * @param {ReturnType<Awaited<ReturnType<typeof startTestbed>>['startSharedLink']> extends Promise<infer M> ? M : never} meter
   * @param {number} n
   */
  async function codedDownloads(meter, n) {
    const req = { url: tb.objectUrl(SIZE_KIB), mode: 'coded', proxies: tb.proxies.map(clientProxy) };
    const results = [];
    for (let i = 0; i < n; i++) results.push(await meter.measure(() => tb.download(req)));
    meter.stop();
    const s = meter.summary();
    console.log(formatSharedLink(s).replace(/^/gm, '      '));
    console.log(`      per download: ${results.map((r) => (r.error ? r.error.code : `${(r.stats.durationMs / 1000).toFixed(2)} s`)).join(', ')}`);
    results.forEach((r, i) => {
      assert.equal(r.error, undefined, `download ${i + 1}: ${JSON.stringify(r.error)}`);
      assert.equal(r.sha256, expectedSha, `download ${i + 1} is not the object, byte for byte`);
    });
    return s;
  }

  it(`leaves a cubic TCP flow ≥ ${MIN_TCP_SHARE * 100}% of the cap and a median queue ≤ ${MAX_MEDIAN_QUEUE_MS} ms`, async () => {
    const s = await codedDownloads(await tb.startSharedLink(), DOWNLOADS);
    assert.ok(s.cross, 'the cross TCP flow ran');
    assert.ok(s.cross.share >= MIN_TCP_SHARE, `TCP got ${(s.cross.share * 100).toFixed(1)}% of the cap while the coded downloads ran`);
    assert.ok(s.queueDelayMs.median <= MAX_MEDIAN_QUEUE_MS, `median queue delay ${s.queueDelayMs.median} ms`);
    assert.ok(s.linkBusy !== null && s.linkBusy >= MIN_LINK_BUSY, `the cap was the bottleneck: ${s.linkBusy} of it used`);
  });

  it(`alone, keeps a ${DEEP_QUEUE_MS} ms queue's p95 delay ≤ ${MAX_ALONE_P95_QUEUE_MS} ms (${PROXIES} × the controller's queue target)`, async () => {
    tb.setClientCap({ rateBps: CAP_BPS, queueMs: DEEP_QUEUE_MS });
    const s = await codedDownloads(await tb.startSharedLink({ cross: false }), ALONE_DOWNLOADS);
    assert.equal(s.cross, null);
    assert.ok(s.queueDelayMs.p95 <= MAX_ALONE_P95_QUEUE_MS, `p95 queue delay ${s.queueDelayMs.p95} ms over a ${DEEP_QUEUE_MS} ms queue`);
  });
});
