// The proxy's tuned WebRTC build does not read random loss as congestion: on an unordered,
// maxRetransmits-0 data channel (every MUTP packet), goodput at 2% random loss stays near the
// lossless one. usrsctp's own sender (MUTP_SCTP_LOSS_TOLERANT=0) halves its window on each lost
// chunk and falls to a fraction of it. A benchmark with printed ratios; it asserts only the
// behaviour (the loss-tolerant sender keeps its rate, usrsctp's does not).
// Two namespaces, the testbed's delay line (RTT 2·25 ms); the sender's upload shaped to 896 KiB/s
// with shaping/shape (htb, 50 ms queue); loss dropped at each receiver's INPUT, both directions.
// The sender is the proxy's own signalling and WebRTC selection, paced by the application at
// SEND_RATE below the link, as the proxy's pacer does; the receiver the client's connectPeer.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireOrSkip, requireStepOrSkip, skipOrFail } from '@mutp/testkit/require-tool';
import { createPair, destroyPair, nodeIn } from '@mutp/testkit/netns';
import { ensureDelayLine, startDelay } from '@mutp/testbed/delay';
import { SHAPE } from '@mutp/testbed/links';
import { tunedBuildPresent, TUNED_DIR } from '@mutp/proxy/wrtc';
import { startRtcSender } from './rtc-sender.js';

const DELAY_MS = 25; // one way: RTT 50 ms, as the campaign
const PORT = 40173;
const LINK_BYTES_PER_S = 896 * 1024; // the paper's proxy upload
/** The application's pace (bytes/s): below the link, so only SCTP's loss response can lower goodput. */
const SEND_RATE = 700 * 1024;
const MESSAGE_BYTES = 1100; // a MUTP packet's payload size
const RUN_MS = 3000; // ~60 round trips: usrsctp's window halves many times over at 2% loss
const LOSS_PCT = 2;
/** The loss-tolerant sender keeps at least this of its lossless goodput at 2% loss (it loses ~2% of packets, no rate). */
const MIN_TOLERANT_RATIO = 0.9;

const url = (/** @type {string} */ spec) => import.meta.resolve(spec);

// Sender (namespace B): on a text message [rate, ms, size], paced sends of `size` bytes for `ms`
// (once: the receiver repeats its ask until data comes, the channel being as lossy as the data).
const ON_MESSAGE = `
if (channel.mutpStarted) return;
channel.mutpStarted = true;
const [rate, ms, size] = JSON.parse(String(ev.data));
const payload = new Uint8Array(size);
const t0 = performance.now();
let sent = 0;
const timer = setInterval(() => {
  const t = performance.now() - t0;
  if (t > ms) return clearInterval(timer);
  while (sent * size < (rate * t) / 1000 && channel.bufferedAmount < 64 * 1024) { channel.send(payload); sent++; }
}, 1);
`;

// Receiver (namespace A): asks for RUN_MS of paced sends; prints bytes received and the longest gap.
const RECEIVER = `
const [connectUrl, polyfillUrl, proxyUrl, rate, ms, size] = process.argv.slice(1);
const { connectPeer } = await import(connectUrl);
const { RTCPeerConnection } = await import(polyfillUrl);
const link = await connectPeer({ url: proxyUrl, RTCPeerConnection, hedgeAfterMs: 0 });
const ch = link.channel;
ch.binaryType = 'arraybuffer';
let bytes = 0, first = 0, last = 0, gap = 0;
ch.addEventListener('message', (ev) => {
  const t = performance.now();
  if (!first) first = t; else gap = Math.max(gap, t - last);
  last = t;
  bytes += ev.data.byteLength;
});
const ask = () => { if (!first) { ch.send(JSON.stringify([Number(rate), Number(ms), Number(size)])); setTimeout(ask, 200); } };
ask();
while (!first) await new Promise((res) => setTimeout(res, 20));
await new Promise((res) => setTimeout(res, Number(ms) + 1500));
console.log(JSON.stringify({ bytes, spanMs: last - first, maxGapMs: gap }));
link.close();
process.exit(0);
`;

/** @param {string} ns @param {string} from @param {number} pct */
function dropFrom(ns, from, pct) {
  execFileSync('ip', ['netns', 'exec', ns, 'iptables', '-I', 'INPUT', '1', '-s', from, '-m', 'statistic', '--mode', 'random',
    '--probability', (pct / 100).toFixed(4), '-j', 'DROP']);
}

describe('proxy WebRTC build: random loss is not congestion (namespaces, RTT 50 ms, 896 KiB/s)', function () {
  this.timeout(180_000);
  /** @type {ReturnType<typeof createPair> | undefined} */
  let net;
  /** @type {import('@mutp/testbed/delay').DelayInfo | undefined} */
  let delay;
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let sender;

  before(function () {
    if (!tunedBuildPresent()) skipOrFail(this, `no tuned WebRTC build in ${TUNED_DIR} (npm run build:rtc)`);
    requireOrSkip(this, { commands: ['ip', 'tc', 'iptables', 'clang'], root: true });
    requireStepOrSkip(this, ensureDelayLine);
  });
  afterEach(() => {
    sender?.kill();
    sender = undefined;
    delay?.stop();
    delay = undefined;
    if (net) destroyPair(net);
    net = undefined;
  });

  /**
   * Goodput (bytes/s) of RUN_MS of paced sends at `lossPct`, with the sender chosen by `tolerant`.
   * @param {boolean} tolerant @param {number} lossPct
   */
  async function run(tolerant, lossPct) {
    net = createPair('rls');
    const logFile = join(mkdtempSync(join(tmpdir(), 'mtb-rls-')), 'delayline.log');
    delay = await startDelay({ hostNs: net.a, hostDev: net.devA, peerNs: net.b, peerDev: net.devB, delayMs: DELAY_MS, logFile });
    execFileSync('ip', ['netns', 'exec', net.b, SHAPE, '--dev', net.devB, '--upload', `${LINK_BYTES_PER_S}B`]);
    if (lossPct > 0) {
      dropFrom(net.a, net.ipB, lossPct);
      dropFrom(net.b, net.ipA, lossPct);
    }
    const started = await startRtcSender({ ns: net.b, ip: net.ipB, port: PORT, onMessage: ON_MESSAGE,
      env: { MUTP_RTC_BUILD: 'tuned', MUTP_SCTP_LOSS_TOLERANT: tolerant ? '1' : '0' } });
    sender = started.proc;
    const build = started.build;
    assert.equal(build.sender, tolerant ? 'loss-tolerant' : 'usrsctp');
    const out = JSON.parse(await nodeIn(net.a, RECEIVER, [
      url('@mutp/proxyclientlib/connect-peer'), url('node-datachannel/polyfill'), `http://${net.ipB}:${PORT}`,
      String(SEND_RATE), String(RUN_MS), String(MESSAGE_BYTES),
    ]));
    sender.kill();
    delay.stop();
    delay = undefined;
    destroyPair(net);
    net = undefined;
    return { goodput: out.bytes / (RUN_MS / 1000), maxGapMs: out.maxGapMs };
  }

  it(`the loss-tolerant sender keeps its goodput at ${LOSS_PCT}% loss; usrsctp's halves its window per loss`, async () => {
    /** @type {Record<string, { ratio: number, line: string }>} */
    const result = {};
    for (const tolerant of [true, false]) {
      const clean = await run(tolerant, 0);
      const lossy = await run(tolerant, LOSS_PCT);
      const ratio = lossy.goodput / clean.goodput;
      const name = tolerant ? 'loss-tolerant' : 'usrsctp';
      result[name] = {
        ratio,
        line: `${name}: 0% ${Math.round(clean.goodput / 1024)} KiB/s, ${LOSS_PCT}% ${Math.round(lossy.goodput / 1024)} KiB/s` +
          ` (ratio ${ratio.toFixed(2)}; longest gap ${Math.round(lossy.maxGapMs)} ms), paced at ${SEND_RATE / 1024} KiB/s`,
      };
      console.log(`      ${result[name].line}`);
    }
    assert.ok(result['loss-tolerant'].ratio >= MIN_TOLERANT_RATIO, result['loss-tolerant'].line);
    assert.ok(result.usrsctp.ratio < result['loss-tolerant'].ratio, `${result.usrsctp.line} — usrsctp's sender should fall below the loss-tolerant one`);
  });
});
