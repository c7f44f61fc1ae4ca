#!/usr/bin/env node
// What TLS costs a proxy: GET /fetch of a cached object over HTTP and over HTTPS from the same
// proxy code. Measures the proxy process's CPU per MB served (utime + stime from /proc, the
// proxy alone in a child process) and the time to the first response byte, on a new connection
// (TCP, plus the TLS handshake for HTTPS) and on a kept one. Loopback only; prints the load
// average with the numbers (a shared machine is noisy); asserts nothing.
// Usage: npm run bench:tls -- [--size 5000000] [--fetches 20] [--ttfb 30] [--json]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { makeTestCa, issueLeaf } from '@mutp/testkit/test-ca';

const { values } = parseArgs({ options: {
  size: { type: 'string', default: '5000000' }, fetches: { type: 'string', default: '20' }, ttfb: { type: 'string', default: '30' }, json: { type: 'boolean', default: false },
} });
const SIZE = Number(values.size); // a 2018 YouTube chunk is 1–5 MB
const FETCHES = Number(values.fetches);
const TTFB_ROUNDS = Number(values.ttfb);
const TTFB_BYTES = 1; // the smallest object: the first byte is the whole answer
const CLK_TCK = 100; // /proc/<pid>/stat ticks per second (USER_HZ, 100 on Linux)
const PROXY_BIN = fileURLToPath(new URL('../bin/proxy.js', import.meta.url));
const log = (/** @type {string} */ s) => { if (!values.json) process.stdout.write(`${s}\n`); };

const data = Buffer.alloc(SIZE, 7);
const tiny = Buffer.alloc(TTFB_BYTES, 1);
const origin = http.createServer((req, res) => res.end(req.url === '/tiny' ? tiny : data));
origin.listen(0, '127.0.0.1');
await once(origin, 'listening');
const originHost = `127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (origin.address()).port}`;
const dir = await mkdtemp(path.join(os.tmpdir(), 'mutp-bench-tls-'));
const ca = await makeTestCa(dir);
const leaf = await issueLeaf(ca, 'proxy', ['127.0.0.1']);
const caPem = await readFile(ca.certFile);

/** Starts the proxy CLI; resolves with its URL and pid. @param {boolean} tls */
async function startProxyProcess(tls) {
  const args = [PROXY_BIN, '--port', '0', '--no-require-tickets', '--allow-private', '--allowed-hosts', originHost, '--rate-limit', '0',
    ...(tls ? ['--tls-cert', leaf.certFile, '--tls-key', leaf.keyFile] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  for await (const chunk of child.stdout) {
    out += chunk;
    const m = /listening on (\S+)/.exec(out);
    if (m) return { url: m[1], child };
  }
  throw new Error(`the proxy did not start: ${out}`);
}

/** utime + stime of a process, seconds. @param {number} pid */
async function cpuSeconds(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // fields 14 and 15 of proc(5), counted after the comm
}

/**
 * One GET; resolves with the time to the first body byte and the bytes read.
 * @param {string} url @param {http.Agent | false} agent
 */
function get(url, agent) {
  const mod = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = mod.get(url, { agent, ca: caPem }, (res) => {
      let first = null;
      let bytes = 0;
      res.on('data', (c) => { first ??= performance.now() - t0; bytes += c.length; });
      res.on('end', () => resolve({ ttfbMs: first ?? performance.now() - t0, bytes, status: res.statusCode }));
    });
    req.on('error', reject);
  });
}

const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** @param {boolean} tls */
async function measure(tls) {
  const { url, child } = await startProxyProcess(tls);
  const mod = tls ? https : http;
  const kept = new mod.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const big = `${url}/fetch?url=${encodeURIComponent(`http://${originHost}/big`)}`;
    const small = `${url}/fetch?url=${encodeURIComponent(`http://${originHost}/tiny`)}`;
    await get(big, kept); // fills the cache: the measured fetches are the proxy's own work only
    await get(small, kept);
    const cpu0 = await cpuSeconds(child.pid);
    const t0 = performance.now();
    let bytes = 0;
    for (let i = 0; i < FETCHES; i++) bytes += (await get(big, kept)).bytes;
    const wallS = (performance.now() - t0) / 1000;
    const cpuS = (await cpuSeconds(child.pid)) - cpu0;
    const newConn = [];
    const keptConn = [];
    for (let i = 0; i < TTFB_ROUNDS; i++) { // interleaved, so load on the box hits both alike
      newConn.push((await get(small, false)).ttfbMs);
      keptConn.push((await get(small, kept)).ttfbMs);
    }
    const mb = bytes / 1e6;
    return { scheme: tls ? 'https' : 'http', mb, cpuMsPerMB: (cpuS * 1000) / mb, mbPerS: mb / wallS, ttfbNewMs: median(newConn), ttfbKeptMs: median(keptConn) };
  } finally {
    kept.destroy();
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

try {
  const loadBefore = os.loadavg();
  const results = [await measure(false), await measure(true)];
  const loadAfter = os.loadavg();
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ size: SIZE, fetches: FETCHES, ttfbRounds: TTFB_ROUNDS, loadBefore, loadAfter, cpus: os.cpus().length, results }, null, 2)}\n`);
  } else {
    log(`GET /fetch of a cached ${(SIZE / 1e6).toFixed(1)} MB object × ${FETCHES}, keep-alive; TTFB of a ${TTFB_BYTES} B object, median of ${TTFB_ROUNDS}`);
    log(`load average (1/5/15 min) ${loadBefore.map((x) => x.toFixed(2)).join(' ')} → ${loadAfter.map((x) => x.toFixed(2)).join(' ')} on ${os.cpus().length} cores`);
    log('scheme  proxy CPU ms/MB  MB/s   TTFB new conn ms  TTFB kept conn ms');
    for (const r of results) {
      log(`${r.scheme.padEnd(7)} ${r.cpuMsPerMB.toFixed(2).padStart(15)}  ${r.mbPerS.toFixed(0).padStart(5)}  ${r.ttfbNewMs.toFixed(2).padStart(16)}  ${r.ttfbKeptMs.toFixed(2).padStart(17)}`);
    }
  }
} finally {
  origin.close();
  await rm(dir, { recursive: true, force: true });
}
