// Range-split HTTP (our fourth mode): each proxy gets the next byte range sized by its measured
// rate (the range scheduler of @mutp/protocol), the tail is duplicated onto idle proxies, and a
// failed proxy's range goes back to the pool. Ranges are whole digest blocks (the scheduler
// counts in blocks): every block streams to onProgress once it matches the digest a strict
// majority of the proxies published (block-delivery.js), each byte once. A proxy whose bytes or
// digests are outvoted is excluded and named (ERR_INTEGRITY), and its range goes back to the pool.
import { BLOCK_BYTES, createBlockRangeScheduler, firstShareCapBlocks, shareOf, shareWeights } from '@mutp/protocol/http';
import { codedError } from '@mutp/common/errors';
import { errorInfo, proxyOutcomes } from '../errors.js';
import { proxyFetch, withOriginCause } from './proxy-fetch.js';
import { tagsFor } from './parallel-http.js';
import { createBlockDelivery } from './block-delivery.js';
import { createRequestSteps } from './request-steps.js';

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
 * @param {string | null} [o.next]  the object the caller asks next: the proxies fetch it meanwhile
 * @param {ReturnType<typeof import('./digest-cache.js').createDigestCache> | null} [o.digestCache]  digest lists of recent downloads
 * @param {{warn: (...a: unknown[]) => void}} [o.logger]
 * @param {((bytes: Uint8Array) => Promise<Uint8Array>) | null} [o.checksumAsync]  block checksums off this thread (createBlockDelivery's; default: the environment's)
 * @param {object} [o.schedulerOptions]  passed to createBlockRangeScheduler, sizes in bytes (rounded up to whole blocks)
 * @returns {Promise<import('./parallel-http.js').HttpTransferResult>}
 */
export async function downloadRangeHttp({ url, proxies, range, signal, fetch, elapsed, onProgress, stallTimeoutMs, downloadId, next = null, schedulerOptions = {}, digestCache = null, logger = console, checksumAsync }) {
  const n = proxies.length;
  /** @type {import('./parallel-http.js').PerProxyStats[]} */
  const perProxy = proxies.map((p) => ({ proxyId: p.id, bytes: 0, packets: 0, duplicates: 0, error: null }));
  const failed = new Array(n).fill(false);
  let grossBytes = 0;
  /** @type {number | null} */
  let firstPacketMs = null;
  /** @type {number[]} */
  const serverFetchMs = [];
  const userSignal = signal ?? new AbortController().signal;
  const finished = new AbortController(); // stops the digest requests still out
  /** @type {(AbortController | null)[]} */
  const current = new Array(n).fill(null);
  /** @type {(v?: unknown) => void} */
  let wake = () => {};
  let changed = new Promise((r) => { wake = r; });
  const notify = () => { const w = wake; changed = new Promise((r) => { wake = r; }); w(); };
  /** @type {ReturnType<typeof createBlockRangeScheduler> | null} */
  let sched = null;
  /** @param {number} i */
  const failSource = (i) => {
    if (failed[i]) return;
    failed[i] = true;
    sched?.onSourceFailed(i, elapsed());
    notify();
  };
  const delivery = createBlockDelivery({
    n, range, grossBytes: () => grossBytes, onProgress, logger, digestCache, listAhead: true, checksumAsync,
    onLiar: (v) => {
      perProxy[v.source].error = { code: v.code, message: `${proxies[v.source].id}: ${v.message}` };
      current[v.source]?.abort(codedError(v.code, v.message)); // its request, if one is running, ends
      failSource(v.source); // its range goes back to the pool now, whatever its worker is waiting for
    },
  });
  /**
   * Proxy i's list and first share (share i of `weights`, at most shareCap blocks), in one request
   * under its own controller (current[i] until the worker takes it up): `head` resolves with the
   * answer's head, `done` once its body is in. A proxy that does not know shares answers the whole
   * object: its head's share is null, the request stops there and the worker gives the share back.
   * @param {number} i
   */
  function askShare(i) {
    const ctrl = new AbortController();
    current[i] = ctrl;
    const req = {
      requestedAt: elapsed(), ctrl,
      /** @type {number | null} */ firstByteAt: null,
      /** @type {number | null} */ doneAt: null,
      /** @type {Promise<{digests: Uint8Array | null, share: {start: number, end: number} | null}>} */ head: /** @type {any} */ (null),
      /** @type {Promise<unknown>} */ done: /** @type {any} */ (null),
    };
    /** @type {(h: {digests: Uint8Array | null, share: {start: number, end: number} | null}) => void} */
    let gotHead = () => {};
    /** @type {Promise<{digests: Uint8Array | null, share: {start: number, end: number} | null}>} */
    const headIn = new Promise((resolve) => { gotHead = resolve; });
    /** @type {ReturnType<typeof delivery.assembler> | null} */
    let blocks = null;
    req.done = proxyFetch({
      fetch, proxyUrl: proxies[i].url, url, range: null, share: true, stallTimeoutMs,
      signal: AbortSignal.any([userSignal, finished.signal, ctrl.signal]),
      tags: { ...tagsFor('range-http', downloadId, i, n, next), share: i, weights: weights.join(','), cap: shareCap },
      onHead: (_size, head) => {
        if (head.serverFetchMs !== null) serverFetchMs.push(head.serverFetchMs);
        steps.answered(head.wait);
        // a size vote while its list is on the way (asked apart when the proxy's origin was still sending)
        if (head.total !== null) delivery.claimSize(i, head.total);
        if (head.share && head.share.end > head.share.start) {
          blocks = delivery.assembler(i, head.share.start * BLOCK_BYTES);
          blocks.setEnd(Math.min(head.share.end * BLOCK_BYTES, head.total ?? Infinity));
        }
        gotHead({ digests: head.digests, share: head.share });
        // a proxy that predates shares sends the whole object: not read (its worker gives the share back)
        if (!head.share) ctrl.abort(codedError('ERR_LOST_RACE', 'the proxy answered the whole object, not a share'));
      },
      onBytes: (got, piece) => {
        if (firstPacketMs === null) firstPacketMs = elapsed();
        if (got > 0 && req.firstByteAt === null) {
          req.firstByteAt = elapsed();
          sched?.onFirstByte(i, req.firstByteAt); // once its share is assigned; firstShare tells it otherwise
        }
        perProxy[i].bytes += got;
        grossBytes += got;
        if (piece && blocks) blocks.push(piece.bytes);
        delivery.flush();
      },
    }).then((res) => { req.doneAt = elapsed(); perProxy[i].packets += 1; return res; });
    // a request that fails before its head fails its list (fetchDigests' inline); after it, its worker sees it
    req.head = Promise.race([headIn, req.done.then(() => headIn)]);
    // once it has ended, a liar found is failed at once (onLiar), not through this request
    req.done.catch(() => {}).finally(() => { if (current[i] === ctrl) current[i] = null; });
    return req;
  }
  const allFailed = () => codedError('ERR_ALL_PROXIES_FAILED',
    `all ${n} proxies failed (${proxyOutcomes(perProxy)})`, { perProxy, grossBytes, firstPacketMs });
  const unresolved = () => codedError('ERR_INTEGRITY_UNRESOLVED',
    `the proxies' digests disagree and no strict majority backs either (${proxyOutcomes(perProxy)})`, { perProxy, grossBytes, firstPacketMs });

  // 1. Every proxy's digest list: the size a majority agrees on, and it makes every proxy fetch
  //    the origin in parallel, so their caches are warm for the ranges.
  //    A proxy's ranges wait for its own list: asked while that request is out, a range would
  //    open a second TCP connection (a handshake and a new slow start) instead of following it.
  //    With first shares, the list comes in the head of the proxy's first range, or apart when
  //    the proxy's origin was still sending; the ranges then follow the share.
  const steps = createRequestSteps(elapsed);
  const shareCap = firstShareCapBlocks(schedulerOptions.initialRangeBytes);
  const weights = shareWeights(proxies.map((p) => p.uploadRateBps ?? null));
  const shares = range === null && !proxies.some((p) => digestCache?.keeps(p.url, url))
    ? proxies.map((_, i) => askShare(i)) : null;
  const lists = delivery.fetchDigests({
    fetch, proxies, url, signal: AbortSignal.any([userSignal, finished.signal]), stallTimeoutMs, next, onList: (_i, wait) => steps.answered(wait),
    ...(shares ? { inline: (/** @type {number} */ i) => shares[i].head.then((h) => h.digests) } : {}),
    onError: (i, err) => {
      if (err.code === 'ERR_LOST_RACE' || finished.signal.aborted) return;
      perProxy[i].error = perProxy[i].error === null ? err : withOriginCause(perProxy[i].error, err);
      failSource(i);
    },
  });
  const digests = Promise.all(lists);
  try {
    await Promise.race([delivery.sizeKnown, digests]);
    steps.decided(); // the ranges go once a majority's lists agree on the size
    const size = delivery.objectSize();
    if (size === null) {
      if (userSignal.aborted) throw codedError('ERR_ABORTED', 'download aborted', { perProxy });
      throw delivery.undecidable() ? unresolved() : allFailed();
    }
    if (range && range.start >= size) {
      throw codedError('ERR_RANGE_NOT_SATISFIABLE', `range starts at ${range.start}, the object has ${size} bytes`, { perProxy, grossBytes, firstPacketMs });
    }
    delivery.flush(); // the size, for a player, before the first byte
    const firstBlock = Math.floor((range ? range.start : 0) / BLOCK_BYTES);
    const endByte = range ? Math.min(range.end + 1, size) : size;
    const endBlock = Math.ceil(endByte / BLOCK_BYTES);
    /** @param {number} b first block @param {number} e end block (exclusive) */
    const byteRange = (b, e) => ({ start: b * BLOCK_BYTES, end: Math.min(e * BLOCK_BYTES, size) - 1 });

    /**
     * Fetch blocks [b, e) from source i; each verified block is delivered as it completes.
     * @param {number} i @param {number} b @param {number} e @param {AbortSignal} stop
     */
    const fetchBlocks = async (i, b, e, stop) => {
      const want = byteRange(b, e);
      const before = perProxy[i].bytes;
      const blocks = delivery.assembler(i, want.start);
      blocks.setEnd(want.end + 1);
      const res = await proxyFetch({
        fetch, proxyUrl: proxies[i].url, url, range: want, signal: AbortSignal.any([userSignal, stop]), stallTimeoutMs,
        tags: tagsFor('range-http', downloadId, i, n, next),
        onHead: (_size, head) => { if (head.serverFetchMs !== null) serverFetchMs.push(head.serverFetchMs); },
        onBytes: (got, piece) => {
          if (firstPacketMs === null) firstPacketMs = elapsed();
          if (got > 0 && perProxy[i].bytes === before) sched?.onFirstByte(i, elapsed()); // the request's latency, apart from the rate
          perProxy[i].bytes += got;
          grossBytes += got;
          if (piece) blocks.push(piece.bytes);
          delivery.flush();
        },
      });
      perProxy[i].packets += 1;
      return res;
    };

    // 2. Ranges of whole blocks, driven by the scheduler. One worker per proxy; all share it.
    // the first ranges' shares follow the rates Origo advertised (a small object is split at once)
    const s = createBlockRangeScheduler(endBlock - firstBlock, n, { priorRates: proxies.map((p) => p.uploadRateBps ?? null), ...schedulerOptions });
    sched = s;
    for (let i = 0; i < n; i++) if (failed[i]) s.onSourceFailed(i, elapsed());
    // each source's first share, as the agreed size gives it; those asked are out already, and
    // each is its proxy's until its answer shows otherwise
    const shareRanges = proxies.map((_, i) => shareOf(endBlock - firstBlock, weights, shareCap, i));
    const assigned = shareRanges.map((want, i) => !!shares && !failed[i] && want.end > want.start && s.assign(i, want, shares[i].requestedAt));

    /**
     * Source i's range r, fetched by `fetching` under `ctrl` (current[i] meanwhile), then told to
     * the scheduler. False: the source failed, or the download was aborted (its worker stops).
     * @param {number} i @param {{start: number, end: number}} r @param {AbortController} ctrl
     * @param {() => Promise<unknown>} fetching
     * @param {number} before  source i's bytes before this range was asked
     * @param {() => number} endedAt  when its last byte came
     */
    const runRange = async (i, r, ctrl, fetching, before, endedAt = elapsed) => {
      current[i] = ctrl;
      try {
        await fetching();
        current[i] = null;
        const { accepted, cancel } = s.onRangeDone(i, r, r.end - r.start, endedAt());
        if (accepted) for (const h of cancel) current[h]?.abort(codedError('ERR_LOST_RACE', 'another proxy delivered this range first'));
        else perProxy[i].duplicates += 1;
        notify();
        return true;
      } catch (err) {
        current[i] = null;
        const info = errorInfo(err);
        if (userSignal.aborted) return false;
        if (info.code === 'ERR_LOST_RACE') {
          if (perProxy[i].bytes > before) { perProxy[i].packets += 1; perProxy[i].duplicates += 1; }
          return true; // not a failure: the scheduler already freed this proxy
        }
        if (perProxy[i].error === null) perProxy[i].error = info;
        failSource(i);
        return false;
      }
    };

    /**
     * Proxy i's first share, asked with its list and assigned to it when the size was agreed: its
     * first range, when its answer is the share that size gives. An answer without a share (a
     * proxy that predates them) gives the share back. False: the source failed.
     * @param {NonNullable<typeof shares>[number]} req
     * @param {number} i
     */
    const firstShare = async (req, i) => {
      const head = await req.head.catch(() => null); // a request that failed failed its list, and this proxy (onError)
      if (!head || failed[i]) return !failed[i];
      const want = shareRanges[i];
      if (!head.share) { // stopped at its head
        if (assigned[i]) s.release(i);
        notify();
        return true;
      }
      if (head.share.start !== firstBlock + want.start || head.share.end !== firstBlock + want.end) {
        const err = codedError('ERR_PROXY_BAD_RESPONSE', `${proxies[i].id}: share of blocks ${head.share.start}-${head.share.end}, the agreed size gives ${want.start}-${want.end}`);
        req.ctrl.abort(err);
        if (perProxy[i].error === null) perProxy[i].error = errorInfo(err);
        failSource(i);
        return false;
      }
      if (!assigned[i]) return true; // an empty share
      if (req.firstByteAt !== null) s.onFirstByte(i, req.firstByteAt);
      return runRange(i, want, req.ctrl, () => req.done, 0, () => req.doneAt ?? elapsed());
    };

    /** @param {number} i */
    const worker = async (i) => {
      // a list that failed has failed this proxy already (onError). A first share's head carries the
      // list, or (its object still coming at the proxy) the list is asked apart, on a connection
      // of its own: the ranges follow the share's on its connection, without waiting for the list
      if (shares) await shares[i].head.catch(() => {});
      else await lists[i].catch(() => {});
      if (shares && !failed[i] && !(await firstShare(shares[i], i))) return;
      while (!s.isComplete() && !userSignal.aborted && !failed[i]) {
        const r = s.nextRange(i, elapsed());
        if (!r) {
          const waitMs = Math.min(MAX_IDLE_WAIT_MS, Math.max(1, s.wakeAt() - elapsed()));
          let t = null;
          await Promise.race([changed, new Promise((res) => { t = setTimeout(res, waitMs); })]);
          clearTimeout(t);
          continue;
        }
        const ctrl = new AbortController();
        if (!(await runRange(i, r, ctrl, () => fetchBlocks(i, firstBlock + r.start, firstBlock + r.end, ctrl.signal), perProxy[i].bytes))) return;
      }
    };
    await Promise.all(proxies.map((_, i) => worker(i)));
    if (userSignal.aborted) throw codedError('ERR_ABORTED', 'download aborted', { perProxy });

    // 3. Blocks not delivered yet: held while the vote was open, or last sent by a proxy exposed
    //    later. Let every digest list come in, then ask the live proxies for them, each in turn.
    if (!delivery.isComplete()) await digests;
    if (!delivery.isComplete()) await delivery.hashed(); // hashes under way may complete it
    for (let round = 0; round < n && !delivery.isComplete(); round++) {
      const live = proxies.map((_, i) => i).filter((i) => !failed[i] && delivery.isLive(i));
      if (live.length === 0) break;
      const runs = blockRuns(delivery.missingBlocks());
      await Promise.all(runs.map(([b, e], k) => {
        const i = live[(k + round) % live.length];
        return fetchBlocks(i, b, e, finished.signal).catch((err) => {
          const info = errorInfo(err);
          if (info.code !== 'ERR_INTEGRITY' && perProxy[i].error === null) perProxy[i].error = info;
          failSource(i);
        });
      }));
      if (!delivery.isComplete()) await delivery.hashed();
    }
    if (!delivery.isComplete()) {
      if (userSignal.aborted) throw codedError('ERR_ABORTED', 'download aborted', { perProxy });
      throw delivery.undecidable() ? unresolved() : allFailed();
    }
  } finally {
    finished.abort(codedError('ERR_LOST_RACE', 'the download ended'));
    delivery.close();
  }
  delivery.flush();
  const packets = perProxy.reduce((a, p) => a + p.packets, 0);
  const duplicates = perProxy.reduce((a, p) => a + p.duplicates, 0);
  return { data: delivery.data(), grossBytes, firstPacketMs, packets, duplicates, serverFetchMs, perProxy, verified: delivery.verified(), requestSteps: steps.value() };
}

/**
 * Sorted block indices as runs [first, end).
 * @param {number[]} blocks
 * @returns {[number, number][]}
 */
function blockRuns(blocks) {
  /** @type {[number, number][]} */
  const runs = [];
  for (const b of blocks) {
    const last = runs.at(-1);
    if (last && last[1] === b) last[1] = b + 1;
    else runs.push([b, b + 1]);
  }
  return runs;
}
