import { createHmac, timingSafeEqual } from 'node:crypto';

/** A token is HMAC-SHA256 as lowercase hex: 32 bytes, 64 characters. */
const TOKEN_HEX_CHARS = 64;
const TOKEN_PATTERN = /^[0-9a-f]{64}$/;

/**
 * The token a proxy presents to Origo: HMAC-SHA256(secret, proxyId), lowercase hex.
 * @param {string} secret  Origo's ORIGO_PROXY_SECRET
 * @param {string} proxyId
 * @returns {string}
 */
export function proxyToken(secret, proxyId) {
  if (typeof secret !== 'string' || secret.length === 0) throw new TypeError('proxyToken: secret must be a non-empty string');
  if (typeof proxyId !== 'string' || proxyId.length === 0) throw new TypeError('proxyToken: proxyId must be a non-empty string');
  return createHmac('sha256', secret).update(proxyId, 'utf8').digest('hex');
}

/**
 * Checks a presented token in constant time (over its content; the length is public).
 * @param {string} secret
 * @param {string} proxyId
 * @param {unknown} token
 * @returns {boolean}
 */
export function verifyProxyToken(secret, proxyId, token) {
  if (typeof token !== 'string' || token.length !== TOKEN_HEX_CHARS || !TOKEN_PATTERN.test(token)) return false;
  const expected = Buffer.from(proxyToken(secret, proxyId), 'utf8');
  return timingSafeEqual(expected, Buffer.from(token, 'utf8'));
}
