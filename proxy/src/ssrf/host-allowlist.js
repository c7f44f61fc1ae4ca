import { codedError } from '@mutp/common/errors';
import { ipLiteralOf } from './address-policy.js';

// Paper section III: the proxies fetch YouTube's video chunks, which come from these hosts.
export const DEFAULT_ALLOWED_HOSTS = Object.freeze(['*.googlevideo.com']);

const DEFAULT_PORT = { 'http:': 80, 'https:': 443 };

/**
 * @typedef {{ wildcard: boolean, host: string, port: number | null, text: string }} HostPattern
 *   port null = the scheme's default port only.
 */

/**
 * Parses "host", "host:port", "*.domain", "[v6]:port" into a pattern.
 * @param {string} text
 * @returns {HostPattern}
 */
export function parseHostPattern(text) {
  const t = text.trim().toLowerCase();
  const m = /^(\*\.)?(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(t);
  const port = m && m[3] !== undefined ? Number(m[3]) : null;
  if (!m || (port !== null && (port < 1 || port > 65535))) {
    throw codedError('ERR_BAD_CONFIG', `bad allowed host ${JSON.stringify(text)} (want host[:port] or *.domain)`);
  }
  const literal = ipLiteralOf(m[2]);
  if (m[1] && literal) throw codedError('ERR_BAD_CONFIG', `a wildcard cannot apply to an IP: ${text}`);
  return { wildcard: Boolean(m[1]), host: literal ?? m[2].replace(/\.$/, ''), port, text: t };
}

/**
 * Builds the allowlist check. A pattern without a port allows only the scheme's default
 * port, so allowing a host does not open every service on it.
 * @param {string[]} patterns
 * @returns {(url: URL) => boolean}
 */
export function createHostAllowlist(patterns) {
  const parsed = patterns.map(parseHostPattern);
  return (url) => {
    const host = ipLiteralOf(url.hostname) ?? url.hostname.toLowerCase().replace(/\.$/, '');
    const port = url.port === '' ? DEFAULT_PORT[url.protocol] : Number(url.port);
    return parsed.some((p) => {
      const portOk = p.port === null ? port === DEFAULT_PORT[url.protocol] : port === p.port;
      const hostOk = p.wildcard ? host.endsWith('.' + p.host) : host === p.host;
      return portOk && hostOk;
    });
  };
}

/**
 * Splits MUTP_ALLOWED_HOSTS ("a.example:8080, b.example").
 * @param {string | undefined} text
 * @returns {string[]}
 */
export function splitHostList(text) {
  return (text ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}
