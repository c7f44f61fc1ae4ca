// The answer to GET /fetch?url=…&digests=1: the digest list of the proxy's whole copy of the
// object (one per object, whatever range a client then asks), so clients can vote on each
// block before they deliver it. Same guards and cache as /fetch; no log record (it is not a
// download, and Origo's proxy records count downloads).
import { encodedDigestsOf } from '../objects/digest-cache.js';

/**
 * @param {import('express').Response} res
 * @param {{ bytes: Uint8Array, serverFetchMs: number, fromCache: boolean }} obj
 * @param {string} proxyId
 * @param {boolean} isHead
 */
export function sendDigests(res, obj, proxyId, isHead) {
  const body = encodedDigestsOf(obj.bytes);
  res.status(200);
  res.setHeader('Content-Type', 'application/octet-stream');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-MUTP-Proxy-Id', proxyId);
  res.setHeader('X-MUTP-Server-Fetch-Ms', obj.serverFetchMs.toFixed(1));
  res.setHeader('X-MUTP-Cache', obj.fromCache ? 'HIT' : 'MISS');
  res.setHeader('Content-Length', String(body.byteLength));
  res.end(isHead ? undefined : body);
}
