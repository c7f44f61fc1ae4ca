// One proxy's connection in a MUTP download on the client. Its download state (meta, counters,
// failure) is the controller's (@mutp/protocol createDownloadController, `sources[index]`).

/**
 * @typedef {object} SourceLink
 * @property {string} proxyId
 * @property {string} url
 * @property {number} index                 source index in the request
 * @property {import('../rtc/connect-peer.js').PeerLink | null} peer
 * @property {(() => void) | null} offPeer  removes this download's listeners from the (possibly kept) connection
 */

/**
 * @param {{ id: string, url: string }} proxy
 * @param {number} index
 * @returns {SourceLink}
 */
export function createSourceLink(proxy, index) {
  return { proxyId: proxy.id, url: proxy.url, index, peer: null, offPeer: null };
}

/**
 * Per-proxy entries of the log record.
 * @param {SourceLink[]} links
 * @param {{ bytes: number, packets: number, duplicates: number, error: { code: string, message: string } | null }[]} sources  the controller's
 */
export function perProxyStats(links, sources) {
  return links.map((l) => {
    const s = sources[l.index];
    return { proxyId: l.proxyId, bytes: s.bytes, packets: s.packets, duplicates: s.duplicates, error: s.error };
  });
}
