// Range-split HTTP (our fourth mode): each proxy gets the next byte range sized by its measured
// rate (the range scheduler of @mutp/protocol), the tail is duplicated onto idle proxies, and a
// failed proxy's range goes back to the pool. Every response's body streams to onProgress at its
// offset in the result, each byte once (a duplicated or re-fetched range repeats bytes).
import { createRangeScheduler } from '@mutp/protocol';
import { codedError, errorInfo } from '../errors.js';
import { proxyFetch } from './proxy-fetch.js';
import { tagsFor } from './parallel-http.js';
import { createPieceSet, safeProgress } from './body-pieces.js';

const MAX_IDLE_WAIT_MS = 250; // an idle proxy re-asks the scheduler at least this often (its wakeAt is an estimate)

/**
 * @param {object} o
 * @param {string} o.url
 * @param {import('./parallel-http.js').ProxyInfo[]} o.proxies
 * @param {{start: number, end: number} | null} o.range  end inclusive
 * @param {AbortSignal} [o.signal]
 * @param {typeof fetch} o.fetch
 * @param {() => number} o.elapsed
 * @param {(p: import('./parallel-http.js').HttpProgress) => void} [o.onProgress]
 * @param {number} [o.stallTimeoutMs]
 * @param {string} [o.downloadId]  tags the proxies' log records
 * @param {{warn: (...a: unknown[]) => void}} [o.logger]
 * @param {object} [o.schedulerOptions]  passed to createRangeScheduler (tests use small ranges)
 * @returns {Promise<import('./parallel-http.js').HttpTransferResult>}
 */
export async function downloadRangeHttp({ url, proxies, range, signal, fetch, elapsed, onProgress, stallTimeoutMs, downloadId, schedulerOptions = {}, logger = console }) {
  const n = proxies.length;
  const perProxy = proxies.map((p) => ({ proxyId: p.id, bytes: 0, packets: 0, duplicates: 0, error: null }));
  const failed = new Array(n).fill(false);
  let grossBytes = 0;
  /** @type {number | null} */
  let firstPacketMs = null;
  const serverFetchMs = [];
  const base = range ? range.start : 0;
  const pieces = createPieceSet();
  const report = safeProgress(onProgress, logger);
  /** @type {number | null} */
  let objectBytes = null; // known after the probe
  /**
   * Counts one received chunk and streams its new bytes.
   * @param {number} i  proxy index
   * @param {number | null} at  offset of the response's first byte in the result; null: do not stream it
   */
  const counter = (i, at) => (/** @type {number} */ b, /** @type {import('./proxy-fetch.js').BodyPiece | null} */ piece) => {
    if (firstPacketMs === null) firstPacketMs = elapsed();
    perProxy[i].bytes += b;
    grossBytes += b;
    const chunks = piece && at !== null ? pieces.take(at + piece.offset, piece.bytes) : [];
    report({ grossBytes, netBytes: pieces.handedOut(), objectBytes, chunks });
  };
  const allFailed = () => codedError('ERR_ALL_PROXIES_FAILED',
    `all ${n} proxies failed (${perProxy.map((s) => `${s.proxyId}: ${s.error?.code}`).join(', ')})`, { perProxy, grossBytes, firstPacketMs });
  const userSignal = signal ?? new AbortController().signal;

  // 1. Probe: the first byte from every proxy at once tells the object size (Content-Range) and
  //    makes every proxy fetch the origin in parallel, so their caches are warm for the ranges.
  const probeDone = new AbortController();
  const probeSignal = AbortSignal.any([userSignal, probeDone.signal]);
  const probes = proxies.map((p, i) => proxyFetch({ fetch, proxyUrl: p.url, url, range: { start: base, end: base }, signal: probeSignal, onBytes: counter(i, null), stallTimeoutMs, tags: tagsFor('range-http', downloadId, i, n) })
    .then((r) => { if (r.total === null) throw codedError('ERR_PROXY_BAD_RESPONSE', `${p.url}: no object size in the answer`); return { i, r }; }));
  let first;
  try {
    first = await new Promise((resolve, reject) => {
      let left = n;
      for (const pr of probes) pr.then(resolve, () => { if (--left === 0) reject(new Error('all probes failed')); });
    });
  } catch {
    for (const [i, pr] of probes.entries()) await pr.catch((err) => { perProxy[i].error = errorInfo(err); failed[i] = true; });
    if (userSignal.aborted) throw codedError('ERR_ABORTED', 'download aborted', { perProxy });
    throw allFailed();
  }
  probeDone.abort(codedError('ERR_LOST_RACE', 'probe answered by another proxy'));
  for (const [i, pr] of probes.entries()) {
    await pr.then(({ r }) => { perProxy[i].packets += 1; if (r.serverFetchMs !== null) serverFetchMs.push(r.serverFetchMs); }, (err) => {
      const info = errorInfo(err);
      if (info.code !== 'ERR_LOST_RACE') { perProxy[i].error = info; failed[i] = true; }
    });
  }
  const total = /** @type {number} */ (first.r.total);
  const endExclusive = range ? Math.min(range.end + 1, total) : total;
  const size = Math.max(0, endExclusive - base);
  const data = new Uint8Array(size);
  objectBytes = size;
  // the probes' byte is not streamed: it came before the size was known, and a range brings it again
  if (size <= 1) {
    if (size === 1) {
      data[0] = first.r.bytes[0];
      report({ grossBytes, netBytes: 1, objectBytes, chunks: pieces.take(0, data) });
    }
    return { data, grossBytes, firstPacketMs, packets: perProxy.reduce((s, p) => s + p.packets, 0), duplicates: 0, serverFetchMs, perProxy };
  }

  // 2. Ranges, driven by the scheduler. One worker per proxy; all share the scheduler.
  const sched = createRangeScheduler({ size, sourceCount: n, ...schedulerOptions });
  for (let i = 0; i < n; i++) if (failed[i]) sched.onSourceFailed(i, elapsed());
  /** @type {(AbortController | null)[]} */
  const current = new Array(n).fill(null);
  /** @type {(v?: unknown) => void} */
  let wake = () => {};
  let changed = new Promise((r) => { wake = r; });
  const notify = () => { const w = wake; changed = new Promise((r) => { wake = r; }); w(); };

  /** @param {number} i */
  async function worker(i) {
    const proxy = proxies[i];
    while (!sched.isComplete() && !userSignal.aborted) {
      const r = sched.nextRange(i, elapsed());
      if (!r) {
        if (failed[i]) return;
        const waitMs = Math.min(MAX_IDLE_WAIT_MS, Math.max(1, sched.wakeAt() - elapsed()));
        let t = null;
        await Promise.race([changed, new Promise((res) => { t = setTimeout(res, waitMs); })]);
        clearTimeout(t);
        continue;
      }
      const ctrl = new AbortController();
      current[i] = ctrl;
      let got = 0;
      const onChunk = counter(i, r.start);
      try {
        const res = await proxyFetch({
          fetch, proxyUrl: proxy.url, url, range: { start: base + r.start, end: base + r.end - 1 },
          signal: AbortSignal.any([userSignal, ctrl.signal]), stallTimeoutMs, tags: tagsFor('range-http', downloadId, i, n),
          onBytes: (b, piece) => { got += b; onChunk(b, piece); },
        });
        current[i] = null;
        perProxy[i].packets += 1;
        const { accepted, cancel } = sched.onRangeDone(i, r, res.bytes.byteLength, elapsed());
        if (accepted) {
          data.set(res.bytes, r.start); // its bytes were streamed as they came (or by a faster duplicate)
          for (const h of cancel) current[h]?.abort(codedError('ERR_LOST_RACE', 'another proxy delivered this range first'));
        } else {
          perProxy[i].duplicates += 1;
        }
        notify();
      } catch (err) {
        current[i] = null;
        const info = errorInfo(err);
        if (userSignal.aborted) return;
        if (info.code === 'ERR_LOST_RACE') {
          if (got > 0) { perProxy[i].packets += 1; perProxy[i].duplicates += 1; }
          continue; // not a failure: the scheduler already freed this proxy
        }
        perProxy[i].error = info;
        failed[i] = true;
        sched.onSourceFailed(i, elapsed());
        notify();
        return;
      }
    }
  }

  await Promise.all(proxies.map((_, i) => worker(i)));
  if (userSignal.aborted) throw codedError('ERR_ABORTED', 'download aborted', { perProxy });
  if (!sched.isComplete()) throw allFailed();
  const packets = perProxy.reduce((s, p) => s + p.packets, 0);
  const duplicates = perProxy.reduce((s, p) => s + p.duplicates, 0);
  return { data, grossBytes, firstPacketMs, packets, duplicates, serverFetchMs, perProxy };
}
