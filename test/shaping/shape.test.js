// shaping/shape measured for real: two network namespaces joined by a veth pair.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { requireOrSkip } from '@mutp/testkit/require-tool';
import { createPair, destroyPair, nodeIn, sh } from '@mutp/testkit/netns';
import { TCP_SINK, TCP_SOURCE, UDP_SOURCE } from '@mutp/testkit/net-probes';

const SHAPE = fileURLToPath(new URL('../../shaping/shape', import.meta.url));
const KIB = 1024;
const PAPER_RATE = 896 * KIB; // bytes/s, the paper's slow proxies
const MEASURE_SECONDS = 3; // long enough that htb's burst is < 1% of the bytes counted
const WARMUP_SECONDS = 1; // skip TCP slow start and the initial htb burst
const PORT = 40123;

/** @param {string} ns @param {string[]} args */
function shapeIn(ns, args) {
  return execFileSync('ip', ['netns', 'exec', ns, SHAPE, ...args], { encoding: 'utf8', stdio: 'pipe' }); // stderr kept for the assertions, not printed
}

// UDP: count datagrams received out of a known number sent at a modest pace.
const UDP_SINK = `
import dgram from 'node:dgram';
const [port, ms] = process.argv.slice(1).map(Number);
let n = 0; const s = dgram.createSocket('udp4');
s.on('message', () => n++); s.bind(port, '0.0.0.0');
setTimeout(() => { console.log(n); process.exit(0); }, ms);
`;

describe('shaping/shape (network namespaces)', function () {
  this.timeout(60_000);
  /** @type {ReturnType<typeof createPair>} */
  let net;

  before(function () {
    requireOrSkip(this, { commands: ['ip', 'tc', 'iptables'], root: true });
    net = createPair('shp');
  });
  after(() => net && destroyPair(net));

  it('refuses bad input with a clear message and changes nothing', () => {
    for (const args of [['--dev', net.devA, '--upload', '4xfoo'], ['--dev', net.devA], ['--dev', 'nosuch0', '--upload', '1MiB'], ['--dev', net.devA, '--loss', '140']]) {
      assert.throws(() => shapeIn(net.a, args), (/** @type {any} */ e) => e.status === 2 && /shape: error:/.test(String(e.stderr)));
    }
    assert.doesNotMatch(sh('ip', 'netns', 'exec', net.a, 'tc', 'qdisc', 'show', 'dev', net.devA), /htb/);
  });

  it('--dry-run prints the commands and applies nothing', () => {
    const out = shapeIn(net.a, ['--dev', net.devA, '--upload', '896KiB', '--dry-run']);
    assert.match(out, /tc qdisc add dev \S+ root handle 6d75: htb/);
    assert.match(out, /rate 7340032bit/); // 896 KiB/s = 917504 B/s = 7340032 bit/s
    assert.doesNotMatch(sh('ip', 'netns', 'exec', net.a, 'tc', 'qdisc', 'show', 'dev', net.devA), /htb/);
  });

  it('limits upload to 896 KiB/s within ±10% (TCP), idempotently', async () => {
    shapeIn(net.a, ['--dev', net.devA, '--upload', '896KiB']);
    shapeIn(net.a, ['--dev', net.devA, '--upload', '896KiB']); // twice: same state, no error
    const qdiscs = sh('ip', 'netns', 'exec', net.a, 'tc', 'qdisc', 'show', 'dev', net.devA);
    assert.equal(qdiscs.match(/qdisc htb/g)?.length, 1);
    const sink = nodeIn(net.b, TCP_SINK, [String(PORT), String(WARMUP_SECONDS), String(MEASURE_SECONDS)]);
    await new Promise((r) => setTimeout(r, 300));
    const source = nodeIn(net.a, TCP_SOURCE, [net.ipB, String(PORT), '8000']).catch(() => '');
    const rate = Number(await sink);
    await source;
    const ratio = rate / PAPER_RATE;
    console.log(`      measured ${(rate / KIB).toFixed(0)} KiB/s of TCP payload (${(ratio * 100).toFixed(1)}% of 896 KiB/s)`);
    assert.ok(ratio > 0.9 && ratio < 1.1, `measured ${rate} B/s, ${ratio} of the limit`);
  });

  it('adds 2% random loss on the receiving side, measured within [1%, 3%]', async () => {
    shapeIn(net.a, ['--dev', net.devA, '--clear']); // no rate limit: every loss is the shaper's
    shapeIn(net.b, ['--dev', net.devB, '--loss', '2']);
    // A counting rule ahead of shape's DROP sees every datagram that reached B. On a loaded
    // machine the sink's socket buffer also overflows; the kernel's counters keep that apart.
    const iptB = (/** @type {string[]} */ ...a) => sh('ip', 'netns', 'exec', net.b, 'iptables', ...a);
    iptB('-I', 'INPUT', '1', '-i', net.devB, '-p', 'udp', '--dport', String(PORT), '-m', 'comment', '--comment', 'shape-test-count');
    const sent = 20_000;
    const sink = nodeIn(net.b, UDP_SINK, [String(PORT), '4500']);
    await new Promise((r) => setTimeout(r, 300));
    await nodeIn(net.a, UDP_SOURCE, [net.ipB, String(PORT), String(sent)]);
    const received = Number(await sink);
    const counters = iptB('-L', 'INPUT', '-v', '-n', '-x').split('\n');
    const pkts = (/** @type {RegExp} */ re) => Number(counters.find((l) => re.test(l))?.trim().split(/\s+/)[0]);
    const arrived = pkts(/shape-test-count/);
    const dropped = pkts(/statistic mode random/);
    iptB('-D', 'INPUT', '-i', net.devB, '-p', 'udp', '--dport', String(PORT), '-m', 'comment', '--comment', 'shape-test-count');
    const loss = dropped / arrived;
    console.log(`      measured loss ${(loss * 100).toFixed(2)}% of ${arrived} datagrams (${sent} sent, ${received} read by the sink)`);
    assert.ok(arrived >= sent * 0.95, `only ${arrived} of ${sent} datagrams reached B`);
    assert.ok(loss >= 0.01 && loss <= 0.03, `loss ${loss}`);
    assert.ok(received <= arrived - dropped, 'the sink read datagrams the shaper dropped');
  });

  it("leaves another tool's qdiscs alone: a run that needs their hook stops (exit 2, nothing changed), --clear keeps them, --replace replaces them", () => {
    const tc = (/** @type {string[]} */ ...a) => sh('ip', 'netns', 'exec', net.a, 'tc', ...a);
    shapeIn(net.a, ['--dev', net.devA, '--clear']);
    tc('qdisc', 'add', 'dev', net.devA, 'root', 'handle', '1:', 'tbf', 'rate', '10mbit', 'burst', '32k', 'latency', '50ms');
    tc('qdisc', 'add', 'dev', net.devA, 'clsact');
    const theirs = tc('qdisc', 'show', 'dev', net.devA);
    assert.match(theirs, /qdisc tbf 1: root/);
    assert.match(theirs, /qdisc clsact ffff:/);
    for (const args of [['--upload', '1MiB'], ['--download', '2MiB'], ['--upload', '1MiB', '--download', '2MiB']]) {
      assert.throws(() => shapeIn(net.a, ['--dev', net.devA, ...args]), (/** @type {any} */ e) => e.status === 2 && /another tool/.test(String(e.stderr)), args.join(' '));
      assert.equal(tc('qdisc', 'show', 'dev', net.devA), theirs, `${args.join(' ')} changed nothing`);
    }
    shapeIn(net.a, ['--dev', net.devA, '--clear']);
    assert.equal(tc('qdisc', 'show', 'dev', net.devA), theirs, '--clear kept them');
    shapeIn(net.a, ['--dev', net.devA, '--upload', '1MiB', '--download', '2MiB', '--replace']);
    const ours = tc('qdisc', 'show', 'dev', net.devA);
    assert.match(ours, /qdisc htb 6d75: root/);
    assert.match(ours, /qdisc ingress ffff:/);
    assert.doesNotMatch(ours, /tbf|clsact/);
    shapeIn(net.a, ['--dev', net.devA, '--clear']);
    assert.doesNotMatch(tc('qdisc', 'show', 'dev', net.devA), /htb|ingress/);
  });

  it("takes the root qdisc it made before it marked its own (htb 1:, one class 1:10) as its own; another htb 1: is another tool's", () => {
    const tc = (/** @type {string[]} */ ...a) => sh('ip', 'netns', 'exec', net.a, 'tc', ...a);
    shapeIn(net.a, ['--dev', net.devA, '--clear']);
    const old = (/** @type {string} */ cls) => {
      tc('qdisc', 'add', 'dev', net.devA, 'root', 'handle', '1:', 'htb', 'default', '10');
      tc('class', 'add', 'dev', net.devA, 'parent', '1:', 'classid', cls, 'htb', 'rate', '8mbit');
      tc('qdisc', 'add', 'dev', net.devA, 'parent', cls, 'handle', '10:', 'pfifo', 'limit', '35');
    };
    old('1:10'); // what shape's earlier version made
    shapeIn(net.a, ['--dev', net.devA, '--upload', '1MiB']);
    assert.match(tc('qdisc', 'show', 'dev', net.devA), /qdisc htb 6d75: root/);
    shapeIn(net.a, ['--dev', net.devA, '--clear']);
    old('1:20'); // the same shape of tree, but not shape's class
    assert.throws(() => shapeIn(net.a, ['--dev', net.devA, '--upload', '1MiB']), (/** @type {any} */ e) => e.status === 2 && /another tool/.test(String(e.stderr)));
    shapeIn(net.a, ['--dev', net.devA, '--clear']);
    assert.match(tc('qdisc', 'show', 'dev', net.devA), /qdisc htb 1: root/, '--clear kept it');
    tc('qdisc', 'del', 'dev', net.devA, 'root');
  });

  it('--clear removes every qdisc, IFB and iptables rule it added', () => {
    shapeIn(net.a, ['--dev', net.devA, '--upload', '1MiB', '--download', '2MiB']);
    assert.match(sh('ip', 'netns', 'exec', net.a, 'ip', 'link'), /ifb-/);
    shapeIn(net.a, ['--dev', net.devA, '--clear']);
    shapeIn(net.b, ['--dev', net.devB, '--clear']);
    assert.doesNotMatch(sh('ip', 'netns', 'exec', net.a, 'tc', 'qdisc', 'show', 'dev', net.devA), /htb|ingress/);
    assert.doesNotMatch(sh('ip', 'netns', 'exec', net.a, 'ip', 'link'), /ifb-/);
    assert.doesNotMatch(sh('ip', 'netns', 'exec', net.b, 'iptables', '-S', 'INPUT'), /mutp-shape/);
  });
});
