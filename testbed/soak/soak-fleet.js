// The soak's processes: Origo (child, on-disk DuckDB) and N proxies (children) that can be
// SIGKILLed and restarted under the same id.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { proxyToken } from '@mutp/origo';

const PROXY_BIN = fileURLToPath(new URL('../../proxy/bin/proxy.js', import.meta.url));
const PROXY_START_TIMEOUT_MS = 30_000; // node + socket.io + libdatachannel on a busy 2-core box
const STOP_GRACE_MS = 15_000; // SIGTERM lets a proxy drain its log queue to Origo; then SIGKILL

/**
 * @param {{id: string, secret: string, origoUrl: string, allowedHost: string}} o
 */
export function createProxyProcess({ id, secret, origoUrl, allowedHost }) {
  /** @type {import('node:child_process').ChildProcess | null} */ let child = null;
  /** @type {Promise<unknown> | null} */ let exited = null;
  let incarnation = 0;
  let stderr = '';
  return {
    id,
    get pid() { return child?.pid ?? null; },
    get incarnation() { return incarnation; },
    get running() { return child !== null && child.exitCode === null && child.signalCode === null; },
    get stderr() { return stderr; },
    /** @param {string[]} [extraArgs] */
    async start(extraArgs = []) {
      incarnation++;
      const c = spawn(process.execPath, [PROXY_BIN, '--port', '0', '--host', '127.0.0.1', '--id', id, '--token', proxyToken(secret, id), '--origo', origoUrl,
        '--allowed-hosts', allowedHost, '--allow-private', ...extraArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
      child = c;
      c.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
      exited = new Promise((resolve) => c.once('exit', (code, signal) => resolve({ code, signal })));
      await new Promise((resolve, reject) => {
        let out = '';
        const t = setTimeout(() => reject(new Error(`proxy ${id} did not start: ${stderr}`)), PROXY_START_TIMEOUT_MS);
        c.stdout.on('data', (d) => { out += d; if (out.includes('listening on')) { clearTimeout(t); resolve(undefined); } });
        exited.then(() => { clearTimeout(t); reject(new Error(`proxy ${id} exited during start: ${stderr}`)); });
      });
    },
    async kill() {
      if (!this.running) return;
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (!this.running) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(t);
    },
  };
}
