// The local fleet for the end-to-end tests, in this process: Origo and N proxies on 127.0.0.1
// whose allowlist holds the test video site (as `npm start` with MUTP_ALLOWED_HOSTS). WebRTC
// binds to loopback too, or to `rtcBindAddress` (the Firefox test's namespace address: Firefox
// offers no loopback ICE candidate). In this process on purpose: with a process per proxy, as
// deployed, `npm run bench:players` on 2 cores gave a segment a median 10–11 ms more (up to 55:
// more processes and WebRTC threads beside the browser), not less.
import { randomBytes } from 'node:crypto';
import { startOrigo, proxyToken } from '@mutp/origo';
import { startProxy } from '@mutp/proxy';

const FLEET_READY_TIMEOUT_MS = 20_000; // proxies register over socket.io; slow on a busy 2-core box
const STATUS_EVERY_MS = 1000; // proxy status period (fast, so Origo notices restarts quickly)
const silent = { info() {}, warn() {}, error() {} };
const logger = process.env.MUTP_E2E_FLEET_LOG === '1' ? console : silent; // debugging: the fleet's own log

/**
 * @typedef {{ bind: string, name: string, port: number, rtcPorts?: string }} Endpoint  a deployment-like address: listen on `bind`,
 *   clients use `name`; rtcPorts: a proxy's --rtc-ports
 */

/**
 * @param {{proxyCount: number, allowedHosts: string[], rtcBindAddress?: string,
 *   deploy?: { origo: Endpoint, proxies: Endpoint[], tls?: {certFile: string, keyFile: string}, proxyTls?: boolean, allowPlainHttpProxies?: boolean }}} o
 *   deploy: Origo and each proxy on an address and name of their own (the namespace tests); with `tls`, Origo
 *   serves HTTPS, and the proxies too unless proxyTls is false. WebRTC binds to each proxy's own address.
 */
export async function startLocalFleet({ proxyCount, allowedHosts, rtcBindAddress, deploy }) {
  const secret = randomBytes(16).toString('hex');
  const tlsFiles = deploy?.tls ? { tlsCertFile: deploy.tls.certFile, tlsKeyFile: deploy.tls.keyFile } : {};
  const origo = await startOrigo({
    proxySecret: secret, db: ':memory:', logger, rateLimitPerMinute: 0, allowPrivateProxyUrls: true,
    ...(deploy ? { host: deploy.origo.bind, port: deploy.origo.port, allowPlainHttpProxies: deploy.allowPlainHttpProxies, ...tlsFiles } : { host: '127.0.0.1', port: 0 }),
  });
  // clients (and the proxies) reach Origo by its name, as in a deployment
  const origoUrl = deploy ? `${deploy.tls ? 'https' : 'http'}://${deploy.origo.name}:${deploy.origo.port}` : origo.url;
  /** @type {{id: string, close: () => Promise<void>, cache: () => ReturnType<Awaited<ReturnType<typeof startProxy>>['objects']['stats']>}[]} */
  const proxies = [];
  let started = 0;
  /** Start `count` more proxies (fresh ids) and wait until Origo lists them all. @param {number} count */
  async function addProxies(count) {
    for (let i = 0; i < count; i++) {
      const id = `e2e-${++started}`;
      const at = deploy?.proxies[started - 1];
      if (deploy && !at) throw new Error(`no address for proxy ${started}`);
      const proxyTls = deploy?.tls && deploy.proxyTls !== false;
      const p = await startProxy({
        id, token: proxyToken(secret, id), host: at?.bind ?? '127.0.0.1', port: at?.port ?? 0, origoUrl,
        allowedHosts, allowPrivate: true, statusEveryMs: STATUS_EVERY_MS, logger,
        ...(at ? { publicUrl: `${proxyTls ? 'https' : 'http'}://${at.name}:${at.port}`, rtcBindAddress: at.bind, rtcPorts: at.rtcPorts ?? null } : {}),
        ...(proxyTls ? tlsFiles : {}),
        ...(rtcBindAddress ? { rtcBindAddress } : {}),
      });
      proxies.push({ id, close: () => p.close(), cache: () => p.objects.stats() });
    }
    await waitForProxies(origoUrl, proxies.map((p) => p.id));
  }
  await addProxies(proxyCount);
  let origoClosed = false;
  return {
    origo, origoUrl, proxies, addProxies,
    killProxies: () => Promise.all(proxies.splice(0).map((p) => p.close())),
    async closeOrigo() {
      if (origoClosed) return;
      origoClosed = true;
      await origo.close();
    },
    async close() {
      await Promise.all(proxies.splice(0).map((p) => p.close()));
      await this.closeOrigo();
    },
  };
}

/** @param {string} origoUrl @param {string[]} ids */
async function waitForProxies(origoUrl, ids) {
  const count = ids.length;
  const deadline = Date.now() + FLEET_READY_TIMEOUT_MS;
  for (;;) {
    try {
      const body = await (await fetch(`${origoUrl}/api/proxies`)).json();
      const listed = new Set(Array.isArray(body?.proxies) ? body.proxies.map((p) => p?.id ?? p?.proxyId) : []);
      if (ids.every((id) => listed.has(id))) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`only some of ${count} proxies registered within ${FLEET_READY_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
