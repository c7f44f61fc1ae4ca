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

/** The browser owns its WebRTC stack: nothing to stop. */
export function releaseRtc() {}
