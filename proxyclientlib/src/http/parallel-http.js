// Parallel HTTP (paper III): the same request to every proxy; the download completes when the
// fastest responses have brought every block, and the rest are aborted. Throughput counts every
// byte received from all proxies until then. Each block of the body streams to onProgress from
// whichever response brings it first, once it matches the digest a strict majority of the
// proxies published (block-delivery.js); a proxy whose bytes or digests are outvoted is
// excluded and named (ERR_INTEGRITY), and the others' copies of its blocks are used.
import { codedError } from '@mutp/common/errors';
import { errorInfo, isOriginCode, proxyOutcomes } from '../errors.js';
import { proxyFetch, withOriginCause } from './proxy-fetch.js';
import { blockAligned } from '@mutp/protocol/http';
import { createBlockDelivery } from './block-delivery.js';
import { createRequestSteps } from './request-steps.js';

/**
 * @typedef {object} ProxyInfo
 * @property {string} id
 * @property {string} url
 * @property {number | null} [uploadRateBps]  Origo's advertised rate (bytes/s; null: unknown)
 */

/**
 * @typedef {object} PerProxyStats
 * @property {string} proxyId
 * @property {number} bytes
 * @property {number} packets
 * @property {number} duplicates
 * @property {{code: string, message: string} | null} error
 */

/**
 * @typedef {object} HttpTransferResult
 * @property {Uint8Array} data
 * @property {number} grossBytes
 * @property {number | null} firstPacketMs
 * @property {number} packets
 * @property {number} duplicates
 * @property {number[]} serverFetchMs
 * @property {PerProxyStats[]} perProxy
 * @property {boolean} verified  every delivered block matched a digest at least two proxies agreed on
 * @property {ReturnType<ReturnType<typeof createRequestSteps>['value']>} requestSteps  the steps before the first byte
 */

/**
 * What the HTTP modes report to onProgress, the same shape as the MUTP driver's:
 * `chunks` are body pieces not reported before (each byte of the result once, possibly out of
 * order), offset 0 = the result's first byte; `bytes` are views valid during the call only
 * (copy them at once, never transfer or change their buffers). netBytes = bytes reported in
 * chunks so far; objectBytes = the result's size once known, else null.
 * @typedef {{grossBytes: number, netBytes: number, objectBytes: number | null,
 *   chunks: {offset: number, bytes: Uint8Array}[]}} HttpProgress
 */

/**
 * @param {object} o
 * @param {string} o.url
 * @param {ProxyInfo[]} o.proxies
 * @param {{start: number, end: number} | null} o.range  end inclusive
 * @param {AbortSignal} [o.signal]
 * @param {typeof fetch} o.fetch
 * @param {() => number} o.elapsed  ms since the request was issued
 * @param {(p: HttpProgress) => void} [o.onProgress]
 * @param {number} [o.stallTimeoutMs]
 * @param {string} [o.downloadId]  tags the proxies' log records (the client record's id)
 * @param {string | null} [o.next]  the object the caller asks next: the proxies fetch it meanwhile
 * @param {ReturnType<typeof import('./digest-cache.js').createDigestCache> | null} [o.digestCache]  digest lists of recent downloads
 * @param {{warn: (...a: unknown[]) => void}} [o.logger]
 * @param {((bytes: Uint8Array) => Promise<Uint8Array>) | null} [o.checksumAsync]  block checksums off this thread (createBlockDelivery's; default: the environment's)
 * @returns {Promise<HttpTransferResult>}  rejects with ERR_ALL_PROXIES_FAILED or ERR_INTEGRITY_UNRESOLVED (err.perProxy set)
 */
export async function downloadParallelHttp({ url, proxies, range, signal, fetch, elapsed, onProgress, stallTimeoutMs, downloadId, next = null, digestCache = null, logger = console, checksumAsync }) {
  const n = proxies.length;
  const losersAbort = new AbortController();
  const outer = signal ? AbortSignal.any([signal, losersAbort.signal]) : losersAbort.signal;
  const each = proxies.map(() => new AbortController()); // excludes one liar
  // flat lists of plain signals: a composite of composites can miss the abort in Node 20
  const bodySignal = (/** @type {number} */ i) => AbortSignal.any([losersAbort.signal, each[i].signal, ...(signal ? [signal] : [])]);
  /** @type {PerProxyStats[]} */
  const perProxy = proxies.map((p) => ({ proxyId: p.id, bytes: 0, packets: 0, duplicates: 0, error: null }));
  /** @type {({code: string, message: string} | null)[]} */
  const digestErrors = new Array(n).fill(null);
  let grossBytes = 0;
  /** @type {number | null} */
  let firstPacketMs = null;
  let done = false;
  /** @type {number[]} */
  const serverFetchMs = [];
  const delivery = createBlockDelivery({
    n, range, grossBytes: () => grossBytes, onProgress, logger, digestCache, checksumAsync,
    onLiar: (v) => {
      perProxy[v.source].error = { code: v.code, message: `${proxies[v.source].id}: ${v.message}` };
      each[v.source].abort(codedError(v.code, v.message));
    },
  });
  // blocks are aligned to the object's start: ask whole blocks, deliver the asked part
  const asked = range ? blockAligned(range) : null;
  const from = asked ? asked.start : 0;
  // each response's head may carry its proxy's digest list: then no list request to that proxy
  /** @type {((list: Uint8Array | null) => void)[]} */
  const gotHead = [];
  /** @type {((err: unknown) => void)[]} */
  const noHead = [];
  const inlineLists = proxies.map((_, i) => new Promise((resolve, reject) => { gotHead[i] = resolve; noHead[i] = reject; }));
  for (const l of inlineLists) l.catch(() => {}); // a list kept from before is not awaited

  const steps = createRequestSteps(elapsed); // the first head; no vote before the first byte
  const attempts = proxies.map(async (proxy, i) => {
    const blocks = delivery.assembler(i, from);
    await proxyFetch({
      fetch, proxyUrl: proxy.url, url, range: asked, signal: bodySignal(i), stallTimeoutMs,
      tags: tagsFor('parallel-http', downloadId, i, n, next),
      onHead: (size, head) => {
        gotHead[i](head.digests);
        steps.answered(head.wait);
        if (size !== null) blocks.setEnd(from + size);
        if (head.serverFetchMs !== null) serverFetchMs.push(head.serverFetchMs);
        if (head.total !== null) delivery.claimSize(i, head.total); // a size vote while its list is on the way
      },
      onBytes: (b, piece) => {
        if (done) return; // bytes after the download completed are not part of it
        if (firstPacketMs === null) firstPacketMs = elapsed();
        perProxy[i].bytes += b;
        grossBytes += b;
        if (piece) blocks.push(piece.bytes);
        delivery.flush();
      },
    });
    blocks.finish();
    delivery.flush();
  });
  // no head: the list is asked for, unless the origin failed the proxy (its list would fail the same, after another origin fetch)
  for (const [i, a] of attempts.entries()) a.then(() => gotHead[i](null), (err) => (isOriginCode(errorInfo(err).code) ? noHead[i](err) : gotHead[i](null)));

  // a list not in its response's head is asked for after that head, when the proxy has the object
  const digests = Promise.all(delivery.fetchDigests({
    fetch, proxies, url, signal: outer, stallTimeoutMs, inline: (i) => inlineLists[i],
    onError: (i, err) => { digestErrors[i] = err; },
  })).then(() => { if (!done) delivery.flush(); });
  const settled = Promise.allSettled([...attempts, digests]);
  await Promise.race([delivery.done, settled]);
  if (!delivery.isComplete()) await settled; // a last block may have come with the last settlement
  if (!delivery.isComplete()) await delivery.hashed(); // …or wait for its hash
  const complete = delivery.isComplete();
  done = true;
  delivery.close();
  losersAbort.abort(codedError('ERR_LOST_RACE', 'the download completed from other proxies'));
  const used = delivery.deliveredBy();
  const winner = used.indexOf(Math.max(...used));
  for (const [i, a] of attempts.entries()) {
    await a.catch((err) => {
      const info = errorInfo(err);
      // losing the race is not a proxy failure; a liar's error is already set
      if (info.code !== 'ERR_LOST_RACE' && perProxy[i].error === null) perProxy[i].error = info;
    });
    if (perProxy[i].error === null && perProxy[i].bytes === 0 && digestErrors[i] && !['ERR_LOST_RACE', 'ERR_ABORTED'].includes(digestErrors[i]?.code ?? '')) {
      perProxy[i].error = digestErrors[i];
    }
    perProxy[i].error = withOriginCause(perProxy[i].error, digestErrors[i]);
    if (perProxy[i].bytes > 0) {
      perProxy[i].packets = 1;
      if (i !== winner) perProxy[i].duplicates = 1; // its bytes were (mostly) another response's too
    }
  }
  if (!complete) {
    if (signal?.aborted) throw codedError('ERR_ABORTED', 'download aborted', { perProxy });
    const codes = proxyOutcomes(perProxy);
    if (delivery.undecidable()) {
      throw codedError('ERR_INTEGRITY_UNRESOLVED', `the proxies' digests disagree and no strict majority backs either (${codes})`, { perProxy, grossBytes, firstPacketMs });
    }
    throw codedError('ERR_ALL_PROXIES_FAILED', `all ${n} proxies failed (${codes})`, { perProxy, grossBytes, firstPacketMs });
  }
  const packets = perProxy.reduce((s, p) => s + p.packets, 0);
  const duplicates = perProxy.reduce((s, p) => s + p.duplicates, 0);
  const data = delivery.data();
  delivery.flush(); // every block was reported as it was verified: nothing is left but the final counts
  return { data, grossBytes, firstPacketMs, packets, duplicates, serverFetchMs, perProxy, verified: delivery.verified(), requestSteps: steps.value() };
}

/**
 * Query tags a proxy copies into its own log record, so Origo can join proxy and client records;
 * and the next object's URL, which the proxy fetches meanwhile (no request of its own).
 * @param {string} mode
 * @param {string | undefined} downloadId
 * @param {number} sourceIndex
 * @param {number} n
 * @param {string | null} [next]
 */
export function tagsFor(mode, downloadId, sourceIndex, n, next = null) {
  return { ...(downloadId ? { downloadId } : {}), mode, sourceIndex, n, ...(next ? { next } : {}) };
}
