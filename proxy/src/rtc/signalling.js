// POST /rtc/offer: SDP offer in, SDP answer out (after ICE gathering completes). Each accepted
// data channel is handed to `onChannel`; of MUTP this module knows only that an offer may carry
// the first request (checked by @mutp/protocol), which the channel's session gets as it opens.

import express from 'express';
import { closeConnection } from '@mutp/proxyclientlib/close-connection';
import { MAX_URL_CHARS, MUTP_CHANNEL_LABEL, MUTP_CHANNEL_OPTIONS } from '@mutp/protocol/constants';
import { parseOfferRequest, MAX_OFFER_REQUEST_CHARS } from '@mutp/protocol/offer-request';
import { codedError, sendError } from './http-error.js';
import { iceGatheringComplete } from './ice-gathering.js';
import { createPeerRegistry } from './peer-registry.js';
import {
  ICE_GATHER_TIMEOUT_MS, MAX_OFFER_BODY_BYTES, DEFAULT_MAX_SESSIONS, MAX_PENDING_PEERS_PER_ADDRESS, MAX_PENDING_PEERS_PER_CLIENT, MAX_SDP_CHARS,
} from './limits.js';

/**
 * Data channels open at once per peer (count): a client keeps its connection between downloads
 * and opens one channel per download (a closing one may still linger ~100 ms); the cap stops one
 * peer from holding many sessions on one ticket.
 */
const MAX_CHANNELS_PER_PEER = 4;

/**
 * @typedef {import('./peer-registry.js').Peer} Peer
 * @typedef {{ stop: (reason: string) => void, receive?: (bytes: Uint8Array) => void }} ChannelSession  receive: a message that came another way (the offer's request)
 */

/**
 * Largest pre-agreed channel id an offer may ask for: SCTP stream ids go to 65534, libdatachannel
 * negotiates at most 1024 streams.
 */
const MAX_NEGOTIATED_CHANNEL_ID = 1023;

/**
 * Validate a parsed offer body: `{ type: "offer", sdp, ticket?, first?, negotiatedChannelId?, request? }`.
 * `first`: the object the client's download will ask for first, so it can be fetched while the
 * connection opens. `negotiatedChannelId`: the client made the MUTP channel pre-agreed on this
 * SCTP stream; we make our end, and say so in the answer. `request`: the download's MUTP request
 * on that channel (base64), which we serve as soon as our end opens.
 * @param {unknown} body
 * @returns {{ type: 'offer', sdp: string, first: string | null, negotiatedChannelId: number | null, request: Uint8Array | null }}
 */
export function parseOfferBody(body) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw codedError('ERR_BAD_OFFER', 'body must be a JSON object { type: "offer", sdp }', 400);
  }
  const { type, sdp } = /** @type {Record<string, unknown>} */ (body);
  if (type !== 'offer') throw codedError('ERR_BAD_OFFER', 'type must be "offer"', 400);
  if (typeof sdp !== 'string' || sdp.length === 0) throw codedError('ERR_BAD_OFFER', 'sdp must be a non-empty string', 400);
  if (sdp.length > MAX_SDP_CHARS) throw codedError('ERR_OFFER_TOO_LARGE', `sdp longer than ${MAX_SDP_CHARS} characters`, 413);
  if (!sdp.startsWith('v=0')) throw codedError('ERR_BAD_OFFER', 'sdp does not start with v=0', 400);
  const { first = null, negotiatedChannelId = null, request = null } = /** @type {Record<string, unknown>} */ (body);
  const channelOk = negotiatedChannelId === null || (typeof negotiatedChannelId === 'number' && Number.isInteger(negotiatedChannelId)
    && negotiatedChannelId >= 0 && negotiatedChannelId <= MAX_NEGOTIATED_CHANNEL_ID);
  if (!channelOk) throw codedError('ERR_BAD_OFFER', `negotiatedChannelId must be an integer 0..${MAX_NEGOTIATED_CHANNEL_ID}`, 400);
  if (first !== null && (typeof first !== 'string' || first.length === 0 || first.length > MAX_URL_CHARS)) {
    throw codedError('ERR_BAD_OFFER', `first must be a URL of 1..${MAX_URL_CHARS} characters`, 400);
  }
  const firstRequest = request === null ? null : parseOfferRequest(request);
  if (request !== null && (firstRequest === null || negotiatedChannelId === null)) {
    throw codedError('ERR_BAD_OFFER', `request must be one MUTP request in base64 (at most ${MAX_OFFER_REQUEST_CHARS} characters), with negotiatedChannelId`, 400);
  }
  return { type, sdp, first: /** @type {string | null} */ (first), negotiatedChannelId: /** @type {number | null} */ (negotiatedChannelId), request: firstRequest };
}

/**
 * Make us (the proxy) the DTLS client: read the offer's `a=setup:actpass` as `a=setup:passive`, so
 * our answer says `active` and we send the ClientHello once our ICE is connected. The client is
 * the controlling ICE agent and is connected before we are; the other way round, its ClientHello
 * often reached us before our ICE transport counted as connected, was dropped, and the handshake
 * waited out DTLS's 1 s retransmission. Loopback, node-datachannel client: 4 of 12 cold connects
 * took ~1 s (tuned build: every one), against 24 of 24 in 61–149 ms with us as the DTLS client.
 * Our checks cannot start before the client has our answer: its candidates are dropped (below).
 * @param {string} sdp
 */
export function preferLocalDtlsClient(sdp) {
  return sdp.replace(/^a=setup:actpass\r?$/gm, (line) => line.replace('actpass', 'passive'));
}

/**
 * Drop the client's candidates from its offer, so we send no ICE check before the client has our
 * answer: an early check makes libdatachannel on the client fail to apply the answer ("Got a remote
 * candidate without ICE transport"). The client checks us first (our answer carries our candidates)
 * and we learn its address from those checks (a peer-reflexive candidate, RFC 8445 7.3.1.3).
 * @param {string} sdp
 */
export function withoutCandidates(sdp) {
  return sdp.replace(/^a=(candidate:|end-of-candidates).*(\r?\n|$)/gm, '');
}

/**
 * @param {object} opts
 * @param {typeof RTCPeerConnection} opts.RTCPeerConnection
 * @param {object} opts.rtcConfig         passed to every RTCPeerConnection (e.g. bindAddress)
 * @param {(channel: RTCDataChannel, peer: Peer) => ChannelSession} opts.onChannel
 * @param {{ info: Function, warn: Function, error: Function }} opts.logger
 * @param {number} [opts.maxPeers]
 * @param {number} [opts.idleTimeoutMs]
 * @param {number} [opts.openTimeoutMs]
 * @param {((ticket: unknown) => unknown) | null} [opts.checkTicket]  returns the ticket's fields ({ clientId }); throws (with status) when the body's `ticket` is refused
 * @param {((url: string) => unknown) | null} [opts.hintFirst]  an accepted offer's `first`: fetch it now, under the rules of a next-object
 *   hint (objects/next-hint.js: the origin fetcher's URL checks; a refusal is counted, the offer still answered)
 */
export function createSignalling({ RTCPeerConnection, rtcConfig, onChannel, logger, maxPeers = DEFAULT_MAX_SESSIONS,
  idleTimeoutMs, openTimeoutMs, checkTicket = null, hintFirst = null }) {
  const registry = createPeerRegistry({ maxPeers, logger, idleTimeoutMs, openTimeoutMs });
  let closed = false;

  const router = express.Router();
  router.post('/rtc/offer', express.json({ limit: MAX_OFFER_BODY_BYTES, type: () => true }), async (req, res) => {
    let peer = null;
    try {
      if (closed) throw codedError('ERR_SHUTTING_DOWN', 'proxy is shutting down', 503);
      const offer = parseOfferBody(req.body);
      // Every check comes before the RTCPeerConnection exists: a refusal costs an HMAC at most.
      const ticket = /** @type {{ clientId?: unknown } | undefined} */ (checkTicket?.(req.body.ticket));
      const clientId = typeof ticket?.clientId === 'string' ? ticket.clientId : null;
      const remote = String(req.ip ?? 'peer');
      // Peers that never open hold a slot until the sweep: one client or address may hold only a few.
      if (clientId !== null && registry.pending((p) => p.clientId === clientId) >= MAX_PENDING_PEERS_PER_CLIENT) {
        throw codedError('ERR_PEERS_PENDING', `this client already has ${MAX_PENDING_PEERS_PER_CLIENT} connections opening; finish one first`, 429);
      }
      if (registry.pending((p) => p.remote === remote) >= MAX_PENDING_PEERS_PER_ADDRESS) {
        throw codedError('ERR_PEERS_PENDING', `this address already has ${MAX_PENDING_PEERS_PER_ADDRESS} connections opening; finish one first`, 429);
      }
      if (registry.full()) throw codedError('ERR_PROXY_BUSY', `more than ${maxPeers} peer connections; try another proxy`, 503);
      // the origin fetch runs while ICE, DTLS and SCTP complete; the request finds it under way or done
      if (offer.first !== null) hintFirst?.(offer.first);
      const opened = openPeer(remote, clientId);
      peer = opened.peer;
      const pc = peer.pc;
      await pc.setRemoteDescription({ type: 'offer', sdp: withoutCandidates(preferLocalDtlsClient(offer.sdp)) });
      await pc.setLocalDescription(await pc.createAnswer());
      const negotiated = offer.negotiatedChannelId;
      // our end of the pre-agreed channel: it opens with the SCTP association, as the client's does
      if (negotiated !== null) opened.accept(pc.createDataChannel(MUTP_CHANNEL_LABEL, { ...MUTP_CHANNEL_OPTIONS, negotiated: true, id: negotiated }), offer.request);
      await iceGatheringComplete(pc, ICE_GATHER_TIMEOUT_MS);
      const answer = pc.localDescription;
      if (!answer || answer.type !== 'answer') throw codedError('ERR_RTC_NO_ANSWER', 'no local answer', 500);
      res.json({ type: 'answer', sdp: answer.sdp, ...(negotiated !== null ? { negotiatedChannelId: negotiated } : {}), ...(offer.request ? { requestTaken: true } : {}) });
    } catch (e) {
      const err = /** @type {any} */ (e);
      if (peer) peer.close('signalling failed');
      if (!err.status) {
        // the RTC stack refused the SDP: the peer's fault, not ours
        logger.warn(`rtc: offer refused from ${req.ip}: ${err.message}`);
        sendError(res, codedError(err.code ?? 'ERR_BAD_OFFER', String(err.message), 400));
      } else {
        if (err.status >= 500) logger.warn(`rtc: ${err.code}: ${err.message}`);
        else logger.warn(`rtc: bad offer from ${req.ip}: ${err.code}`);
        sendError(res, err);
      }
    }
  });
  // body-parser errors (too large, bad JSON) arrive here; answer with our error shape
  router.use('/rtc', (/** @type {any} */ err, /** @type {any} */ req, /** @type {any} */ res, /** @type {any} */ next) => {
    if (!err) return next();
    const tooLarge = err.type === 'entity.too.large';
    logger.warn(`rtc: unreadable offer body from ${req.ip}: ${err.type ?? err.message}`);
    if (tooLarge) sendError(res, codedError('ERR_OFFER_TOO_LARGE', `offer body over ${MAX_OFFER_BODY_BYTES} bytes`, 413));
    else sendError(res, codedError('ERR_BAD_OFFER', 'offer body is not JSON', 400));
  });

  /**
   * A peer connection, and `accept`, which runs a data channel of it (one the client opened in
   * band, or our end of a pre-agreed one) through `onChannel` once it is open.
   * @param {string} remote @param {string | null} clientId
   */
  function openPeer(remote, clientId) {
    const pc = new RTCPeerConnection({ iceServers: [], ...rtcConfig });
    /** @type {Set<ChannelSession>} */
    const sessions = new Set();
    let channels = 0;
    let isClosed = false;
    /** @type {Peer} */
    const peer = {
      pc,
      remote,
      clientId,
      createdAt: Date.now(),
      lastActivityAt: Date.now(),
      channelOpened: false,
      close(reason) {
        if (isClosed) return;
        isClosed = true;
        registry.remove(peer);
        for (const s of sessions) s.stop(reason);
        sessions.clear();
        closeConnection(pc);
      },
    };
    registry.add(peer);
    pc.addEventListener('connectionstatechange', () => {
      if (pc.connectionState === 'failed' || pc.connectionState === 'closed') peer.close(`connection ${pc.connectionState}`);
    });
    /** @param {RTCDataChannel} channel @param {Uint8Array | null} [firstRequest]  the offer's request: the session takes it as the channel opens */
    const accept = (channel, firstRequest = null) => {
      if (channels >= MAX_CHANNELS_PER_PEER) {
        logger.warn('rtc: peer opened too many data channels at once; closing the extra one');
        channel.close();
        return;
      }
      channels++;
      let counted = true;
      const uncount = () => {
        if (counted) channels--;
        counted = false;
      };
      channel.addEventListener('close', uncount, { once: true });
      channel.binaryType = 'arraybuffer';
      const start = () => {
        peer.channelOpened = true;
        peer.lastActivityAt = Date.now();
        channel.addEventListener('message', () => {
          peer.lastActivityAt = Date.now();
        });
        const session = onChannel(channel, peer);
        sessions.add(session);
        if (firstRequest) session.receive?.(firstRequest);
        channel.addEventListener('close', () => {
          session.stop('channel closed');
          sessions.delete(session);
        });
      };
      if (channel.readyState === 'open') start();
      else channel.addEventListener('open', start, { once: true });
    };
    pc.addEventListener('datachannel', (/** @type {RTCDataChannelEvent} */ ev) => accept(ev.channel));
    return { peer, accept };
  }

  return {
    router,
    get peerCount() {
      return registry.size;
    },
    close() {
      closed = true;
      registry.closeAll();
    },
  };
}
