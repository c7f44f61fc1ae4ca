// The MUTP window of one download: the caller's, else one from the paths (the proxies'
// advertised upload rates over an RTT estimate), else the protocol's default.
import { windowFromPaths, DEFAULT_RTT_ESTIMATE_MS } from '@mutp/protocol';

/**
 * @param {'coded'|'uncoded'} mode
 * @param {{id: string, url: string, uploadRateBps?: number | null}[]} proxies  Origo's entries (uploadRateBps: bytes/s, advertised)
 * @param {{window?: number, generationSize?: number}} opts  the download's options
 * @returns {number | undefined}  undefined: the protocol's default
 */
export function downloadWindow(mode, proxies, opts) {
  if (opts.window !== undefined) return opts.window; // an explicit window (the paper's fixed w) always wins
  const rates = proxies.map((p) => p.uploadRateBps);
  if (rates.length === 0 || !rates.every((r) => typeof r === 'number' && r > 0 && Number.isFinite(r))) return undefined;
  try {
    // no RTT is measured before the download's params are fixed (they go out in the request)
    return windowFromPaths({ mode, ratesBps: /** @type {number[]} */ (rates), rttMs: DEFAULT_RTT_ESTIMATE_MS, params: { generationSize: opts.generationSize } });
  } catch {
    return undefined; // a bad generationSize is refused with its own code by the download
  }
}
