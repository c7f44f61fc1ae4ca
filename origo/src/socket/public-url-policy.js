// Which publicUrl a proxy may advertise: Origo hands it to every client, so it must not point
// clients (or a browser extension) at loopback, link-local or cloud-metadata addresses. The address
// classes are the proxies' own SSRF policy for origins, imported from @mutp/proxy.
import { checkAddress, ipLiteralOf } from '@mutp/proxy/address-policy';

/** Names that mean this machine without being IP literals. */
const LOOPBACK_NAMES = /^(localhost|.*\.localhost)\.?$/i;

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
