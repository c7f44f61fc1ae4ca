// CI smoke run of the namespace testbed: 2 shaped proxies, real Origo/proxies/client, every
// mode once, the shaping verified, logs stored in Origo, and nothing left behind. The client's
// links carry a small one-way delay (netem, else shaping/delayline), so CI runs the delay path.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireOrSkip } from '@mutp/testkit/require-tool';
import { CONNECT_TIMES } from '@mutp/testkit/net-probes';
import { startTestbed } from '@mutp/testbed/testbed';
import { listNamespaces } from '@mutp/testbed/topology';
import { parseRates } from '@mutp/testbed/rates';
import { shapedClassStats } from '@mutp/testbed/links';
import { machineCpu, stolenShare } from '@mutp/testbed/proc-cpu';

const TAG = 'ci'; // namespaces mtb-ci-*: distinct from a campaign's (mtb-camp-*) running alongside
const SUBNET = '10.219.7'; // a /24 of its own for the same reason
const KIB = 1024;
const LIMIT_BPS = 896 * KIB;
const RATE_BITS = LIMIT_BPS * 8; // 7340032 bit/s, what htb must be configured with
const SHAPING_CHECK_KIB = 2048; // one proxy alone: a 2 MiB object takes ~2.3 s at 896 KiB/s
const TC_DISPLAY_ROUNDING_BITS = 1000; // tc shows 7340032 bit/s as "7340Kbit"
const SHAPER_SLACK = 1.1; // htb's burst and timing: never more than 10% over the limit
const QUEUE_DRAIN_MS = 300; // the shaper counts a packet when it leaves its queue (≤ 50 ms deep), Origo's log posts included
const TCP_HEADERS_AT_MOST = 1.08; // bytes on the wire per body byte over TCP: 1514-byte frames carry 1448
const WEBRTC_CHECK_KIB = 4096; // ~4.5 s at 896 KiB/s: a steady part of a few seconds after the connect
const WIRE_SAMPLE_MS = 100; // htb byte counter sampling period while the WebRTC download runs
const MAX_STOLEN_FOR_FILL = 0.05; // share of CPU time the host may take and the WebRTC fill still be asserted
const MODES = ['parallel-http', 'range-http', 'uncoded', 'coded'];
const CAMPAIGN = fileURLToPath(new URL('../../testbed/bin/campaign.js', import.meta.url));
const TESTBED = fileURLToPath(new URL('../../testbed/bin/testbed.js', import.meta.url));
const DELAY_MS = 5; // small, so CI runs the delay line without slowing the smoke run down
const CONNECT_PROBES = 5;

describe('testbed (network namespaces, smoke)', function () {
  this.timeout(120_000);
  /** @type {Awaited<ReturnType<typeof startTestbed>>} */
  let tb;

  before(async function () {
    requireOrSkip(this, { commands: ['ip', 'tc', 'iptables', 'clang'], root: true });
    tb = await startTestbed({ rates: parseRates('2x896KiB'), dir: mkdtempSync(join(tmpdir(), 'mtb-smoke-')), tag: TAG, subnet: SUBNET, origoDb: ':memory:', delayMs: DELAY_MS });
  });
  after(async () => {
    await tb?.close();
  });

  it('shapes every proxy\'s uplink with htb at 896 KiB/s and a lone download never beats it', async () => {
    for (const p of tb.proxies) {
      const configured = shapedClassStats(p.ns).rateBitsPerSec; // tc rounds to kbit for display
      assert.ok(Math.abs(configured - RATE_BITS) <= TC_DISPLAY_ROUNDING_BITS, `${p.id} htb rate ${configured}`);
    }
    const p = tb.proxies[0];
    const before = shapedClassStats(p.ns).bytes;
    const sentBefore = await tb.sentToClient();
    const r = await tb.download({ url: tb.objectUrl(SHAPING_CHECK_KIB), mode: 'parallel-http', proxies: [{ id: p.id, url: p.url }] });
    await new Promise((res) => setTimeout(res, QUEUE_DRAIN_MS));
    const sent = (await tb.sentToClient()).bytes - sentBefore.bytes;
    assert.equal(r.error, undefined);
    assert.equal(r.stats.netBytes, SHAPING_CHECK_KIB * KIB);
    const goodput = r.stats.netBytes / (r.stats.durationMs / 1000);
    console.log(`      one 896 KiB/s proxy, TCP: ${(goodput / KIB).toFixed(0)} KiB/s of payload`);
    assert.ok(goodput <= LIMIT_BPS * SHAPER_SLACK, `goodput ${goodput} B/s exceeds the shaped rate`);
    // every byte went through the shaper: the htb class counted at least the payload
    assert.ok(shapedClassStats(p.ns).bytes - before >= SHAPING_CHECK_KIB * KIB);
    // the testbed's count of what the proxies sent the client: the body and TCP/IP/Ethernet headers
    // (~4.5% with 1448-byte segments), no more
    assert.ok(sent >= SHAPING_CHECK_KIB * KIB && sent <= SHAPING_CHECK_KIB * KIB * TCP_HEADERS_AT_MOST, `${sent} bytes counted for ${SHAPING_CHECK_KIB} KiB`);
  });

  it('holds a WebRTC data channel (Uncoded MUTP) to 896 KiB/s within ±10% on the wire', async () => {
    const p = tb.proxies[1];
    /** @type {[number, number][]} [ms, htb class bytes] while the download runs */
    const samples = [];
    const sample = () => samples.push([performance.now(), shapedClassStats(p.ns).bytes]);
    sample();
    const machine0 = machineCpu();
    const timer = setInterval(sample, WIRE_SAMPLE_MS);
    const r = await tb.download({ url: tb.objectUrl(WEBRTC_CHECK_KIB), mode: 'uncoded', proxies: [{ id: p.id, url: p.url }] });
    clearInterval(timer);
    const stolen = stolenShare(machine0, machineCpu());
    sample();
    assert.equal(r.error, undefined);
    assert.equal(r.stats.netBytes, WEBRTC_CHECK_KIB * KIB);
    // the steady part: from a quarter to nine tenths of the bytes the shaper passed (no connect, no tail)
    const total = samples.at(-1)[1] - samples[0][1];
    const at = (/** @type {number} */ f) => /** @type {[number, number]} */ (samples.find(([, b]) => b - samples[0][1] >= f * total));
    const [t1, b1] = at(0.25);
    const [t2, b2] = at(0.9);
    const wire = (b2 - b1) / ((t2 - t1) / 1000);
    const goodput = r.stats.netBytes / (r.stats.durationMs / 1000);
    console.log(`      one 896 KiB/s proxy, WebRTC: ${(wire / KIB).toFixed(0)} KiB/s through the shaper in steady state (${((wire / LIMIT_BPS) * 100).toFixed(1)}%), ${(goodput / KIB).toFixed(0)} KiB/s of payload over the whole download; the host took ${(stolen * 100).toFixed(0)}% of the CPU`);
    assert.ok(wire <= LIMIT_BPS * SHAPER_SLACK, `${wire} B/s on the wire`);
    // Filling the link is the channel's speed, not the shaper's: it holds only on a machine whose
    // host gives it its CPU (at 20-25% steal this download ran at 22-33% of the rate).
    if (!(stolen <= MAX_STOLEN_FOR_FILL)) {
      console.log(`      not asserting that it fills the link: the host took ${(stolen * 100).toFixed(0)}% of the CPU`);
      return;
    }
    assert.ok(wire >= LIMIT_BPS / SHAPER_SLACK, `${wire} B/s on the wire`);
  });

  it(`gives the client's paths a round trip of 2·${DELAY_MS} ms (TCP connect to a proxy ≥ 2·D)`, () => {
    assert.equal(tb.delay?.delayMs, DELAY_MS);
    const p = tb.proxies[0];
    const out = execFileSync('ip', ['netns', 'exec', tb.topology.client.ns, process.execPath, '--input-type=module', '-e', CONNECT_TIMES, p.ip, new URL(p.url).port, String(CONNECT_PROBES)], { encoding: 'utf8' });
    const rtts = JSON.parse(out);
    console.log(`      ${tb.delay?.method}: TCP connect client → ${p.id} ${rtts.map((/** @type {number} */ t) => t.toFixed(1)).join(', ')} ms`);
    assert.ok(rtts[0] >= 2 * DELAY_MS, `fastest round trip ${rtts[0]} ms`);
  });

  it('runs TCP with cubic on every host, as the paper\'s servers did (bbr here by default ignores loss)', () => {
    assert.equal(tb.tcpCongestion, 'cubic');
    for (const n of [tb.topology.client, ...tb.proxies]) {
      assert.match(execFileSync('ip', ['-n', n.ns, 'route', 'show', `${SUBNET}.0/24`], { encoding: 'utf8' }), /congctl cubic/, n.ns);
    }
  });

  for (const mode of MODES) {
    it(`downloads a 1 MiB chunk through 2 proxies with ${mode}`, async () => {
      const req = { url: tb.objectUrl(1024), mode, proxies: tb.proxies.map((p) => ({ id: p.id, url: p.url })) };
      let r = await tb.download(req);
      if (/ERR_RTC_CONNECT_TIMEOUT/.test(r.error?.message ?? '')) {
        // ICE on 2 cores shared with other jobs can miss the client's 8 s connect deadline once; twice is a failure
        console.log(`      retrying once after ${r.error.message}`);
        r = await tb.download(req);
      }
      assert.equal(r.error, undefined, JSON.stringify(r.error));
      assert.equal(r.stats.mode, mode);
      assert.equal(r.stats.netBytes, 1024 * KIB);
      assert.equal(r.stats.n, 2);
      assert.ok(r.stats.grossBytes >= r.stats.netBytes);
    });
  }

  it('drops packets on a lossy link at the receiver, and removes the rule again', () => {
    tb.setLoss(2, [tb.proxies[0]]);
    const rules = execFileSync('ip', ['netns', 'exec', tb.topology.client.ns, 'iptables', '-S', 'INPUT'], { encoding: 'utf8' });
    assert.match(rules, new RegExp(`-s ${tb.proxies[0].ip.replaceAll('.', '\\.')}/32 .*--probability 0\\.02.*-j DROP`));
    tb.setLoss(0, [tb.proxies[0]]);
    assert.doesNotMatch(execFileSync('ip', ['netns', 'exec', tb.topology.client.ns, 'iptables', '-S', 'INPUT'], { encoding: 'utf8' }), /mtb-loss/);
  });

  it('stores the client\'s log records in Origo', async () => {
    const { flushed, counters, pending } = await tb.flushLogs();
    assert.equal(flushed, true, `${pending} records still queued: ${JSON.stringify(counters)}`);
    assert.ok(counters.stored >= MODES.length + 1, JSON.stringify(counters));
    assert.equal(counters.rejected, 0);
  });

  it('tears everything down on close', async () => {
    await tb.close();
    assert.deepEqual(listNamespaces(TAG), []);
  });

  it('refuses clearly without root', () => {
    for (const bin of [TESTBED, CAMPAIGN]) {
      const r = spawnSync('setpriv', ['--reuid', '65534', '--regid', '65534', '--clear-groups', process.execPath, bin], { encoding: 'utf8' });
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /ERR_NEED_ROOT: .*needs root/);
    }
  });
});
