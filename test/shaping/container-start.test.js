// shaping/container-start's TCP_INITCWND, for real: two network namespaces, the "proxy" a script
// that reports what its own TCP connection starts with.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireOrSkip } from '@mutp/testkit/require-tool';
import { createPair, destroyPair, sh } from '@mutp/testkit/netns';
import { MAX_TCP_INITCWND, MIN_TCP_INITCWND, setTcpCongestion } from '@mutp/testbed/links';

const START = fileURLToPath(new URL('../../shaping/container-start', import.meta.url));
const PORT = 40124;

// The stand-in proxy: its routes, then the congestion window of a connection it opens to B,
// read before it sends anything.
const FAKE_PROXY = `
import net from 'node:net';
import { execFileSync } from 'node:child_process';
const [dev, host, port] = process.argv.slice(2);
console.log(execFileSync('ip', ['route', 'show', 'dev', dev], { encoding: 'utf8' }));
const s = net.connect(Number(port), host, () => {
  console.log(execFileSync('ss', ['-tin', 'dst', host], { encoding: 'utf8' }));
  s.destroy();
});
`;

describe('shaping/container-start: TCP_INITCWND (network namespaces)', function () {
  this.timeout(30_000);
  /** @type {ReturnType<typeof createPair>} */
  let net;
  /** @type {string} */
  let dir;
  /** @type {import('node:child_process').ChildProcess | null} */
  let sink = null;

  before(function () {
    requireOrSkip(this, { commands: ['ip', 'ss'], root: true });
    net = createPair('cst');
    dir = mkdtempSync(join(tmpdir(), 'cstart-'));
    writeFileSync(join(dir, 'proxy.mjs'), FAKE_PROXY);
    sink = spawn('ip', ['netns', 'exec', net.b, process.execPath, '-e', `require('net').createServer((s) => s.resume()).listen(${PORT})`], { stdio: 'ignore' });
  });
  after(() => {
    sink?.kill();
    if (net) destroyPair(net);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * @param {string} value  TCP_INITCWND ('' for none) @param {Record<string, string>} [more]  other variables
   * @returns {{status: number, stdout: string, stderr: string}}
   */
  function start(value, more = {}) {
    try {
      const stdout = execFileSync('ip', ['netns', 'exec', net.a, START, net.devA, net.ipB, String(PORT)], {
        encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, TCP_INITCWND: value, SHAPE_DEV: net.devA, PROXY_BIN: join(dir, 'proxy.mjs'), ...more },
      });
      return { status: 0, stdout, stderr: '' };
    } catch (err) {
      const e = /** @type {any} */ (err);
      return { status: e.status, stdout: String(e.stdout), stderr: String(e.stderr) };
    }
  }

  /** @returns {Promise<void>} */
  const sinkListening = async () => {
    for (let i = 0; i < 50; i++) {
      if (sh('ip', 'netns', 'exec', net.b, 'ss', '-tln').includes(`:${PORT}`)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the sink never listened');
  };

  it('the proxy\'s connections start with the window asked, set again without a second copy', async () => {
    await sinkListening();
    for (const cwnd of [40, 32]) {
      const r = start(String(cwnd));
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`${net.ipA.split('.').slice(0, 3).join('\\.')}\\.0/24 .*initcwnd ${cwnd}\\b`));
      assert.equal(r.stdout.match(/initcwnd/g)?.length, 1, 'one route, one initcwnd');
      assert.match(r.stdout, new RegExp(`\\bcwnd:${cwnd}\\b`), 'the connection it opened');
    }
  });

  it('refuses a window outside the testbed\'s bounds and starts no proxy', () => {
    for (const bad of [String(MIN_TCP_INITCWND - 1), String(MAX_TCP_INITCWND + 1), '4x', '-20']) {
      const r = start(bad);
      assert.equal(r.status, 2, bad);
      assert.match(r.stderr, /TCP_INITCWND must be/);
      assert.doesNotMatch(r.stdout, /cwnd:/);
    }
    for (const ok of [MIN_TCP_INITCWND, MAX_TCP_INITCWND]) assert.equal(start(String(ok)).status, 0, String(ok));
  });

  it("another tool's root qdisc on SHAPE_DEV stops the container (exit 3) and stays; SHAPE_REPLACE=1 replaces it", async () => {
    await sinkListening();
    const tc = (/** @type {string[]} */ ...a) => sh('ip', 'netns', 'exec', net.a, 'tc', ...a);
    tc('qdisc', 'add', 'dev', net.devA, 'root', 'handle', '1:', 'tbf', 'rate', '10mbit', 'burst', '32k', 'latency', '50ms');
    const refused = start('', { UPLOAD_RATE: '1MiB' });
    assert.equal(refused.status, 3, refused.stderr);
    assert.match(refused.stderr, /another tool/);
    assert.doesNotMatch(refused.stdout, /cwnd:/, 'no proxy started');
    assert.match(tc('qdisc', 'show', 'dev', net.devA), /qdisc tbf 1: root/);
    const replaced = start('', { UPLOAD_RATE: '1MiB', SHAPE_REPLACE: '1' });
    assert.equal(replaced.status, 0, replaced.stderr);
    assert.match(tc('qdisc', 'show', 'dev', net.devA), /qdisc htb 6d75: root/);
    sh('ip', 'netns', 'exec', net.a, fileURLToPath(new URL('../../shaping/shape', import.meta.url)), '--dev', net.devA, '--clear');
  });

  it('the testbed sets the same route metric on a proxy\'s namespace (--tcp-initcwnd), and refuses the same values', () => {
    const subnet = net.ipA.split('.').slice(0, 3).join('.');
    setTcpCongestion({ ns: net.a, ip: net.ipA }, subnet, 'cubic', net.devA, 24);
    assert.match(sh('ip', 'netns', 'exec', net.a, 'ip', 'route', 'show', 'dev', net.devA), /initcwnd 24 congctl cubic/);
    for (const bad of [MIN_TCP_INITCWND - 1, MAX_TCP_INITCWND + 1, 12.5]) {
      assert.throws(() => setTcpCongestion({ ns: net.a, ip: net.ipA }, subnet, 'cubic', net.devA, bad), { code: 'ERR_BAD_OPTION' });
    }
    setTcpCongestion({ ns: net.a, ip: net.ipA }, subnet, 'cubic', net.devA); // the kernel's again
    assert.doesNotMatch(sh('ip', 'netns', 'exec', net.a, 'ip', 'route', 'show', 'dev', net.devA), /initcwnd/);
  });
});
