// The options page's and popup's notice about plain-HTTP endpoints: the configured Origo, and
// the proxies Origo offers (asked from this page, which is not under a page's mixed-content
// rule). Empty and hidden when every endpoint is HTTPS or loopback.
import { jsonCapped } from '@mutp/proxyclientlib/capped-body';
import { MAX_ORIGO_ANSWER_BYTES } from '@mutp/proxyclientlib/limits';
import { insecureEndpointNotes, isInsecureUrl } from './mixed-content.js';

const LIST_TIMEOUT_MS = 5000; // a notice, not a download: give up quickly
const MAX_LISTED = 64; // Origo's cap on n

/**
 * @param {HTMLElement} el  the notice's container (a clearly separate block of the page)
 * @param {string} origoUrl
 * @param {typeof fetch} [fetchImpl]
 */
export async function showInsecureNotice(el, origoUrl, fetchImpl = fetch) {
  let proxyUrls = [];
  if (!isInsecureUrl(origoUrl)) proxyUrls = await offeredProxyUrls(origoUrl, fetchImpl);
  const notes = insecureEndpointNotes({ origoUrl, proxyUrls });
  el.replaceChildren(...notes.map((text) => Object.assign(document.createElement('p'), { textContent: text })));
  el.hidden = notes.length === 0;
}

/** @param {string} origoUrl @param {typeof fetch} fetchImpl @returns {Promise<string[]>} */
async function offeredProxyUrls(origoUrl, fetchImpl) {
  try {
    const u = new URL('/api/proxies', origoUrl);
    u.searchParams.set('n', String(MAX_LISTED));
    const body = /** @type {any} */ (await jsonCapped(await fetchImpl(u, { signal: AbortSignal.timeout(LIST_TIMEOUT_MS) }), MAX_ORIGO_ANSWER_BYTES));
    return Array.isArray(body?.proxies) ? body.proxies.map((p) => p?.url).filter((x) => typeof x === 'string') : [];
  } catch {
    return []; // Origo unreachable: the popup's fallbacks say so
  }
}
