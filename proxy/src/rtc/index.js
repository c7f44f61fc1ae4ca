// The proxy's WebRTC side: POST /rtc/offer signalling and one MUTP session per data channel.
// Contract (docs/origo-api.md): mountRtc(app, { objects, logs, stats, config, logger }) → { close() }.

import { RTCPeerConnection as NodeRTCPeerConnection } from 'node-datachannel/polyfill';
import { encodeMessage, decodeMessage, createSender } from '@mutp/protocol';
import { createSignalling } from './signalling.js';
import { createMutpSession } from './mutp-session.js';
import { MAX_PEER_CONNECTIONS } from './limits.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * @param {import('express').Express | import('express').Router} app
 * @param {import('./mutp-session.js').SessionDeps & {
 *   config?: { id?: string, host?: string, rtcBindAddress?: string, maxPeers?: number, maxSessions?: number },
 *   RTCPeerConnection?: typeof RTCPeerConnection,   // tests may inject another implementation
 *   rtcConfig?: object,                             // merged into every RTCPeerConnection config
 *   protocol?: import('./mutp-session.js').ProtocolApi,
 *   checkTicket?: ((ticket: unknown) => void) | null, // throws a coded error with status when the offer's ticket is refused
 * }} deps
 * @returns {{ close(): void, readonly peerCount: number }}
 */
export function mountRtc(app, deps) {
  const config = deps.config ?? {};
  const logger = deps.logger ?? console;
  // node-datachannel gathers candidates on every interface; a proxy listening on loopback must
  // offer only loopback (FIELD-NOTES "WebRTC in Node").
  const bindAddress = config.rtcBindAddress ?? (LOOPBACK_HOSTS.has(config.host ?? '') ? '127.0.0.1' : undefined);
  const protocol = deps.protocol ?? { encodeMessage, decodeMessage, createSender };
  const signalling = createSignalling({
    RTCPeerConnection: deps.RTCPeerConnection ?? /** @type {typeof RTCPeerConnection} */ (/** @type {unknown} */ (NodeRTCPeerConnection)),
    rtcConfig: { ...(bindAddress ? { bindAddress } : {}), ...deps.rtcConfig },
    logger,
    maxPeers: config.maxPeers ?? config.maxSessions ?? MAX_PEER_CONNECTIONS,
    checkTicket: deps.checkTicket ?? null,
    onChannel: (channel, peer) => createMutpSession({ channel, deps: { ...deps, logger }, protocol, remote: peer.remote }),
  });
  app.use(signalling.router);
  return {
    close: () => signalling.close(),
    get peerCount() {
      return signalling.peerCount;
    },
  };
}
