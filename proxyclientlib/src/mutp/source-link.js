// One proxy's side of a MUTP download on the client: its connection, its counters, and the
// sequence numbers that give the loss estimate.

/**
 * @typedef {object} SourceLink
 * @property {string} proxyId
 * @property {string} url
 * @property {number} index                 source index in the request
 * @property {'connecting'|'open'|'failed'|'closed'} state
 * @property {import('../rtc/connect-peer.js').PeerLink | null} peer
 * @property {any} meta                     this proxy's meta message, once all its slices arrived
 * @property {any} metaAsm                  collects its meta slices (checksum table)
 * @property {number} badPackets            packets proven corrupted (integrity)
 * @property {number} requestedAt           ms (download clock) the last request was sent
 * @property {number} lastHeardAt           ms (download clock) of the last valid message
 * @property {number} bytes                 payload bytes received, duplicates included
 * @property {number} packets
 * @property {number} duplicates
 * @property {number} maxSeq                highest packet sequence number seen (0: none; senders number from 1)
 * @property {number} malformed             messages that failed to parse
 * @property {{ code: string, message: string } | null} error
 * @property {(() => void) | null} offPeer  removes this download's listeners from the (possibly kept) connection
 * @property {boolean} reused              the connection was kept from an earlier download
 * @property {number} connectedAt           ms (download clock) the connection was ready
 */

/**
 * @param {{ id: string, url: string }} proxy
 * @param {number} index
 * @returns {SourceLink}
 */
export function createSourceLink(proxy, index) {
  return {
    proxyId: proxy.id, url: proxy.url, index, state: 'connecting', peer: null, meta: null, metaAsm: null, badPackets: 0,
    requestedAt: 0, lastHeardAt: 0, bytes: 0, packets: 0, duplicates: 0, maxSeq: 0, malformed: 0, error: null, offPeer: null,
    reused: false, connectedAt: 0,
  };
}

/**
 * The fraction of packets the proxies sent that never arrived, from each source's sequence
 * numbers (a source numbers its packets 1, 2, 3…). Null before any packet.
 * @param {SourceLink[]} links
 * @returns {number | null}
 */
export function estimateLoss(links) {
  let sent = 0;
  let received = 0;
  for (const l of links) {
    if (l.maxSeq <= 0) continue;
    sent += l.maxSeq;
    received += Math.min(l.packets, l.maxSeq);
  }
  return sent > 0 ? (sent - received) / sent : null;
}

/**
 * Per-proxy entries of the log record.
 * @param {SourceLink[]} links
 */
export function perProxyStats(links) {
  return links.map((l) => ({ proxyId: l.proxyId, bytes: l.bytes, packets: l.packets, duplicates: l.duplicates, error: l.error }));
}
