// The heads every /fetch answer carries (a body or a digest list): its type, the proxy, its copy's
// origin fetch and cache state, and what this request waited for at the proxy as the
// Server-Timing a client's time breakdown reads (docs/log-record.md, requestSteps): the origin
// (about 0 from the cache), then preparing the answer (its digests).

/**
 * @param {number} t0        performance.now() when the request came
 * @param {number} objectAt  when its object (or range) was in hand
 * @param {number} now       when the answer's head goes out
 */
function waitTiming(t0, objectAt, now) {
  return `origin;dur=${Math.max(0, objectAt - t0).toFixed(1)}, prepare;dur=${Math.max(0, now - objectAt).toFixed(1)}`;
}

/**
 * @param {import('express').Response} res
 * @param {{ contentType: string, proxyId: string, serverFetchMs: number, fromCache: boolean, t0: number, objectAt: number }} o
 */
export function setAnswerHeads(res, { contentType, proxyId, serverFetchMs, fromCache, t0, objectAt }) {
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-MUTP-Proxy-Id', proxyId);
  res.setHeader('X-MUTP-Server-Fetch-Ms', serverFetchMs.toFixed(1));
  res.setHeader('X-MUTP-Cache', fromCache ? 'HIT' : 'MISS');
  res.setHeader('Server-Timing', waitTiming(t0, objectAt, performance.now()));
}
