// What a request waited for at this proxy, as the Server-Timing header a client's time breakdown
// reads (docs/log-record.md, requestSteps): the origin (about 0 from the cache), then preparing
// the answer (its digests).

/**
 * @param {number} t0        performance.now() when the request came
 * @param {number} objectAt  when its object (or range) was in hand
 * @param {number} now       when the answer's head goes out
 */
export function waitTiming(t0, objectAt, now) {
  return `origin;dur=${Math.max(0, objectAt - t0).toFixed(1)}, prepare;dur=${Math.max(0, now - objectAt).toFixed(1)}`;
}
