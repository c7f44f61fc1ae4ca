// The steps before the first byte in the HTTP modes' records (docs/log-record.md, requestSteps):
// real proxies tell, in each answer's Server-Timing, what the request waited for there (the
// origin, then its digests), and the client's time breakdown splits its request part by them.
import assert from 'node:assert/strict';
import { createClient } from '@mutp/proxyclientlib';
import { TIME_BREAKDOWN_PARTS } from '@mutp/protocol';
import { startProxy } from '../index.js';
import { startOrigin } from '@mutp/testkit/local-origin';
import { testBytes } from '@mutp/testkit/mutp-harness';

const BODY = testBytes(600_000, 9);
/** The origin answers after this long (ms): an uncached object's wait at the proxies shows it. */
const ORIGIN_DELAY_MS = 150;
const quiet = { info() {}, warn() {}, error() {}, debug() {} };

describe('HTTP modes: what the request waited for at the proxies, in the record', function () {
  this.timeout(30_000);
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  /** @type {Awaited<ReturnType<typeof startProxy>>[]} */ let proxies = [];

  before(async () => {
    origin = await startOrigin((_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': BODY.length });
        res.end(BODY);
      }, ORIGIN_DELAY_MS);
    });
    proxies = await Promise.all([0, 1, 2].map((i) => startProxy({ id: `h${i}`, port: 0, host: '127.0.0.1', allowPrivate: true, allowedHosts: [`127.0.0.1:${origin.port}`], logger: /** @type {any} */ (quiet) })));
  });
  after(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await origin.close();
  });

  it('a proxy\'s answer says its origin wait and preparation in Server-Timing, exposed across origins', async () => {
    const res = await fetch(`${proxies[0].url}/fetch?url=${encodeURIComponent(`${origin.url}/head.mp4`)}`);
    await res.arrayBuffer();
    const timing = String(res.headers.get('server-timing'));
    const origin_ = Number(/origin;dur=([0-9.]+)/.exec(timing)?.[1]);
    assert.ok(origin_ >= ORIGIN_DELAY_MS - 5, `origin ${timing}`);
    assert.match(timing, /prepare;dur=[0-9.]+/);
    assert.match(String(res.headers.get('access-control-expose-headers')), /Server-Timing/);
  });

  for (const mode of ['range-http', 'parallel-http']) {
    it(`${mode}: uncached, the origin's wait is its own part of the time to the first byte; cached, it is about 0`, async () => {
      const client = createClient({ origo: null, logger: quiet });
      const refs = proxies.map((p) => ({ id: p.id, url: p.url }));
      const url = `${origin.url}/${mode}.mp4`;
      const cold = await client.download(url, { mode, proxies: refs, log: false });
      assert.ok(Buffer.from(cold.data).equals(BODY), 'byte-exact');
      const s = /** @type {any} */ (cold.stats.requestSteps);
      const tb = /** @type {any} */ (cold.stats.timeBreakdown);
      assert.ok(s.originMs >= ORIGIN_DELAY_MS - 5, `origin ${s.originMs} ms`);
      assert.ok(s.answerMs >= s.originMs, `the first answer at ${s.answerMs} ms`);
      assert.equal(tb.originMs, Math.round(s.originMs * 10) / 10);
      if (mode === 'range-http') assert.ok(s.decidedMs >= s.answerMs && tb.voteMs >= 0, `the size vote at ${s.decidedMs} ms`);
      else assert.equal(s.decidedMs, null, 'Parallel HTTP sends no vote before its bodies');
      const sum = TIME_BREAKDOWN_PARTS.slice(0, TIME_BREAKDOWN_PARTS.indexOf('sourceStartMs')).reduce((a, k) => a + (tb[k] ?? 0), 0);
      assert.ok(Math.abs(sum - /** @type {number} */ (cold.stats.firstPacketMs)) <= 0.3, `the request's parts ${sum} add up to the first byte ${cold.stats.firstPacketMs}`);
      const warm = await client.download(url, { mode, proxies: refs, log: false });
      assert.ok(/** @type {any} */ (warm.stats.requestSteps).originMs < 20, `cached: origin ${/** @type {any} */ (warm.stats.requestSteps).originMs} ms`);
    });
  }
});
