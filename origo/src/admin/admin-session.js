// Admin sessions: an HMAC-signed token in an HttpOnly, SameSite=Strict cookie.
// Why a signed token and not cookie-session: the same verify() serves Express and the socket.io
// handshake (which only has the raw Cookie header), there is no session store to keep, and the key
// is random per process, so restarting Origo logs everyone out. Logout revokes the token's nonce.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parse, serialize } from 'cookie';

export const SESSION_COOKIE = 'origo_admin';
/** Cookie path: '/' and not '/admin', because the live socket.io connection goes to /socket.io/ and must carry it. */
const COOKIE_PATH = '/';
/** Session lifetime, ms: a working day of analysis, then log in again. */
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;
/** HMAC key, bytes (SHA-256 block-sized keys add nothing beyond 32 bytes). */
const KEY_BYTES = 32;
/** Random nonce per session, bytes: unguessable, and the handle logout revokes. */
const NONCE_BYTES = 16;

/**
 * @param {{ now?: () => number, secure?: boolean }} [opts]  secure: add the Secure attribute (Origo behind HTTPS)
 */
export function createSessionManager({ now = Date.now, secure = false } = {}) {
  const key = randomBytes(KEY_BYTES);
  /** nonce → expiry (ms); pruned as they expire */
  /** @type {Map<string, number>} */
  const revoked = new Map();
  const sign = (/** @type {string} */ body) => createHmac('sha256', key).update(body).digest('base64url');

  /** @param {string | undefined | null} token */
  function verifyToken(token) {
    if (typeof token !== 'string' || token.length > 200) return false;
    const parts = token.split('.');
    if (parts.length !== 4 || parts[0] !== 'v1') return false;
    const body = parts.slice(0, 3).join('.');
    const given = Buffer.from(parts[3]);
    const expected = Buffer.from(sign(body));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
    const expires = Number(parts[1]);
    if (!Number.isFinite(expires) || expires <= now()) return false;
    return !revoked.has(parts[2]);
  }

  return {
    /** A fresh session cookie (Set-Cookie value). */
    issueCookie() {
      const expires = now() + SESSION_TTL_MS;
      const body = `v1.${expires}.${randomBytes(NONCE_BYTES).toString('base64url')}`;
      return serialize(SESSION_COOKIE, `${body}.${sign(body)}`, {
        httpOnly: true, sameSite: 'strict', path: COOKIE_PATH, secure, maxAge: Math.floor(SESSION_TTL_MS / 1000),
      });
    },
    /** A Set-Cookie value that deletes the cookie. */
    clearCookie() {
      return serialize(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'strict', path: COOKIE_PATH, secure, maxAge: 0 });
    },
    /** @param {string | undefined} cookieHeader @returns {boolean} */
    isAuthenticated(cookieHeader) {
      if (!cookieHeader) return false;
      return verifyToken(parse(cookieHeader)[SESSION_COOKIE]);
    },
    /** Revokes the session in this Cookie header (logout). @param {string | undefined} cookieHeader */
    revoke(cookieHeader) {
      const token = cookieHeader ? parse(cookieHeader)[SESSION_COOKIE] : undefined;
      if (!verifyToken(token)) return;
      const [, expires, nonce] = /** @type {string} */ (token).split('.');
      const t = now();
      for (const [n, e] of revoked) if (e <= t) revoked.delete(n);
      revoked.set(nonce, Number(expires));
    },
  };
}
