// A proxy in a process of its own (bin/proxy.js), as a deployment runs it: the local system
// (`npm start`) and the end-to-end fleet use it, so no proxy shares an event loop with Origo,
// another proxy or a test driver. Resolves once the proxy listens.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { codedError } from '@mutp/common/errors';

const PROXY_BIN = fileURLToPath(new URL('../bin/proxy.js', import.meta.url));
/** A proxy process loads node-datachannel and binds its ports in well under a second; a loaded 2-core box is slower. */
const START_TIMEOUT_MS = 20_000;
/** After SIGTERM the proxy closes its sessions and exits; past this it is killed. */
const STOP_TIMEOUT_MS = 5_000;
/** The line bin/proxy.js prints once it listens. */
const LISTENING = /^proxy (\S+) listening on (\S+)$/;

/**
 * @param {object} o
 * @param {string[]} o.args        bin/proxy.js flags (--id, --port, --origo, …)
 * @param {NodeJS.ProcessEnv} [o.env]  added to this process's environment
 * @param {(line: string) => void} [o.onLog]  each line the proxy writes to stderr (its log)
 * @returns {Promise<{ id: string, url: string, pid: number, close: () => Promise<void> }>}
 */
export function spawnProxy({ args, env = {}, onLog = () => {} }) {
  const child = spawn(process.execPath, [PROXY_BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] }); // the IPC channel: the proxy stops when this process dies
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stderr) }).on('line', onLog);
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      close();
      reject(codedError('ERR_PROXY_START', `the proxy did not listen within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) }).on('line', (line) => {
      const m = LISTENING.exec(line.trim());
      if (!m) return;
      clearTimeout(timer);
      resolve({ id: m[1], url: m[2], pid: /** @type {number} */ (child.pid), close });
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(codedError('ERR_PROXY_START', `the proxy exited before it listened (${signal ?? `code ${code}`})`));
    });
  });
}
