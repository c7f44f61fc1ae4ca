// Node: WebRTC from libdatachannel through node-datachannel's W3C polyfill.
// Chosen by the "#rtc" import condition in package.json; the browser gets rtc.browser.js.
export { RTCPeerConnection } from 'node-datachannel/polyfill';

/** Node takes one packet per message, as the paper's clients did (the testbed measures those). */
export const TAKES_BUNDLES = false;

/** Hosts that mean "this machine": a client talking to proxies there needs no other interface. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Node: libdatachannel gathers candidates on every interface; when all proxies are on loopback, bind
 * to loopback too (otherwise a loopback-only peer may be offered unreachable candidates first), else let it choose.
 * @param {string[]} proxyUrls
 * @returns {{ bindAddress?: string }}
 */
export function defaultRtcConfig(proxyUrls) {
  const allLoopback = proxyUrls.length > 0 && proxyUrls.every((u) => {
    try {
      return LOOPBACK_HOSTS.has(new URL(u).hostname);
    } catch {
      return false;
    }
  });
  return allLoopback ? { bindAddress: '127.0.0.1' } : {};
}
