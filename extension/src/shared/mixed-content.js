// Plain-HTTP endpoints the browser refuses to the extension. The fleet client normally runs in a
// top-level extension document (Chrome's offscreen document, Firefox's background page), which no
// page's mixed-content rule reaches: there plain-HTTP Origo and proxies are allowed, in clear
// text (tickets too). Only where that document cannot be had does the download frame host the
// fleet, and Chromium applies the rule to that frame inside an HTTPS page: every request to a
// plain-HTTP Origo or proxy on a non-loopback host is blocked. Decided here up front, without
// trying, so the fallback carries a clear, counted code instead of a generic network error.
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
 * What the options page and popup say about plain-HTTP endpoints: one line per endpoint. The fleet
 * client runs outside the page (fleet-host.js), so the browser allows them.
 * @param {{ origoUrl: string, proxyUrls: string[] }} o
 * @returns {string[]}
 */
export function insecureEndpointNotes({ origoUrl, proxyUrls }) {
  const effect = `${ENGINE_NAME} allows it, but tickets and video URLs cross the network in clear text`;
  const notes = [];
  if (isInsecureUrl(origoUrl)) notes.push(`Origo ${new URL(origoUrl).origin} is plain HTTP: ${effect}.`);
  const proxies = [...new Set(proxyUrls.filter(isInsecureUrl).map((u) => new URL(u).origin))];
  if (proxies.length) notes.push(`${proxies.length} prox${proxies.length === 1 ? 'y is' : 'ies are'} plain HTTP (${proxies.join(', ')}): ${effect}.`);
  return notes;
}
