// Cross traffic through the client's bottleneck: one long TCP download to the client from a
// host of its own, as another application of the same household downloads beside the video.
// Both ends are plain Node sockets; the kernel's TCP (the host's congestion control, cubic by
// default: links.js) is what competes.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { codedError } from '@mutp/common/errors';

const PEER = fileURLToPath(new URL('./cross-tcp-peer.js', import.meta.url));
/** The receiver's port: its own namespace's, so no testbed process (8080, 8090, 8000) clashes. */
export const CROSS_TCP_PORT = 5201;
const READY_TIMEOUT_MS = 10_000; // a Node start on 2 busy cores
const FIRST_BYTES_TIMEOUT_MS = 10_000; // connect + the first window, through the delay line

/**
 * @param {{senderNs: string, receiverNs: string, receiverIp: string, logFile: string, port?: number}} o
 */
export async function startCrossTcp({ senderNs, receiverNs, receiverIp, logFile, port = CROSS_TCP_PORT }) {
  const log = createWriteStream(logFile, { flags: 'a' });
  const run = (/** @type {string} */ ns, /** @type {string} */ role) => {
    const child = spawn('ip', ['netns', 'exec', ns, process.execPath, PEER, role, receiverIp, String(port)], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stderr.pipe(log, { end: false });
    return child;
  };
  const receiver = run(receiverNs, 'recv');
  receiver.stdin.on('error', () => {}); // gone at teardown
  const lines = createInterface({ input: receiver.stdout });
  /** @type {((line: string) => void)[]} */
  const waiting = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const nextLine = (/** @type {number} */ timeoutMs, /** @type {string} */ what) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(codedError('ERR_CROSS_TRAFFIC', `the cross-traffic receiver did not ${what} within ${timeoutMs} ms (see ${logFile})`)), timeoutMs);
    waiting.push((line) => {
      clearTimeout(timer);
      resolve(line);
    });
  });
  /** Payload bytes the receiver has read so far. */
  const receivedBytes = async () => {
    const answer = nextLine(READY_TIMEOUT_MS, 'answer');
    receiver.stdin.write('?\n');
    return Number(await answer);
  };
  await nextLine(READY_TIMEOUT_MS, 'listen');
  const sender = run(senderNs, 'send');
  const deadline = Date.now() + FIRST_BYTES_TIMEOUT_MS;
  while ((await receivedBytes()) === 0) {
    if (Date.now() > deadline) throw codedError('ERR_CROSS_TRAFFIC', `no cross-traffic bytes reached the client within ${FIRST_BYTES_TIMEOUT_MS} ms (see ${logFile})`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    receivedBytes,
    stop() {
      sender.kill('SIGTERM');
      receiver.stdin.end();
      receiver.kill('SIGTERM');
    },
  };
}
