// Which proxy public URLs Origo may offer to clients. A plain-HTTP URL works only where browsers
// allow it: loopback (npm start) and private addresses (the testbed, a LAN lab). On any other
// address an HTTPS page's extension frame is refused it as mixed content (Chromium), and tickets,
// URLs and bodies would cross the network in clear text; so it is not offered unless a lab says so.
import { BlockList, isIP } from 'node:net';

/** Addresses where plain HTTP stays local: loopback, RFC 1918, link-local, CGNAT, IPv6 ULA. */
const LOCAL_NETS = new BlockList();
for (const [net, bits] of [['127.0.0.0', 8], ['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['169.254.0.0', 16], ['100.64.0.0', 10]]) {
  LOCAL_NETS.addSubnet(/** @type {string} */ (net), /** @type {number} */ (bits), 'ipv4');
}
for (const [net, bits] of [['::1', 128], ['fc00::', 7], ['fe80::', 10]]) {
  LOCAL_NETS.addSubnet(/** @type {string} */ (net), /** @type {number} */ (bits), 'ipv6');
}

export const PLAIN_HTTP_REASON = 'plain-HTTP public URL on a public address or DNS name: browsers block it from HTTPS pages (mixed content) '
  + 'and its tickets and data would travel in clear text; give the proxy a TLS certificate (docs/deploy.md, "TLS")';

/**
 * @typedef {{ allowPlainHttp: boolean }} UrlPolicy  allowPlainHttp: a lab's explicit choice (e.g. Firefox only)
 */

/**
 * Why Origo does not offer a proxy with this public URL, or null when it does.
 * A DNS name over http:// is refused: Origo cannot tell where it points (only `localhost` can be trusted).
 * @param {string | null | undefined} publicUrl
 * @param {UrlPolicy} policy
 * @returns {string | null}
 */
export function notOfferedReason(publicUrl, policy) {
  if (typeof publicUrl !== 'string' || policy.allowPlainHttp) return null;
  let u;
  try {
    u = new URL(publicUrl);
  } catch {
    return null; // the status schema already checks the URL; nothing to add here
  }
  if (u.protocol !== 'http:') return null;
  return isLocalHost(u.hostname) ? null : PLAIN_HTTP_REASON;
}

/** @param {string} hostname  as URL gives it (IPv6 in brackets) */
export function isLocalHost(hostname) {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  const bare = h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
  const family = isIP(bare);
  if (family === 0) return false;
  if (family === 6 && bare.startsWith('::ffff:')) { // IPv4-mapped: judged as the IPv4 address
    const v4 = mappedV4(bare);
    if (v4) return LOCAL_NETS.check(v4, 'ipv4');
  }
  return LOCAL_NETS.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/** @param {string} v6 '::ffff:a.b.c.d' or '::ffff:7f00:1' */
function mappedV4(v6) {
  const tail = v6.slice('::ffff:'.length);
  if (isIP(tail) === 4) return tail;
  const m = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(tail);
  if (!m) return null;
  const hi = parseInt(m[1], 16);
  const lo = parseInt(m[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * Logs a warning the first time each proxy reports a public URL Origo will not offer.
 * @param {import('node:events').EventEmitter} events  'proxy-status' (clean status)
 * @param {UrlPolicy} policy
 * @param {{ warn: (msg: string, f?: object) => void }} logger
 */
export function warnAboutNotOffered(events, policy, logger) {
  /** @type {Map<string, string>} proxy id → the public URL already warned about */
  const warned = new Map();
  events.on('proxy-status', (/** @type {{ proxyId: string, publicUrl: string }} */ s) => {
    const reason = notOfferedReason(s.publicUrl, policy);
    if (reason === null || warned.get(s.proxyId) === s.publicUrl) return;
    warned.set(s.proxyId, s.publicUrl);
    logger.warn('proxy not offered to clients', { proxyId: s.proxyId, publicUrl: s.publicUrl, reason, override: 'ORIGO_ALLOW_PLAIN_HTTP_PROXIES=1 (labs only)' });
  });
}
