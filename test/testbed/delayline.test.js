// The testbed's one-way delay (testbed/src/delay.js, shaping/delayline) measured for real: two
// network namespaces joined by a veth pair, the delay line on A's end: the round trip's 2·D on
// what A receives.
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireOrSkip, requireStepOrSkip } from '@mutp/testkit/require-tool';
import { createPair, destroyPair, nodeIn, sh } from '@mutp/testkit/netns';
import { CONNECT_TIMES, TCP_SINK, TCP_SOURCE, UDP_SOURCE } from '@mutp/testkit/net-probes';
import { ensureDelayLine, startDelay } from '@mutp/testbed/delay';
import { setLinkLoss, droppedPackets, setTcpCongestion } from '@mutp/testbed/links';

const SHAPE = fileURLToPath(new URL('../../shaping/shape', import.meta.url));
const DELAY_MS = 25; // the campaign's default one-way delay
const RTT_SLACK_MS = 100; // generous: node start-up is outside the timing, a busy 2-core machine is not
const KIB = 1024;
const PAPER_RATE = 896 * KIB; // bytes/s
const PORT = 40151;
const PROBES = 15;
const LOSS_PCT = 2;

// Receives PROBES UDP datagrams carrying the sender's wall clock (same machine, same clock) and
// prints the one-way delays in ms, sorted.
const ONE_WAY_SINK = `
import dgram from 'node:dgram';
const [port, n] = process.argv.slice(1).map(Number);
const s = dgram.createSocket('udp4'); const d = [];
const now = () => performance.timeOrigin + performance.now();
s.on('message', (m) => { d.push(now() - m.readDoubleLE(0)); if (d.length === n) { console.log(JSON.stringify(d.sort((a, b) => a - b))); process.exit(0); } });
s.bind(port, '0.0.0.0', () => console.error('bound'));
setTimeout(() => { console.log(JSON.stringify(d.sort((a, b) => a - b))); process.exit(0); }, 8000);
`;
const ONE_WAY_SOURCE = `
import dgram from 'node:dgram';
const [host, port, n] = process.argv.slice(1);
const s = dgram.createSocket('udp4'); let i = 0;
const tick = () => { const b = Buffer.alloc(64); b.writeDoubleLE(performance.timeOrigin + performance.now(), 0); s.send(b, Number(port), host);
  if (++i < Number(n)) setTimeout(tick, 20); else setTimeout(() => process.exit(0), 100); };
tick();
`;
// Accepts n connections, then exits (20 s at most).
const ACCEPT_SERVER = `
import net from 'node:net';
const [port, n] = process.argv.slice(1).map(Number); let seen = 0;
net.createServer((s) => { s.destroy(); if (++seen === n) process.exit(0); }).listen(port, '0.0.0.0');
setTimeout(() => process.exit(0), 20000);
`;

const median = (/** @type {number[]} */ xs) => xs[Math.floor(xs.length / 2)];
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

describe('testbed delay line (NFQUEUE, network namespaces)', function () {
  this.timeout(90_000);
  /** @type {ReturnType<typeof createPair>} */
  let net;
  /** @type {import('@mutp/testbed/delay').DelayInfo} */
  let delay;
  const logFile = join(mkdtempSync(join(tmpdir(), 'mtb-delay-')), 'delayline.log');

  before(async function () {
    requireOrSkip(this, { commands: ['ip', 'tc', 'iptables', 'clang'], root: true });
    // no libnetfilter-queue-dev: fail under CI (.ci/run installs it), skip with a warning elsewhere
    requireStepOrSkip(this, ensureDelayLine);
    net = createPair('dly');
    // forced: on a kernel with netem the testbed would use netem instead; this suite is the delay line's
    delay = await startDelay({ hostNs: net.a, hostDev: net.devA, peerNs: net.b, peerDev: net.devB, delayMs: DELAY_MS, logFile, forceDelayLine: true });
  });
  after(() => {
    delay?.stop();
    if (net) destroyPair(net);
  });

  it('refuses bad delays and arguments', async () => {
    await assert.rejects(startDelay({ hostNs: 'x', peerNs: 'y', peerDev: 'z', delayMs: 0, logFile }), { code: 'ERR_BAD_OPTION' });
    await assert.rejects(startDelay({ hostNs: 'x', peerNs: 'y', peerDev: 'z', delayMs: 2.5, logFile }), { code: 'ERR_BAD_OPTION' });
    for (const args of [['--queue', '1', '--delay-ms', '-3'], ['--queue', '1'], ['--queue', 'x', '--delay-ms', '5'], ['--bogus']]) {
      const r = spawnSync(ensureDelayLine(), args, { encoding: 'utf8' });
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    }
  });

  it('delays a TCP round trip by 2·D, all of it on what the host receives (UDP one-way, same clock)', async () => {
    assert.equal(delay.method, 'nfqueue');
    const server = nodeIn(net.b, ACCEPT_SERVER, [String(PORT), String(PROBES)]).catch(() => '');
    await sleep(500);
    const rtts = JSON.parse(await nodeIn(net.a, CONNECT_TIMES, [net.ipB, String(PORT), String(PROBES)]));
    const oneWay = {};
    for (const [from, to, toIp] of [[net.a, net.b, net.ipB], [net.b, net.a, net.ipA]]) {
      const sink = nodeIn(to, ONE_WAY_SINK, [String(PORT + 1), String(PROBES)]);
      await sleep(500);
      await nodeIn(from, ONE_WAY_SOURCE, [toIp, String(PORT + 1), String(PROBES)]);
      oneWay[from === net.a ? 'A→B' : 'B→A'] = JSON.parse(await sink);
    }
    console.log(`      D=${DELAY_MS} ms: TCP connect min/median ${rtts[0].toFixed(1)}/${median(rtts).toFixed(1)} ms; one-way median A→B ${median(oneWay['A→B']).toFixed(1)}, B→A ${median(oneWay['B→A']).toFixed(1)} ms`);
    assert.equal(rtts.length, PROBES);
    assert.ok(rtts[0] >= 2 * DELAY_MS, `fastest round trip ${rtts[0]} ms < 2·D`);
    assert.ok(median(rtts) <= 2 * DELAY_MS + RTT_SLACK_MS, `median round trip ${median(rtts)} ms`);
    for (const [dir, d] of Object.entries(oneWay)) assert.equal(d.length, PROBES, `${dir}: ${d.length} of ${PROBES} datagrams arrived`);
    // the two clocks are one clock, read through two processes' timeOrigin: allow 1 ms of rounding
    assert.ok(oneWay['B→A'][0] >= 2 * DELAY_MS - 1, `B→A: fastest one-way ${oneWay['B→A'][0]} ms < 2·D`);
    assert.ok(median(oneWay['B→A']) <= 2 * DELAY_MS + RTT_SLACK_MS, `B→A: median one-way ${median(oneWay['B→A'])} ms`);
    assert.ok(median(oneWay['A→B']) <= RTT_SLACK_MS, `A→B: median one-way ${median(oneWay['A→B'])} ms: what A sends is not held`);
    await server;
  });

  // Both ways: into the delayed host (a proxy's upload to the client) and out of it (the client's
  // log upload; a delay on its own OUTPUT held it to ~2 packets per 25 ms, TCP Small Queues).
  for (const way of /** @type {const} */ (['into the delayed host', 'out of it'])) {
    it(`keeps a shaped 896 KiB/s TCP link (cubic, as the testbed's hosts) within ±10% with D = 25 ms, ${way}`, async () => {
      const [from, fromIp, fromDev, to, toIp] = way === 'out of it' ? [net.a, net.ipA, net.devA, net.b, net.ipB] : [net.b, net.ipB, net.devB, net.a, net.ipA];
      const port = PORT + (way === 'out of it' ? 3 : 2);
      setTcpCongestion({ ns: from, ip: fromIp }, fromIp.split('.').slice(0, 3).join('.'), 'cubic', fromDev);
      sh('ip', 'netns', 'exec', from, SHAPE, '--dev', fromDev, '--upload', '896KiB');
      const sink = nodeIn(to, TCP_SINK, [String(port), '1.5', '3']); // warm-up covers slow start at RTT 50 ms
      await sleep(500);
      const source = nodeIn(from, TCP_SOURCE, [toIp, String(port), '9000']).catch(() => '');
      await sleep(1500);
      assert.match(sh('ip', 'netns', 'exec', from, 'ss', '-tin', 'dport', `= ${port}`), /\bcubic\b/); // the route's congctl took effect
      const rate = Number(await sink);
      await source;
      sh('ip', 'netns', 'exec', from, SHAPE, '--dev', fromDev, '--clear');
      const ratio = rate / PAPER_RATE;
      console.log(`      measured ${(rate / KIB).toFixed(0)} KiB/s of TCP payload with RTT 2·${DELAY_MS} ms (${(ratio * 100).toFixed(1)}% of 896 KiB/s)`);
      assert.ok(ratio > 0.9 && ratio < 1.1, `measured ${rate} B/s, ${ratio} of the limit`);
    });
  }

  it('applies the loss rules before the delay (the loss rule sees the packets)', async () => {
    const link = { clientNs: net.a, clientIp: net.ipA, proxyNs: net.b, proxyIp: net.ipB };
    setLinkLoss(link, LOSS_PCT);
    const rules = sh('ip', 'netns', 'exec', net.a, 'iptables', '-S', 'INPUT').split('\n');
    assert.ok(rules.findIndex((r) => /mtb-loss/.test(r)) < rules.findIndex((r) => /NFQUEUE/.test(r)), rules.join('\n'));
    const sent = 5000;
    await nodeIn(net.b, UDP_SOURCE, [net.ipA, String(PORT + 3), String(sent)]);
    const dropped = droppedPackets(net.a);
    setLinkLoss(link, 0);
    console.log(`      ${dropped} of ${sent} datagrams dropped before the delay line`);
    assert.ok(dropped >= sent * 0.01 && dropped <= sent * 0.03, `dropped ${dropped}`);
  });

  it('releases what it holds and reports its counters on SIGTERM', async () => {
    delay.stop();
    for (let i = 0; i < 50 && !/delayline: exit/.test(readFileSync(logFile, 'utf8')); i++) await sleep(100);
    const m = /delayline: exit delayed=(\d+) overflow=(\d+) enobufs=(\d+) verdict_errors=(\d+) late_1ms=(\d+) late_max_us=(\d+)/.exec(readFileSync(logFile, 'utf8'));
    assert.ok(m, readFileSync(logFile, 'utf8'));
    assert.ok(Number(m[1]) > 1000, `only ${m[1]} packets went through the delay line`);
    assert.deepEqual([m[2], m[3], m[4]], ['0', '0', '0']);
    assert.ok(Number(m[5]) <= Number(m[1]), `${m[5]} late of ${m[1]}`);
    console.log(`      ${m[5]} of ${m[1]} verdicts 1 ms late or more, the latest by ${(Number(m[6]) / 1000).toFixed(1)} ms`);
  });
});
