// Browser: the native RTCPeerConnection. Chosen by the "browser" condition of the "#rtc" import.
export const RTCPeerConnection = globalThis.RTCPeerConnection;

/**
 * Browsers choose their own interfaces; nothing to configure.
 * @param {string[]} _proxyUrls
 * @returns {object}
 */
export function defaultRtcConfig(_proxyUrls) {
  return {};
}

/**
 * Ask the proxies for their packets in bundles (a few to a data-channel message): a browser
 * handles every message as a task on the page's main thread, the bottleneck of a MUTP download
 * there (Chromium, loopback, dash coded: the fleet host's main thread busy 2.8 s per load with
 * one packet per message, 1.5 s with three).
 */
export const TAKES_BUNDLES = true;

/** The browser owns its WebRTC stack: nothing to stop. */
export function releaseRtc() {}
