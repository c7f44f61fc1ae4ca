// Node: WebRTC from libdatachannel through node-datachannel's W3C polyfill.
// Chosen by the "#rtc" import condition in package.json; the browser gets rtc.browser.js.
export { RTCPeerConnection } from 'node-datachannel/polyfill';
