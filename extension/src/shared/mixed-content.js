// Plain-HTTP endpoints the browser refuses to the extension. Chromium applies the mixed-content
// rule to the download frame when it is embedded in an HTTPS page (the extension's service worker
// and its own tabs are exempt): every request to a plain-HTTP Origo or proxy on a non-loopback
// host is blocked. Decided here up front, without trying, so the fallback carries a clear,
// counted code instead of a generic network error. Firefox allows these requests from its
// moz-extension: frame, but they cross the network in clear text (tickets too).
import { EXTENSION_FRAMES_UNDER_MIXED_CONTENT, ENGINE_NAME } from '#engine-rules';

export const MIXED_CONTENT_CODE = 'ERR_MIXED_CONTENT_BLOCKED';

/**
 * Loopback hosts are "potentially trustworthy" (W3C Secure Contexts): http:// to them is never
 * mixed content. Everything else over http:// is.
 * @param {string} hostname  as URL gives it (IPv6 in brackets)
 */
export function isLoopbackHost(hostname) {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** @param {string} url @returns {boolean} plain http:// to a host that is not loopback */
export function isInsecureUrl(url) {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' && !isLoopbackHost(u.hostname);
  } catch {
    return false;
  }
}

/**
 * Whether this page is the download frame under an HTTPS page in a browser that applies the
 * mixed-content rule there. Its own tab or the toolbar popup is not framed; under an http: page
 * window.isSecureContext is false.
 * @param {{ parent: unknown, isSecureContext: boolean }} win
 */
export function frameUnderMixedContentRule(win) {
  return EXTENSION_FRAMES_UNDER_MIXED_CONTENT && win.parent !== win && win.isSecureContext === true;
}

/**
 * ProxyClientLib's `blocked` hook: the refusal for a URL this context cannot fetch, or null.
 * @param {boolean} underRule  frameUnderMixedContentRule(window)
 * @returns {(url: string) => { code: string, message: string } | null}
 */
export function mixedContentGuard(underRule) {
  return (url) => (underRule && isInsecureUrl(url)
    ? { code: MIXED_CONTENT_CODE, message: `${ENGINE_NAME} blocks ${new URL(url).origin} from the extension's frame on HTTPS pages (mixed content): it needs https://` }
    : null);
}

/**
 * What the options page and popup say about plain-HTTP endpoints: one line per endpoint.
 * @param {{ origoUrl: string, proxyUrls: string[] }} o
 * @returns {string[]}
 */
export function insecureEndpointNotes({ origoUrl, proxyUrls }) {
  const effect = EXTENSION_FRAMES_UNDER_MIXED_CONTENT
    ? `${ENGINE_NAME} blocks it on HTTPS pages (mixed content), so their chunks go direct (${MIXED_CONTENT_CODE})`
    : `${ENGINE_NAME} allows it, but tickets and video URLs cross the network in clear text`;
  const notes = [];
  if (isInsecureUrl(origoUrl)) notes.push(`Origo ${new URL(origoUrl).origin} is plain HTTP: ${effect}.`);
  const proxies = [...new Set(proxyUrls.filter(isInsecureUrl).map((u) => new URL(u).origin))];
  if (proxies.length) notes.push(`${proxies.length} prox${proxies.length === 1 ? 'y is' : 'ies are'} plain HTTP (${proxies.join(', ')}): ${effect}.`);
  return notes;
}
