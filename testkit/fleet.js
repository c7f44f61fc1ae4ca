// A local system for integration tests, on 127.0.0.1 only: the demo origin, Origo and N
// proxies, either in this process (fast) or as child processes (so a test can kill one).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { startOrigo, proxyToken } from '@mutp/origo';
import { startProxy } from '@mutp/proxy';
import { startDemoOrigin } from '@mutp/demo/origin';

const PROXY_BIN = fileURLToPath(import.meta.resolve('@mutp/proxy/bin'));
const FLEET_READY_TIMEOUT_MS = 20_000; // proxy processes start node + socket.io; slow on a busy 2-core box
const silent = { info() {}, warn() {}, error() {} };

/**
 * @param {{proxyCount: number, processes?: boolean, tls?: {certFile: string, keyFile: string}, rates?: number[], adminPassword?: string}} o
 *   tls: Origo and the proxies serve HTTPS with this certificate (the process must trust its CA);
 *   rates: proxy i advertises rates[i] bytes/s to Origo (in-process proxies); adminPassword: opens Origo's dashboard
 */
export async function startFleet({ proxyCount, processes = false, tls, rates = [], adminPassword }) {
  const secret = randomBytes(16).toString('hex');
  const origin = await startDemoOrigin({ host: '127.0.0.1', port: 0 });
  const tlsFiles = tls ? { tlsCertFile: tls.certFile, tlsKeyFile: tls.keyFile } : {};
  const origo = await startOrigo({ proxySecret: secret, host: '127.0.0.1', port: 0, db: ':memory:', logger: silent, rateLimitPerMinute: 0,
    allowPrivateProxyUrls: true, ...tlsFiles, ...(adminPassword ? { adminPassword } : {}) });
  const allowed = `127.0.0.1:${origin.port}`;
  /** @type {{id: string, close: () => Promise<void>, kill?: () => void, stderr?: string}[]} */
  const proxies = [];
  for (let i = 1; i <= proxyCount; i++) {
    const id = `it-${i}`;
    const token = proxyToken(secret, id);
    if (processes) {
      const child = spawn(process.execPath, [PROXY_BIN, '--port', '0', '--id', id, '--token', token, '--origo', origo.url, '--allowed-hosts', allowed, '--allow-private',
        ...(tls ? ['--tls-cert', tls.certFile, '--tls-key', tls.keyFile] : [])], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      proxies.push({
        id,
        kill: () => child.kill('SIGKILL'),
        close: async () => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); await exited; },
        get stderr() { return stderr; },
      });
    } else {
      const p = await startProxy({ id, token, host: '127.0.0.1', port: 0, origoUrl: origo.url, allowedHosts: [allowed], allowPrivate: true, logger: silent, ...tlsFiles,
        uploadRateBps: rates[i - 1] ?? null });
      proxies.push({ id, close: () => p.close() });
    }
  }
  await waitForProxies(origo.url, proxyCount);
  return {
    origin, origo, proxies,
    async close() {
      await Promise.all(proxies.map((p) => p.close()));
      await origo.close();
      await origin.close();
    },
  };
}

/**
 * @param {string} origoUrl
 * @param {number} count
 */
export async function waitForProxies(origoUrl, count) {
  const deadline = Date.now() + FLEET_READY_TIMEOUT_MS;
  for (;;) {
    const res = await fetch(`${origoUrl}/api/proxies?n=64`).catch(() => null);
    const body = res ? await res.json().catch(() => null) : null;
    if ((body?.proxies?.length ?? 0) >= count) return body.proxies;
    if (Date.now() > deadline) throw new Error(`only ${body?.proxies?.length ?? 0} of ${count} proxies registered with Origo`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
