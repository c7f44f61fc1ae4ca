// Each source's delivery rate as every sender sees it: the slope of the client's echo (the
// highest sequence number it has from each source) over time. The 'share' scheduler weighs
// sources by it, to split generations and to judge whether an owner will deliver its part.
// A raw echo snapshot is no rate: sources start a few ms apart and the client reads packets in
// batches, so an early feedback can say [47, 0, 0, 0] for four equal sources; weighing by it
// made one source take over the others' quotas, which they then sent too (simulator, 4×896 KiB/s,
// RTT 50 ms, starts 3 ms apart: 126 duplicates per 1.5 MiB; by slope: 23).
// Pure: the caller passes the clock.

/** A source's rate is its echo's slope over at least this span (ms) since it was first seen: a few feedbacks. */
export const ECHO_RATE_SPAN_MS = 10;

/**
 * Weight of a source whose rate is not known yet, relative to the mean known rate, during the
 * grace period: a source not yet seen, or seen too briefly, is presumed as fast as the others
 * for one round trip after the first feedback. After it, a source never seen weighs nothing
 * (it is silent), so its share is taken by the others.
 */
const UNKNOWN_PRESUMED_SHARE = 1;

/** Smallest weight (packets/ms): keeps ratios of weights finite. */
const MIN_WEIGHT = 1e-3;

/** @param {number} sourceCount */
export function createEchoRates(sourceCount) {
  const firstEcho = new Float64Array(sourceCount).fill(-1);
  const firstAt = new Float64Array(sourceCount);
  const rate = new Float64Array(sourceCount);
  let feedbackAt0 = NaN;

  return {
    /**
     * Take one feedback's echo vector and write every source's weight (packets/ms) into `out`.
     * @param {ArrayLike<number>} echo  per source, highest seq the client has seen (0: none)
     * @param {number} now ms
     * @param {number} rttMs the sender's round-trip estimate (0: none yet)
     * @param {Float64Array} out weights, one per source
     */
    update(echo, now, rttMs, out) {
      if (Number.isNaN(feedbackAt0)) feedbackAt0 = now;
      let known = 0;
      let sum = 0;
      for (let j = 0; j < sourceCount; j++) {
        rate[j] = -1;
        if (firstEcho[j] < 0) {
          if (echo[j] > 0) {
            firstEcho[j] = echo[j];
            firstAt[j] = now;
          }
          continue;
        }
        const span = now - firstAt[j];
        if (span >= ECHO_RATE_SPAN_MS) {
          rate[j] = (echo[j] - firstEcho[j]) / span;
          known++;
          sum += rate[j];
        }
      }
      const presumed = known > 0 ? UNKNOWN_PRESUMED_SHARE * (sum / known) : 1;
      const inGrace = now - feedbackAt0 < Math.max(rttMs, ECHO_RATE_SPAN_MS);
      for (let j = 0; j < sourceCount; j++) {
        const seen = firstEcho[j] >= 0;
        out[j] = MIN_WEIGHT + (rate[j] >= 0 ? rate[j] : (inGrace || seen ? presumed : 0));
      }
    },
  };
}
