import { MAX_URL_CHARS } from '@mutp/protocol/constants';
import { codedError } from '@mutp/common/errors';
import { checkAddress, ipLiteralOf } from './address-policy.js';

const ALLOWED_SCHEMES = new Set(['http:', 'https:']);

/**
 * Checks one URL (the first request or a redirect hop) before any connection is made:
 * scheme, credentials, IP-literal address class, allowlist. DNS names are checked again at
 * connect time by the guarded lookup.
 * @param {string} text
 * @param {{ allowPrivate?: boolean, isHostAllowed: (url: URL) => boolean }} policy
 * @returns {URL}
 */
export function checkTargetUrl(text, policy) {
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_URL_CHARS) {
    throw codedError('ERR_BAD_URL', `url must be a string of 1..${MAX_URL_CHARS} characters`);
  }
  let url;
  try {
    url = new URL(text);
  } catch {
    throw codedError('ERR_BAD_URL', 'url does not parse');
  }
  if (!ALLOWED_SCHEMES.has(url.protocol)) throw codedError('ERR_BAD_URL', `scheme ${url.protocol} is not http/https`);
  if (url.username !== '' || url.password !== '') throw codedError('ERR_BAD_URL', 'url must not carry credentials');
  if (url.hostname === '') throw codedError('ERR_BAD_URL', 'url has no host');
  const literal = ipLiteralOf(url.hostname);
  if (literal !== null) {
    const verdict = checkAddress(literal, policy);
    if (!verdict.ok) throw codedError('ERR_SSRF_BLOCKED', `refused address: ${verdict.reason}`);
  }
  if (!policy.isHostAllowed(url)) throw codedError('ERR_HOST_NOT_ALLOWED', `host ${url.host} is not on the allowlist`);
  return url;
}
