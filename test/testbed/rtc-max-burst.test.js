// The proxy's tuned WebRTC build (proxy/native, `npm run build:rtc`) really sets usrsctp's max
// burst to SCTP_MAX_BURST_PACKETS: on a kept association that went idle, that many packets of a
// burst leave in the first round trip (all of them when disabled). The stock build cuts cwnd to
// flight + 10 packets after each output pass: ~10 arrive in the first round trip, the rest wait
// for SACKs.
// Two namespaces, the testbed's delay line (RTT 2·25 ms); the sender is the proxy's own
// signalling and WebRTC selection (proxy/src/rtc), the receiver the client's connectPeer with the
// stock build. MUTP_RTC_BUILD=stock runs the sender on the stock build: the test then fails.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireOrSkip, requireStepOrSkip, skipOrFail } from '@mutp/testkit/require-tool';
import { createPair, destroyPair, nodeIn } from '@mutp/testkit/netns';
import { ensureDelayLine, startDelay } from '@mutp/testbed/delay';
import { tunedBuildPresent, TUNED_DIR } from '@mutp/proxy/wrtc';
import { SCTP_MAX_BURST_PACKETS } from '@mutp/proxy/rtc-limits';
import { startRtcSender } from './rtc-sender.js';

const DELAY_MS = 25; // one way: RTT 50 ms, as the campaign
const PORT = 40171;
const WARMUP_MESSAGES = 1500; // ~1.8 MB: slow start opens cwnd far past BURST
const BURST = 60; // messages of 1200 B, 72 KB: below the 128 KiB send buffer
const ROUNDS = 3;
const IDLE_MS = 300; // every packet of the previous round is acked: flight is 0
/** Arrivals counted within this of the burst's first (ms): less than one RTT, so no SACK-clocked packet. */
const WITHIN_MS = 2 * DELAY_MS - 10;
const STOCK_MAX_BURST = 10; // libdatachannel's default
/** Packets of the burst in its first RTT with the tuned setting. */
const EXPECT_FIRST_RTT = SCTP_MAX_BURST_PACKETS < 0 ? BURST : Math.min(BURST, SCTP_MAX_BURST_PACKETS);
/** Counted arrivals may differ from the window by a packet or two (the stock build: 9 of 10). */
const SLACK_PACKETS = 3;

const url = (/** @type {string} */ spec) => import.meta.resolve(spec);

// Proxy side (namespace B): each text message [round, n] asks for n messages of 1200 B whose
// first byte is the round.
const ON_MESSAGE = `
const [round, n] = JSON.parse(String(ev.data));
const payload = new Uint8Array(1200);
payload[0] = round;
for (let i = 0; i < n; i++) channel.send(payload);
`;

// Client side (namespace A): warm-up, then ROUNDS bursts after an idle pause each; prints, per
// round, how many arrived and how many within WITHIN_MS of the first.
const RECEIVER = `
const [connectUrl, polyfillUrl, proxyUrl, warmup, burst, rounds, idleMs, withinMs] = process.argv.slice(1);
const { connectPeer } = await import(connectUrl);
const { RTCPeerConnection } = await import(polyfillUrl);
const link = await connectPeer({ url: proxyUrl, RTCPeerConnection, hedgeAfterMs: 0 });
const ch = link.channel;
ch.binaryType = 'arraybuffer';
let onData = () => {};
ch.addEventListener('message', (ev) => onData(new Uint8Array(ev.data)[0], performance.now()));
const ask = (round, n, timeoutMs) => new Promise((resolve) => {
  const times = [];
  const timer = setTimeout(() => resolve(times), timeoutMs);
  onData = (r, t) => { if (r === round && times.push(t) === n) { clearTimeout(timer); resolve(times); } };
  ch.send(JSON.stringify([round, n]));
});
const warm = await ask(1, Number(warmup), 20000);
const out = { warmup: warm.length, rounds: [] };
for (let r = 0; r < Number(rounds); r++) {
  await new Promise((res) => setTimeout(res, Number(idleMs)));
  const t = await ask(2 + r, Number(burst), 5000);
  out.rounds.push({ got: t.length, firstRtt: t.filter((x) => x - t[0] < Number(withinMs)).length });
}
console.log(JSON.stringify(out));
link.close();
process.exit(0);
`;

describe('proxy WebRTC build: SCTP max burst lifted (namespaces, RTT 50 ms)', function () {
  this.timeout(120_000);
  /** @type {ReturnType<typeof createPair>} */
  let net;
  /** @type {import('@mutp/testbed/delay').DelayInfo} */
  let delay;
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let sender;

  before(async function () {
    if (!tunedBuildPresent()) skipOrFail(this, `no tuned WebRTC build in ${TUNED_DIR} (npm run build:rtc)`);
    requireOrSkip(this, { commands: ['ip', 'tc', 'iptables', 'clang'], root: true });
    requireStepOrSkip(this, ensureDelayLine);
    net = createPair('mxb');
    const logFile = join(mkdtempSync(join(tmpdir(), 'mtb-mxb-')), 'delayline.log');
    delay = await startDelay({ hostNs: net.a, hostDev: net.devA, peerNs: net.b, peerDev: net.devB, delayMs: DELAY_MS, logFile });
  });
  after(() => {
    sender?.kill();
    delay?.stop();
    if (net) destroyPair(net);
  });

  it('after an idle pause, SCTP_MAX_BURST_PACKETS of a burst arrive in the first round trip (stock: ~10)', async () => {
    const started = await startRtcSender({ ns: net.b, ip: net.ipB, port: PORT, onMessage: ON_MESSAGE,
      env: { MUTP_RTC_BUILD: process.env.MUTP_RTC_BUILD || 'tuned', MUTP_SCTP_MAX_BURST: '' } });
    sender = started.proc;
    const build = started.build;
    const out = JSON.parse(await nodeIn(net.a, RECEIVER, [
      url('@mutp/proxyclientlib/connect-peer'), url('node-datachannel/polyfill'), `http://${net.ipB}:${PORT}`,
      String(WARMUP_MESSAGES), String(BURST), String(ROUNDS), String(IDLE_MS), String(WITHIN_MS),
    ]));
    const firsts = out.rounds.map((/** @type {{firstRtt: number}} */ r) => r.firstRtt).sort((a, b) => a - b);
    console.log(`      sender ${build.kind} (maxBurst ${build.maxBurst}), ${delay.method}: warm-up ${out.warmup}/${WARMUP_MESSAGES};` +
      ` per round ${out.rounds.map((/** @type {{got: number, firstRtt: number}} */ r) => `${r.firstRtt}/${r.got}`).join(', ')} of ${BURST} within ${WITHIN_MS} ms`);
    assert.ok(out.rounds.every((/** @type {{got: number}} */ r) => r.got === BURST), 'every burst arrived whole');
    const median = firsts[Math.floor(firsts.length / 2)];
    assert.ok(EXPECT_FIRST_RTT >= 2 * STOCK_MAX_BURST, 'the tuned setting must differ measurably from the stock one');
    assert.ok(Math.abs(median - EXPECT_FIRST_RTT) <= SLACK_PACKETS,
      `median ${median} of ${BURST} messages within the first round trip; SCTP_MAX_BURST_PACKETS ${SCTP_MAX_BURST_PACKETS} lets ${EXPECT_FIRST_RTT}`);
    assert.equal(build.kind, 'tuned');
    assert.equal(build.maxBurst, SCTP_MAX_BURST_PACKETS);
  });
});
