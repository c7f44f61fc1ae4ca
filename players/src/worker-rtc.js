// Evaluated first in the fleet's worker: it gives the worker an RTCPeerConnection, borrowed from
// its page (rtc-bridge.js), before ProxyClientLib reads the environment's from the global.
import { bridgedPeerConnection } from '@mutp/proxyclientlib/rtc-bridge';

export const rtcBridge = bridgedPeerConnection();
globalThis.RTCPeerConnection ??= /** @type {typeof RTCPeerConnection} */ (/** @type {unknown} */ (rtcBridge.PeerConnection));
