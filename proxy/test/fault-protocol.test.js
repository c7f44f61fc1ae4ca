// The test-only fault wrapper (src/rtc/fault-protocol.js): what it damages, and that only the
// command-line entry point installs it, from MUTP_TEST_ONLY_FAULTS.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as protocol from '@mutp/protocol';
import { FAULT_ENV, faultModeFor, faultyProtocol } from '@mutp/proxy/test-faults';

const PROXY_BIN = fileURLToPath(new URL('../bin/proxy.js', import.meta.url));

/** Data messages of one download, encoded through `p`; which of them differ from the honest encoding. */
async function damagedPackets(/** @type {any} */ p, /** @type {number} */ downloadId, count = 250) {
  const sender = await protocol.createSender({ mode: 'uncoded', data: new Uint8Array(count * 1000).fill(7), params: { window: 8192 }, sourceIndex: 0, sourceCount: 1, seed: 1, downloadId });
  const damaged = [];
  for (let i = 0; i < count; i++) {
    const msg = sender.nextPacket(0);
    if (!msg) break;
    if (Buffer.compare(p.encodeMessage(msg), protocol.encodeMessage(msg)) !== 0) damaged.push(i);
  }
  return damaged;
}

describe('proxy: test-only fault protocol', () => {
  it('corrupt-coded-1pct damages packets 3, 103, 203, … of each download, nothing else', async () => {
    const p = faultyProtocol(protocol, 'corrupt-coded-1pct');
    assert.deepEqual(await damagedPackets(p, 1), [3, 103, 203]);
    assert.deepEqual(await damagedPackets(p, 2), [3, 103, 203], 'a new download counts from 0');
    assert.deepEqual(await damagedPackets(protocol, 3), [], 'the plain protocol damages nothing');
  });

  it('lying-meta flips every third checksum entry of its meta, and leaves data alone', async () => {
    const p = faultyProtocol(protocol, 'lying-meta');
    const sender = await protocol.createSender({ mode: 'coded', data: new Uint8Array(200_000).fill(3), params: {}, sourceIndex: 0, sourceCount: 1, seed: 1, downloadId: 9 });
    const [meta] = sender.metaMessages({ serverFetchMs: 1 });
    const honest = /** @type {any} */ (protocol.decodeMessage(protocol.encodeMessage({ ...meta, downloadId: 9 }))).msg.checksums;
    const lied = /** @type {any} */ (protocol.decodeMessage(p.encodeMessage({ ...meta, downloadId: 9 }))).msg.checksums;
    const units = honest.values.length / honest.entryBytes;
    assert.ok(units >= 3);
    for (let i = 0; i < units; i++) {
      const same = Buffer.compare(honest.values.subarray(i * honest.entryBytes, (i + 1) * honest.entryBytes), lied.values.subarray(i * lied.entryBytes, (i + 1) * lied.entryBytes)) === 0;
      assert.equal(same, (honest.first + i) % 3 !== 0, `entry ${i}`);
    }
    assert.deepEqual(await damagedPackets(p, 9, 20), []);
  });

  it('the env var names the faulty proxy by id; an unknown mode is a config error', () => {
    assert.equal(faultModeFor('p0=corrupt-coded-1pct,p2=lying-meta', 'p2'), 'lying-meta');
    assert.equal(faultModeFor('p0=corrupt-coded-1pct', 'p1'), null);
    assert.equal(faultModeFor(undefined, 'p1'), null);
    assert.throws(() => faultModeFor('p1=explode', 'p1'), { code: 'ERR_BAD_CONFIG' });
    assert.throws(() => faultyProtocol(protocol, 'explode'), { code: 'ERR_BAD_CONFIG' });
  });

  /** @param {Record<string, string>} env @returns {Promise<{ stdout: string, stderr: string, code: number | null }>} */
  function runProxy(env) {
    const child = spawn(process.execPath, [PROXY_BIN, '--port', '0', '--id', 'fp-1', '--no-require-tickets'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      if (stdout.includes('listening')) child.kill('SIGTERM');
    });
    child.stderr.on('data', (d) => { stderr += d; });
    return new Promise((resolve) => child.once('exit', (code) => resolve({ stdout, stderr, code })));
  }

  it('the command line installs it for the proxy the env var names, and refuses an unknown mode', async function () {
    this.timeout(30_000);
    const faulty = await runProxy({ [FAULT_ENV]: 'fp-1=corrupt-coded-1pct' });
    assert.match(faulty.stdout, /listening/);
    assert.match(faulty.stderr, /TEST ONLY: proxy fp-1 runs in fault mode corrupt-coded-1pct/);
    const other = await runProxy({ [FAULT_ENV]: 'fp-2=lying-meta' });
    assert.doesNotMatch(other.stderr, /TEST ONLY/);
    const bad = await runProxy({ [FAULT_ENV]: 'fp-1=explode' });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /ERR_BAD_CONFIG/);
  });
});
