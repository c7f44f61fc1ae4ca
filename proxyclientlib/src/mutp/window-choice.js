// The MUTP window of one download: the caller's, else one from the paths (the proxies'
// advertised upload rates over an RTT estimate), else the protocol's default.
import { windowFromPaths, DEFAULT_RTT_ESTIMATE_MS } from '@mutp/protocol';

/**
 * Upload rate (bytes/s) presumed for a proxy that advertises none (nothing shapes it: `npm
 * start`, an unshaped deployment). The window then only has to stay out of the way; each proxy's
 * in-flight cap paces its path. The protocol's 240 packets, sized for 4 × 896 KiB/s, left a fast
 * fleet window-bound, and its helpers raced owners whose packets were already on the way
 * (loopback, 4 proxies, 5 MiB: coded 6.6–7.8 MB/s at normalized goodput 0.66; windows of
 * 744–1488: 9.2–10.1 MB/s at 0.90–0.98). Simulated at RTT 50 ms a window larger than the paths
 * need changed nothing (4 × 896 KiB/s, 504 or 1056 packets: the same goodput, no duplicates).
 */
export const UNADVERTISED_UPLOAD_RATE_BPS = 2_000_000;

/** @param {unknown} r */
const advertised = (r) => typeof r === 'number' && r > 0 && Number.isFinite(r);

/**
 * @param {'coded'|'uncoded'} mode
 * @param {{id: string, url: string, uploadRateBps?: number | null}[]} proxies  Origo's entries (uploadRateBps: bytes/s, advertised)
 * @param {{window?: number, generationSize?: number}} opts  the download's options
 * @returns {number | undefined}  undefined: the protocol's default
 */
export function downloadWindow(mode, proxies, opts) {
  if (opts.window !== undefined) return opts.window; // an explicit window (the paper's fixed w) always wins
  if (proxies.length === 0) return undefined;
  const rates = proxies.map((p) => (advertised(p.uploadRateBps) ? /** @type {number} */ (p.uploadRateBps) : UNADVERTISED_UPLOAD_RATE_BPS));
  try {
    // no RTT is measured before the download's params are fixed (they go out in the request)
    return windowFromPaths({ mode, ratesBps: rates, rttMs: DEFAULT_RTT_ESTIMATE_MS, params: { generationSize: opts.generationSize } });
  } catch {
    return undefined; // a bad generationSize is refused with its own code by the download
  }
}
