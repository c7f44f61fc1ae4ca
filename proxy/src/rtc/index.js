// The proxy's WebRTC side: POST /rtc/offer signalling and one MUTP session per data channel.
// Contract (docs/origo-api.md): mountRtc(app, { objects, logs, stats, config, logger }) → { close() }.

import { encodeMessage, decodeMessage, createSender, createPathCache } from '@mutp/protocol';
import { createSignalling } from './signalling.js';
import { createMutpSession } from './mutp-session.js';
import { DEFAULT_MAX_SESSIONS, SCTP_MAX_MESSAGE_BYTES } from './limits.js';
import { rtcPortOptions } from './ports.js';
import { loadWrtc, describeRtcBuild, connectionRttMs } from './wrtc.js';

// One WebRTC build per process: its SCTP settings are global to the addon.
const wrtc = await loadWrtc();

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * @param {import('express').Express | import('express').Router} app
 * @param {import('./mutp-session.js').SessionDeps & {
 *   config?: { id?: string, host?: string, rtcBindAddress?: string, rtcPorts?: import('./ports.js').RtcPorts | null, maxPeers?: number,
 *     maxSessions?: number, uploadRateBps?: number | null },
 *   RTCPeerConnection?: typeof RTCPeerConnection,   // tests may inject another implementation
 *   rtcConfig?: object,                             // merged into every RTCPeerConnection config
 *   protocol?: import('./mutp-session.js').ProtocolApi,
 *   checkTicket?: ((ticket: unknown) => void) | null, // throws a coded error with status when the offer's ticket is refused
 *   pathCache?: ReturnType<typeof createPathCache>,  // tests may watch it
 * }} deps
 * @returns {{ close(): void, readonly peerCount: number }}
 */
export function mountRtc(app, deps) {
  const config = deps.config ?? {};
  const logger = deps.logger ?? console;
  // node-datachannel gathers candidates on every interface; a proxy listening on loopback must
  // offer only loopback, or the client may try unreachable candidates first.
  const bindAddress = config.rtcBindAddress ?? (LOOPBACK_HOSTS.has(config.host ?? '') ? '127.0.0.1' : undefined);
  const protocol = deps.protocol ?? { encodeMessage, decodeMessage, createSender };
  // what each client's downloads measured, for its next connection (a page load, a one-off download)
  const pathCache = deps.pathCache ?? createPathCache();
  if (!deps.RTCPeerConnection) logger.info(`webrtc build: ${describeRtcBuild(wrtc.build)}`, { rtcBuild: wrtc.build });
  const ports = rtcPortOptions(config.rtcPorts ?? null);
  const maxPeers = Math.min(config.maxPeers ?? config.maxSessions ?? DEFAULT_MAX_SESSIONS, ports.maxPeers);
  if (config.rtcPorts) logger.info(`webrtc: ${ports.said}; at most ${maxPeers} peer connections`);
  const signalling = createSignalling({
    RTCPeerConnection: deps.RTCPeerConnection ?? wrtc.RTCPeerConnection,
    rtcConfig: { ...(bindAddress ? { bindAddress } : {}), ...ports.rtcConfig, maxMessageSize: SCTP_MAX_MESSAGE_BYTES, ...deps.rtcConfig },
    logger,
    maxPeers,
    checkTicket: deps.checkTicket ?? null,
    hintFirst: deps.hintNext ?? null,
    // the session paces its packets: with SCTP's max burst off (tuned build) usrsctp sends what it
    // is given at once, and with it on (stock) an unpaced sender outran a receiver that was the
    // bottleneck (loopback: a third of the coded packets duplicates)
    onChannel: (channel, peer) => createMutpSession({
      channel, deps: { ...deps, logger }, protocol, remote: peer.remote, pacing: !deps.RTCPeerConnection, uplinkBps: config.uploadRateBps ?? null,
      rttHint: deps.RTCPeerConnection ? null : () => connectionRttMs(peer.pc), // an injected stack's stats may count in seconds
      paths: { cache: pathCache, key: pathKey(peer) },
    }),
  });
  app.use(signalling.router);
  // Which WebRTC build serves the data channels (tests and the testbed check it).
  app.get('/rtc/build', (_req, res) => {
    res.json(deps.RTCPeerConnection ? { kind: 'injected' } : wrtc.build);
  });
  return {
    close: () => signalling.close(),
    get peerCount() {
      return signalling.peerCount;
    },
  };
}

/**
 * Names a client's path: its address (the path) and its ticket's client id (one of several
 * clients behind one address, each with its own access link). @param {{ remote: string, clientId: string | null }} peer
 */
export function pathKey(peer) {
  return `${peer.remote} ${peer.clientId ?? ''}`;
}
