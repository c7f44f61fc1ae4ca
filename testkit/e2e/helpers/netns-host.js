// A one-host network namespace for a browser test: `lo` up plus one interface with a private
// address of its own (one end of a veth pair whose both ends stay inside: this kernel has no
// `dummy` link type) and the default route on it. Firefox ESR offers no loopback ICE candidate
// (not even with media.peerconnection.ice.loopback), so WebRTC needs a non-loopback address;
// inside our own namespace that address reaches nothing but the namespace itself. Recipe: docs/extension-testing.md.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './scenario.js';
import { requireOrSkip } from '../../require-tool.js';

export const FIREFOX_NS = 'mutp-ffe2e';
const DEV = 'mutpff0'; // holds the address: enough for Firefox to offer a host candidate
const PEER_DEV = 'mutpff1'; // the veth's other end, up so DEV's carrier is up; no address
// 10.226.6.0/24: not the testbed's 10.219.0.0/16 nor testkit/netns.js's 10.213.7.0/24
export const FIREFOX_NS_ADDR = '10.226.6.1';
const PREFIX_BITS = 24;

/** @param {string[]} args */
function ip(...args) {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * Delete the namespace if it exists (a crashed run's leftovers too). Processes still inside it
 * (only ours: a browser a killed run left behind) are killed first, as deleting the name would
 * leave them running in an unnamed namespace.
 * @param {string} ns
 */
export function deleteNamespace(ns) {
  let pids = [];
  try {
    pids = execFileSync('ip', ['netns', 'pids', ns], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split(/\s+/).filter(Boolean).map(Number);
  } catch {
    /* not there */
  }
  for (const pid of pids) {
    if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  try {
    execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
  } catch {
    /* not there */
  }
}

/**
 * Create the namespace afresh (a stale one is removed first). Needs root.
 * @param {string} [ns]
 * @param {string} [addr]
 * @param {string[]} [moreAddrs]  further addresses on the same interface (IPv4 literals, each a /32)
 * @returns {{ns: string, addr: string, destroy: () => void}}
 */
export function createHostNamespace(ns = FIREFOX_NS, addr = FIREFOX_NS_ADDR, moreAddrs = []) {
  deleteNamespace(ns);
  ip('netns', 'add', ns);
  try {
    ip('-n', ns, 'link', 'set', 'lo', 'up');
    ip('-n', ns, 'link', 'add', DEV, 'type', 'veth', 'peer', 'name', PEER_DEV);
    ip('-n', ns, 'addr', 'add', `${addr}/${PREFIX_BITS}`, 'dev', DEV);
    for (const a of moreAddrs) ip('-n', ns, 'addr', 'add', `${a}/32`, 'dev', DEV);
    ip('-n', ns, 'link', 'set', PEER_DEV, 'up');
    ip('-n', ns, 'link', 'set', DEV, 'up');
    // Firefox (without a camera/microphone grant) offers only the address of the default route's
    // interface; with no default route it offers no candidate at all. The route leads into the
    // veth whose other end is in here too: nothing leaves the namespace.
    ip('-n', ns, 'route', 'add', 'default', 'dev', DEV);
  } catch (err) {
    deleteNamespace(ns);
    throw err;
  }
  return { ns, addr, destroy: () => deleteNamespace(ns) };
}

/**
 * Host names for processes run with `ip netns exec ns`: it bind-mounts /etc/netns/<ns>/hosts
 * over /etc/hosts for them (iproute2), so browsers and Node resolve the names like a DNS record,
 * while the machine's own /etc/hosts stays untouched. Returns the cleanup.
 * @param {string} ns
 * @param {Record<string, string>} names  host name → address
 */
export function namespaceHosts(ns, names) {
  const dir = `/etc/netns/${ns}`;
  mkdirSync(dir, { recursive: true });
  const lines = ['127.0.0.1 localhost', '::1 localhost', ...Object.entries(names).map(([name, a]) => `${a} ${name}`)];
  writeFileSync(`${dir}/hosts`, `${lines.join('\n')}\n`);
  return () => rmSync(dir, { recursive: true, force: true });
}

/**
 * Run a command inside the namespace, its output streamed to ours line by line with a prefix.
 * Resolves with the exit code and the output's last lines (for an assertion message).
 * @param {string} ns
 * @param {string[]} argv
 * @param {{env?: NodeJS.ProcessEnv, prefix?: string, timeoutMs: number}} o
 * @returns {Promise<{code: number | null, signal: string | null, tail: string}>}
 */
export function runInNamespace(ns, argv, { env = process.env, prefix = '  │ ', timeoutMs }) {
  const TAIL_LINES = 60; // enough for mocha's failure report
  return new Promise((resolve, reject) => {
    const child = spawn('ip', ['netns', 'exec', ns, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    /** @type {string[]} */
    const lines = [];
    const timer = setTimeout(() => {
      lines.push(`[killed: no exit within ${timeoutMs} ms]`);
      try {
        process.kill(-child.pid, 'SIGKILL'); // its whole group: mocha and the browser it started
      } catch {
        /* gone */
      }
    }, timeoutMs);
    /** @param {NodeJS.WriteStream} out */
    const pipeTo = (out) => {
      let rest = '';
      return (/** @type {Buffer} */ chunk) => {
        const parts = (rest + chunk.toString('utf8')).split('\n');
        rest = parts.pop() ?? '';
        for (const line of parts) {
          out.write(`${prefix}${line}\n`);
          lines.push(line);
          if (lines.length > TAIL_LINES) lines.shift();
        }
      };
    };
    child.stdout.on('data', pipeTo(process.stdout));
    child.stderr.on('data', pipeTo(process.stderr));
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, tail: lines.join('\n') });
    });
  });
}

/**
 * An inner mocha file (a browser scenario, not named *.test.js) run in a fresh namespace made by
 * createHostNamespace, with MUTP_E2E_NETNS_ADDR set to its address; its output streamed to ours.
 * The namespace is deleted afterwards, also after a failed or killed run. Asserts the run passed.
 * @param {string} innerFile
 * @param {{ns?: string, timeoutMs: number, testTimeoutMs: number}} o  timeoutMs: the whole run (then killed); testTimeoutMs: mocha's, per inner test
 */
export async function runInnerMocha(innerFile, { ns = FIREFOX_NS, timeoutMs, testTimeoutMs }) {
  const net = createHostNamespace(ns);
  try {
    const res = await runInNamespace(net.ns, [
      process.execPath, path.join(REPO, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--no-config', '--reporter', 'spec', '--timeout', String(testTimeoutMs), '--exit', innerFile,
    ], { env: { ...process.env, MUTP_E2E_NETNS_ADDR: net.addr }, timeoutMs });
    assert.equal(res.code, 0, `the inner run ${path.basename(innerFile)} failed (exit ${res.code}, signal ${res.signal}):\n${res.tail}`);
  } finally {
    net.destroy();
  }
}

/** The outer spec's budget beyond its inner run's (ms): the namespace's set-up and tear-down. */
const OUTER_MARGIN_MS = 30_000;

/**
 * A spec that runs one inner mocha file (a headless Firefox ESR scenario) in a network namespace
 * of its own: skipped without firefox-esr, ffmpeg, ip or root; `prepare` makes its media out here
 * (cached, so the inner run finds them ready); the namespace is deleted afterwards, also after a
 * crash of the inner run.
 * @param {{ title: string, test: string, inner: string, ns?: string, prepare: () => Promise<unknown>,
 *   timeoutMs: number, testTimeoutMs: number }} o  timeoutMs: the whole inner run; testTimeoutMs: per inner test or hook
 */
export function describeFirefoxInner({ title, test, inner, ns = FIREFOX_NS, prepare, timeoutMs, testTimeoutMs }) {
  describe(title, function () {
    this.timeout(timeoutMs + OUTER_MARGIN_MS);

    before(async function () {
      requireOrSkip(this, { commands: ['firefox-esr', 'ffmpeg', 'ip'], root: true });
      await prepare();
    });

    after(() => deleteNamespace(ns));

    it(test, async () => {
      await runInnerMocha(inner, { ns, timeoutMs, testTimeoutMs });
    });
  });
}
