// Which MUTP downloads may start on kept WebRTC connections now. A MUTP download holds one
// connection per proxy, and one that finds none free opens its own: 250-550 ms from Chromium to a
// local proxy, longer than the whole segment over HTTP. Requests that come together (a player
// starts audio and video, init and media, at once) would all see the same idle connections
// before any of them took one, so the count is kept here: per proxy, the MUTP downloads started
// and not ended, against the connections kept to it (idle or carrying one of them). Shared by
// the pages one fleet host serves, like its connections. No browser API here.

import { createCounts } from '@mutp/common/counts';

export function createRtcClaims() {
  /** @type {ReturnType<typeof createCounts<string>>} proxy URL → MUTP downloads in flight */
  const inFlight = createCounts();
  return {
    /**
     * Claim a free kept connection to each of these proxies, or none of them.
     * @param {(url: string) => number} kept  connections kept to a proxy (ProxyClientLib's keptConnections)
     * @param {{url: string}[]} proxies
     * @returns {boolean}
     */
    claim(kept, proxies) {
      if (!proxies.every((p) => kept(p.url) > inFlight.get(p.url))) return false;
      for (const p of proxies) inFlight.add(p.url);
      return true;
    },
    /** The download that claimed them ended. @param {{url: string}[]} proxies */
    release(proxies) {
      for (const p of proxies) inFlight.remove(p.url);
    },
  };
}
