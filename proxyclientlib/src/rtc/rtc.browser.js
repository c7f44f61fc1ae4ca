// Browser: the global RTCPeerConnection: the browser's own in a page, and in the player plugins'
// worker its page's, through rtc-bridge.js. Chosen by the "browser" condition of the "#rtc" import.
export const RTCPeerConnection = globalThis.RTCPeerConnection;

/**
 * Browsers choose their own interfaces; nothing to configure.
 * @param {string[]} _proxyUrls
 * @returns {object}
 */
export function defaultRtcConfig(_proxyUrls) {
  return {};
}

/** The browser owns its WebRTC stack: nothing to stop. */
export function releaseRtc() {}
