// Which proxy public URLs Origo accepts and offers, judged with the proxies' own address classes
// (@mutp/proxy/address-policy):
// - checkPublicUrl: a status whose publicUrl names loopback, link-local or cloud-metadata
//   addresses is ignored (Origo hands the URL to every client), unless the deployment allows
//   private proxies (npm start, the testbed);
// - notOfferedReason: plain HTTP works only where browsers allow it, on loopback and private
//   addresses. Elsewhere an HTTPS page's extension frame is refused it as mixed content (Chromium),
//   and tickets, URLs and bodies would cross the network in clear text; so it is not offered
//   unless a lab says so.
import { checkAddress, ipLiteralOf, isPrivateAddress } from '@mutp/proxy/address-policy';

/** Names that mean this machine without being IP literals. */
const LOOPBACK_NAMES = /^(localhost|.*\.localhost)\.?$/i;

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

/**
 * Loopback, private, link-local, CGNAT or ULA (the proxies' own classes), or a loopback name.
 * @param {string} hostname  as URL gives it (IPv6 in brackets)
 */
export function isLocalHost(hostname) {
  if (LOOPBACK_NAMES.test(hostname)) return true;
  const literal = ipLiteralOf(hostname);
  return literal !== null && isPrivateAddress(literal);
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

/**
 * @param {string} text  a schema-checked http(s) URL
 * @param {{ allowPrivate: boolean }} policy  allowPrivate: loopback/private/link-local proxies (local fleets, testbeds)
 * @returns {{ ok: boolean, reason?: string }}  reason is set when refused
 */
export function checkPublicUrl(text, { allowPrivate }) {
  let url;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'publicUrl does not parse' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: `publicUrl scheme ${url.protocol}` };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'publicUrl carries credentials' };
  const literal = ipLiteralOf(url.hostname);
  if (literal !== null) {
    const verdict = checkAddress(literal, { allowPrivate });
    return verdict.ok ? { ok: true } : { ok: false, reason: `publicUrl names a ${verdict.reason}` };
  }
  if (LOOPBACK_NAMES.test(url.hostname) && !allowPrivate) return { ok: false, reason: `publicUrl names loopback host ${url.hostname}` };
  return { ok: true };
}
