// A short shaping check before a campaign: one slow and one fast proxy alone, a 4 MiB object
// over HTTP (TCP) and over Uncoded MUTP (a WebRTC data channel), goodput vs the shaped rate,
// each after a small warm-up download on the same connection.
import { formatRate } from './rates.js';
import { clientProxy } from './testbed.js';

const CALIBRATION_KIB = 4096; // long enough that TCP slow start is a few % of the time
/** A small download first, per proxy and mode: the check measures the shaped link, not connection set-up (ICE, DTLS, SCTP: ~9 round trips). */
const WARM_UP_KIB = 256;

/**
 * @param {Awaited<ReturnType<typeof import('./testbed.js').startTestbed>>} testbed
 * @returns {Promise<{text: string, checks: {proxy: string, rateBps: number, mode: string, goodputBps: number | null}[]}>}
 */
export async function calibrate(testbed) {
  const byRate = new Map();
  for (const p of testbed.proxies) if (!byRate.has(p.rateBps)) byRate.set(p.rateBps, p);
  const checks = [];
  for (const p of byRate.values()) {
    for (const mode of ['parallel-http', 'uncoded']) {
      await testbed.download({ url: testbed.objectUrl(WARM_UP_KIB), mode, proxies: [clientProxy(p)] });
      const r = await testbed.download({ url: testbed.objectUrl(CALIBRATION_KIB), mode, proxies: [clientProxy(p)] });
      const s = r.stats;
      checks.push({ proxy: p.id, rateBps: p.rateBps, mode, goodputBps: !r.error && s ? s.netBytes / (s.durationMs / 1000) : null });
    }
  }
  const text = checks.map((c) => `${c.mode === 'uncoded' ? 'WebRTC (Uncoded MUTP)' : 'TCP (HTTP)'} through one ${formatRate(c.rateBps)} proxy: ${c.goodputBps === null ? 'failed' : `${formatRate(c.goodputBps)} of payload (${((c.goodputBps / c.rateBps) * 100).toFixed(0)}% of the limit)`}`).join('; ');
  return { text, checks };
}
