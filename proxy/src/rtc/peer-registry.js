// The proxy's live peer connections: a concurrency cap, and a sweep that closes peers whose
// channel never opened or whose session went idle.

import { CHANNEL_OPEN_TIMEOUT_MS, IDLE_SWEEP_EVERY_MS, SESSION_IDLE_TIMEOUT_MS } from './limits.js';

/**
 * @typedef {object} Peer
 * @property {RTCPeerConnection} pc
 * @property {string} remote           the client's address
 * @property {string | null} clientId   the ticket's client id (null when tickets are off)
 * @property {number} createdAt          ms (Date.now)
 * @property {number} lastActivityAt     ms (Date.now): last inbound message (a live client sends feedback)
 * @property {boolean} channelOpened
 * @property {(reason: string) => void} close
 */

/**
 * @param {{ maxPeers: number, logger: { info: Function, warn: Function },
 *           idleTimeoutMs?: number, openTimeoutMs?: number, sweepEveryMs?: number }} opts
 */
export function createPeerRegistry({ maxPeers, logger, idleTimeoutMs = SESSION_IDLE_TIMEOUT_MS,
  openTimeoutMs = CHANNEL_OPEN_TIMEOUT_MS, sweepEveryMs = IDLE_SWEEP_EVERY_MS }) {
  /** @type {Set<Peer>} */
  const peers = new Set();

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const peer of peers) {
      if (!peer.channelOpened && now - peer.createdAt > openTimeoutMs) {
        logger.info('rtc: closing peer whose channel never opened');
        peer.close('open timeout');
      } else if (peer.channelOpened && now - peer.lastActivityAt > idleTimeoutMs) {
        logger.info('rtc: closing idle peer');
        peer.close('idle timeout');
      }
    }
  }, sweepEveryMs);
  sweep.unref(); // the sweep alone must not keep the process alive

  return {
    get size() {
      return peers.size;
    },
    full() {
      return peers.size >= maxPeers;
    },
    /** Peers whose channel has not opened yet that `match` picks (count). @param {(peer: Peer) => boolean} match */
    pending(match) {
      let n = 0;
      for (const peer of peers) if (!peer.channelOpened && match(peer)) n++;
      return n;
    },
    /** @param {Peer} peer */
    add(peer) {
      peers.add(peer);
    },
    /** @param {Peer} peer */
    remove(peer) {
      peers.delete(peer);
    },
    closeAll(reason = 'shutdown') {
      clearInterval(sweep);
      for (const peer of [...peers]) peer.close(reason);
    },
  };
}
