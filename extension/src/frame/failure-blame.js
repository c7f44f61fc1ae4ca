// Which breakers a failed download opens: the proxies', the origin host's, or none (one URL's
// trouble, such as a 404, which the page meets again when it fetches the segment itself).
import { isOriginCode } from '@mutp/proxyclientlib/errors';

/** The host's segments cannot go through any proxy: the host is refused or misbehaves. */
const HOST_CODES = /ERR_HOST_NOT_ALLOWED|ERR_PRIVATE_ADDRESS|ERR_BAD_URL|ERR_ORIGIN_ENCODED/;
/** The fleet cannot reach the host at all: its next segments go direct while the breaker is open. */
const ORIGIN_UNREACHABLE_CODES = new Set(['ERR_ORIGIN_UNREACHABLE', 'ERR_ORIGIN_TIMEOUT']);
/**
 * Proxies that must say the same of the origin before it is believed: one alone may have its own
 * trouble (its network, the origin refusing its address), or lie to keep its breaker shut.
 */
const MIN_ORIGIN_WITNESSES = 2;

/**
 * @typedef {{proxyId: string, error: {code: string, message?: string}}} ProxyFailure
 * @typedef {{proxies: string[], host: boolean}} Blame  proxy ids whose breakers open; whether the host's does
 */

/**
 * @param {unknown} perProxy  the error's perProxy: every proxy asked, error null where it did not fail
 * @param {string} code       the download's error code
 * @param {string} [message]  its message
 * @returns {Blame}
 */
export function blameFailure(perProxy, code, message = '') {
  const asked = Array.isArray(perProxy) ? perProxy.filter((p) => p && typeof p.proxyId === 'string') : [];
  /** @type {ProxyFailure[]} */
  const failed = asked.filter((p) => p.error && typeof p.error.code === 'string');
  /** the same said by enough proxies, or by every proxy asked (the only witnesses there are) */
  const agreed = (/** @type {ProxyFailure[]} */ said) => said.length >= MIN_ORIGIN_WITNESSES || (said.length > 0 && said.length === asked.length);
  const originSaid = failed.filter((p) => isOriginCode(p.error.code) && !HOST_CODES.test(p.error.code));
  const originAgreed = agreed(originSaid);
  const proxies = failed
    .filter((p) => !HOST_CODES.test(p.error.code) && !(originAgreed && isOriginCode(p.error.code)))
    .map((p) => p.proxyId);
  const hostRefused = HOST_CODES.test(`${code} ${message} ${failed.map((p) => `${p.error.code} ${p.error.message ?? ''}`).join(' ')}`);
  const hostUnreachable = agreed(originSaid.filter((p) => ORIGIN_UNREACHABLE_CODES.has(p.error.code)));
  return { proxies, host: hostRefused || hostUnreachable };
}
