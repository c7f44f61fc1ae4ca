// Tools of the hostile-peer tests and of `npm run bench:hostile`: requests from a chosen loopback
// source address, a proxy as a child process (so it can be SIGKILLed), and a WebRTC offer that is
// never going to connect.
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { RTCPeerConnection } from 'node-datachannel/polyfill';

const PROXY_BIN = fileURLToPath(import.meta.resolve('@mutp/proxy/bin'));
const PROXY_START_TIMEOUT_MS = 20_000; // node + socket.io-client on a busy 2-core box

/**
 * A `fetch` whose requests leave from `localAddress` (e.g. 127.0.0.2: Linux routes all of 127/8 to
 * loopback), so one machine can play clients at different addresses. Enough of fetch for connectPeer.
 * @param {string} localAddress
 * @returns {typeof fetch}
 */
export function fetchFrom(localAddress) {
  return /** @type {any} */ ((/** @type {string} */ url, /** @type {any} */ init = {}) => new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers, localAddress, signal: init.signal }, (res) => {
      const chunks = /** @type {Buffer[]} */ ([]);
      res.on('data', (c) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        resolve({ ok: status >= 200 && status < 300, status, text: async () => text, json: async () => JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.end(init.body);
  }));
}

/** A real SDP offer (one data channel, loopback candidates) that nobody will ever complete. */
export async function deadOffer() {
  const pc = new RTCPeerConnection({ iceServers: [], ...(/** @type {any} */ ({ bindAddress: '127.0.0.1' })) });
  pc.createDataChannel('mutp');
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise((resolve) => {
    if (pc.iceGatheringState === 'complete') return resolve(undefined);
    pc.addEventListener('icegatheringstatechange', () => { if (pc.iceGatheringState === 'complete') resolve(undefined); });
  });
  const sdp = /** @type {string} */ (pc.localDescription?.sdp);
  pc.close();
  return sdp;
}

/**
 * Starts proxy/bin/proxy.js; resolves once it listens.
 * @param {string[]} args
 * @returns {Promise<{ url: string, child: import('node:child_process').ChildProcess, exited: Promise<unknown>, output: () => string }>}
 */
export async function spawnProxy(args) {
  const child = spawn(process.execPath, [PROXY_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (/** @type {Buffer} */ d) => { out = (out + d).slice(-8000); };
  child.stderr?.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`proxy did not start:\n${out}`)), PROXY_START_TIMEOUT_MS);
    child.stdout?.on('data', (d) => {
      keep(d);
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    exited.then(() => { clearTimeout(timer); reject(new Error(`proxy exited during start:\n${out}`)); });
  });
  return { url, child, exited, output: () => out };
}

/**
 * Sends request bytes and then nothing more; resolves when the server closes the connection.
 * @param {number} port @param {string} head  what to send (e.g. an unfinished header block)
 * @returns {Promise<{ answer: string, ms: number }>}  the server's bytes (a 408, or nothing) and the time to close
 */
export function stallRequest(port, head) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const socket = new net.Socket();
    let answer = '';
    socket.on('data', (d) => { answer += d; });
    socket.on('error', reject);
    socket.on('close', () => resolve({ answer, ms: performance.now() - t0 }));
    socket.connect(port, '127.0.0.1', () => socket.write(head));
  });
}
