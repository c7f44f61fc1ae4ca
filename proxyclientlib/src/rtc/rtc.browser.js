// Browser: the native RTCPeerConnection. Chosen by the "browser" condition of the "#rtc" import.
export const RTCPeerConnection = globalThis.RTCPeerConnection;
