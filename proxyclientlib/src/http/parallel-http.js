// Parallel HTTP (paper III): the same request to every proxy; the first complete response
// wins and the others are aborted. Throughput counts every byte received from all proxies
// until the winner completed. The body streams to onProgress from whichever response is
// furthest ahead: every response is the same bytes in order, so each new byte is handed out once.
import { codedError, errorInfo } from '../errors.js';
import { proxyFetch } from './proxy-fetch.js';
import { createPieceSet, safeProgress } from './body-pieces.js';

/**
 * @typedef {object} ProxyInfo
 * @property {string} id
 * @property {string} url
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
 * @param {{warn: (...a: unknown[]) => void}} [o.logger]
 * @returns {Promise<HttpTransferResult>}  rejects with ERR_ALL_PROXIES_FAILED (err.perProxy set)
 */
export async function downloadParallelHttp({ url, proxies, range, signal, fetch, elapsed, onProgress, stallTimeoutMs, downloadId, logger = console }) {
  const losersAbort = new AbortController();
  const outer = signal ? AbortSignal.any([signal, losersAbort.signal]) : losersAbort.signal;
  /** @type {PerProxyStats[]} */
  const perProxy = proxies.map((p) => ({ proxyId: p.id, bytes: 0, packets: 0, duplicates: 0, error: null }));
  let grossBytes = 0;
  /** @type {number | null} */
  let firstPacketMs = null;
  let done = false;
  const pieces = createPieceSet();
  const report = safeProgress(onProgress, logger);
  /** @type {number | null} */
  let objectBytes = null; // the result's size, from the first response that said it (a player wants it early)

  const attempts = proxies.map(async (proxy, i) => {
    const res = await proxyFetch({
      fetch, proxyUrl: proxy.url, url, range, signal: outer, stallTimeoutMs,
      tags: tagsFor('parallel-http', downloadId, i, proxies.length),
      onHead: (size) => { objectBytes ??= size; },
      onBytes: (n, piece) => {
        if (done) return; // bytes after the winner finished are not part of this download
        if (firstPacketMs === null) firstPacketMs = elapsed();
        perProxy[i].bytes += n;
        grossBytes += n;
        const chunks = piece ? pieces.take(piece.offset, piece.bytes) : [];
        report({ grossBytes, netBytes: pieces.handedOut(), objectBytes, chunks });
      },
    });
    return { i, res };
  });

  /** @type {{i: number, res: import('./proxy-fetch.js').ProxyFetchResult}} */
  let winner;
  try {
    winner = await firstFulfilled(attempts);
  } catch {
    for (const [i, a] of attempts.entries()) {
      await a.catch((err) => { perProxy[i].error = errorInfo(err); });
    }
    if (signal?.aborted) throw codedError('ERR_ABORTED', 'download aborted', { perProxy });
    const codes = perProxy.map((s) => `${s.proxyId}: ${s.error?.code}`).join(', ');
    throw codedError('ERR_ALL_PROXIES_FAILED', `all ${proxies.length} proxies failed (${codes})`, { perProxy, grossBytes, firstPacketMs });
  }
  done = true;
  losersAbort.abort(codedError('ERR_LOST_RACE', 'another proxy answered first'));
  const serverFetchMs = [];
  for (const [i, a] of attempts.entries()) {
    try {
      const { res } = await a;
      perProxy[i].packets = 1;
      if (i !== winner.i) perProxy[i].duplicates = 1; // finished too, but second: its bytes were wasted
      if (res.serverFetchMs !== null) serverFetchMs.push(res.serverFetchMs);
    } catch (err) {
      const info = errorInfo(err);
      // losing the race is not a proxy failure; bytes it sent were wasted (a duplicate response)
      if (info.code === 'ERR_LOST_RACE') {
        if (perProxy[i].bytes > 0) { perProxy[i].packets = 1; perProxy[i].duplicates = 1; }
      } else {
        perProxy[i].error = info;
      }
    }
  }
  const packets = perProxy.reduce((s, p) => s + p.packets, 0);
  const duplicates = perProxy.reduce((s, p) => s + p.duplicates, 0);
  const data = winner.res.bytes;
  // the winner's pieces were all handed out as they arrived: nothing is left but the size
  report({ grossBytes, netBytes: data.byteLength, objectBytes: data.byteLength, chunks: [] });
  return { data, grossBytes, firstPacketMs, packets, duplicates, serverFetchMs, perProxy };
}

/**
 * Like Promise.any, without AggregateError (callers inspect each attempt themselves).
 * @template T
 * @param {Promise<T>[]} promises
 * @returns {Promise<T>}
 */
function firstFulfilled(promises) {
  return new Promise((resolve, reject) => {
    let failed = 0;
    if (promises.length === 0) reject(new Error('no attempts'));
    for (const p of promises) {
      p.then(resolve, () => {
        failed += 1;
        if (failed === promises.length) reject(new Error('all failed'));
      });
    }
  });
}

/**
 * Query tags a proxy copies into its own log record, so Origo can join proxy and client records.
 * @param {string} mode
 * @param {string | undefined} downloadId
 * @param {number} sourceIndex
 * @param {number} n
 */
export function tagsFor(mode, downloadId, sourceIndex, n) {
  return downloadId ? { downloadId, mode, sourceIndex, n } : { mode, sourceIndex, n };
}
