// Node: WebRTC from libdatachannel through node-datachannel's W3C polyfill.
// Chosen by the "#rtc" import condition in package.json; the browser gets rtc.browser.js.
export { RTCPeerConnection } from 'node-datachannel/polyfill';
import { cleanup } from 'node-datachannel';

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

/**
 * Stop the WebRTC stack's threads, for a process that is done with every connection (the CLI at
 * its end). A peer connection libdatachannel is still closing holds Node's event loop without a
 * handle it could name: a one-off `mutp get` lingered until its 2 s exit grace in 1 of 5 runs
 * (testbed, 8 MiB coded; none in 10 with this, which took ≤ 12 ms).
 */
export function releaseRtc() {
  cleanup();
}
