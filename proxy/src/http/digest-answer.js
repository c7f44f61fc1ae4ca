// The answer to GET /fetch?url=…&digests=1[&span=a-b]: the digest list of the proxy's copy of the
// object, whole or (span) of the blocks of that byte range only, so clients can vote on each
// block before they deliver it. Same guards and cache as /fetch; no log record (it is not a
// download, and Origo's proxy records count downloads).
import { encodedDigestsOf } from '../objects/digest-cache.js';
import { setAnswerHeads } from './answer-heads.js';

/**
 * @param {import('express').Response} res
 * @param {{ bytes: Uint8Array, at: number, total: number }} copy  see encodedDigestsOf
 * @param {import('@mutp/protocol').BlockSpan} span
 * @param {{ serverFetchMs: number, fromCache: boolean }} fetched
 * @param {string} proxyId
 * @param {boolean} isHead
 * @param {{t0: number, objectAt: number}} waited  when the request came, when its object was in hand (performance.now())
 */
export function sendDigests(res, copy, span, fetched, proxyId, isHead, waited) {
  const body = encodedDigestsOf(copy, span);
  res.status(200);
  setAnswerHeads(res, { contentType: 'application/octet-stream', proxyId, serverFetchMs: fetched.serverFetchMs, fromCache: fetched.fromCache, ...waited });
  res.setHeader('Content-Length', String(body.byteLength));
  res.end(isHead ? undefined : body);
}
