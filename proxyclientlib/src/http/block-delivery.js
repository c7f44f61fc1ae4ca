// Verified delivery for the HTTP modes: every proxy's digest list of the object is fetched
// alongside the body (or taken from a recent download of the same object, digest-cache.js), the block vote (@mutp/protocol createBlockVote) decides which digest each
// block must have, and a block's bytes reach the result and onProgress only once they match it.
// Each byte is handed out once. A proxy the vote exposes is reported through onLiar.
// Where the environment hashes off its thread (a browser's WebCrypto), a block waits for its hash
// there: the callers wait for `hashed()` before they judge the download complete.
import { BLOCK_BYTES, MAX_DIGEST_LIST_BYTES, blockAligned, blockSpan, blocksOfRange, checksumOf, checksumOfAsync, createBlockVote, decodeDigestList, sameBytes } from '@mutp/protocol/http';
import { codedError } from '@mutp/common/errors';
import { errorInfo } from '../errors.js';
import { proxyFetch } from './proxy-fetch.js';
import { createBlockAssembler } from './block-assembler.js';
import { createPieceSet, safeProgress } from './body-pieces.js';

/**
 * A download that asks for its lists (Range-split HTTP) of a file whose lists of an earlier range
 * are kept asks for the blocks of this many more of its lengths after its range too: a player
 * reads such a file range after range, and the next ranges then find their lists kept instead of
 * waiting a round trip for them (the proxy has those bytes: it reads ahead).
 */
export const LIST_AHEAD_FACTOR = 2;

/**
 * One proxy's digest list request (GET /fetch?url=…&digests=1[&span=a-b]): the encoded list of
 * the object's blocks, or of the blocks of `span`. The proxy fetches the object (or those blocks)
 * from the origin to answer.
 * @param {{fetch: typeof fetch, proxyUrl: string, url: string, span: {start: number, end: number} | null, signal: AbortSignal,
 *   stallTimeoutMs?: number, next?: string | null, onWait?: (wait: {originMs: number, prepareMs: number} | null) => void}} o
 *   next: the object asked next, named as on body requests; onWait: what the request waited for at the proxy (its head's parseWait)
 * @returns {Promise<Uint8Array>}
 */
export async function fetchDigestList({ fetch, proxyUrl, url, span, signal, stallTimeoutMs, next = null, onWait }) {
  const tags = { digests: 1, ...(span ? { span: `${span.start}-${span.end}` } : {}), ...(next ? { next } : {}) };
  return /** @type {Uint8Array} */ ((await proxyFetch({
    fetch, proxyUrl, url, range: null, signal, stallTimeoutMs, maxBytes: MAX_DIGEST_LIST_BYTES, tags, onBytes: () => {}, keepBody: true,
    onHead: onWait ? (_size, head) => onWait(head.wait) : undefined,
  })).bytes);
}

/**
 * @param {object} o
 * @param {number} o.n  sources
 * @param {{start: number, end: number} | null} o.range  the asked range (end inclusive), null = the whole object
 * @param {() => number} o.grossBytes
 * @param {(p: import('./parallel-http.js').HttpProgress) => void} [o.onProgress]
 * @param {(v: {source: number, code: string, message: string}) => void} o.onLiar
 * @param {{warn: (...a: unknown[]) => void}} o.logger
 * @param {ReturnType<typeof import('./digest-cache.js').createDigestCache> | null} [o.digestCache]  lists of earlier downloads, per proxy and URL
 * @param {boolean} [o.listAhead]  asked lists cover LIST_AHEAD_FACTOR more lengths of the range when a list of the URL is kept
 * @param {((bytes: Uint8Array) => Promise<Uint8Array>) | null} [o.checksumAsync]  a block's checksum off this thread (default: the environment's, if any); null: checksumOf, inline
 */
export function createBlockDelivery({ n, range, grossBytes, onProgress, onLiar, logger, digestCache = null, listAhead = false, checksumAsync = checksumOfAsync }) {
  // a range is voted on, and its lists asked for, by its blocks only: a proxy then fetches only
  // those bytes from the origin (a range of a long single-file stream), not the whole file
  const want = blocksOfRange(range);
  /** The blocks a list is asked for: the range's (with the ones after it, ahead), or the whole object's. @param {boolean} ahead */
  const listSpan = (ahead) => (range ? blockAligned({ start: range.start, end: range.end + (ahead ? LIST_AHEAD_FACTOR * (range.end - range.start + 1) : 0) }) : null);
  const vote = createBlockVote({ sources: n, span: want });
  const report = safeProgress(onProgress, logger);
  const pieces = createPieceSet();
  /**
   * Blocks received and not settled yet; hashed only once the vote can use the hash. `offered`:
   * its digest went to the vote; `hashing`: its hash is under way off this thread.
   * @typedef {{source: number, block: number, bytes: Uint8Array, digest: Uint8Array | null, offered: boolean, hashing: boolean}} PendingBlock
   */
  /** @type {PendingBlock[]} */
  let pending = [];
  let hashesOut = 0;
  /** @type {(() => void)[]} */
  let onHashed = []; // hashed()'s waiters
  let closed = false; // the download ended: a late hash changes nothing
  /** @type {Uint8Array | null} */
  let data = null;
  let from = 0; // object offset of the result's first byte
  let firstBlock = 0;
  let endBlock = 0; // blocks [firstBlock, endBlock) cover the result
  let missing = 0;
  /** @type {Uint8Array} */
  let delivered = new Uint8Array(0);
  const deliveredBy = new Array(n).fill(0);
  /** @type {{offset: number, bytes: Uint8Array}[]} */
  let out = [];
  /** @type {() => void} */
  let completed = () => {};
  const done = new Promise((resolve) => { completed = () => resolve(undefined); });
  let forgetLists = () => {}; // a liar found: its cached list (and the others of that URL) are not kept
  /** @type {() => void} */
  let sized = () => {};
  const sizeKnown = new Promise((resolve) => { sized = () => resolve(undefined); });

  function onSize() {
    const size = vote.size();
    if (size === null || data) return;
    from = range ? Math.min(range.start, size) : 0;
    const to = range ? Math.min(range.end + 1, size) : size;
    data = new Uint8Array(Math.max(0, to - from));
    firstBlock = Math.floor(from / BLOCK_BYTES);
    endBlock = data.byteLength ? Math.ceil(to / BLOCK_BYTES) : firstBlock;
    missing = endBlock - firstBlock;
    delivered = new Uint8Array(missing);
    sized();
    if (missing === 0) completed();
  }

  /** @param {number} s @param {number} b @param {Uint8Array} bytes */
  function deliver(s, b, bytes) {
    if (!data || b < firstBlock || b >= endBlock || delivered[b - firstBlock]) return;
    delivered[b - firstBlock] = 1;
    deliveredBy[s] += 1;
    const span = blockSpan(b, /** @type {number} */ (vote.size()));
    const lo = Math.max(span.start, from);
    const hi = Math.min(span.end, from + data.byteLength);
    data.set(bytes.subarray(lo - span.start, hi - span.start), lo - from);
    out.push(...pieces.take(lo - from, data.subarray(lo - from, hi - from)));
    flush(); // at once: a vote can release many held blocks, and the player wants the first now
    if (--missing === 0) completed();
  }

  /**
   * The delivered bytes of block b when the result holds all of them (not a cut first/last block), else null.
   * @param {number} b @param {number} length
   */
  function heldBytes(b, length) {
    if (!data || b < firstBlock || b >= endBlock || !delivered[b - firstBlock]) return null;
    const span = blockSpan(b, /** @type {number} */ (vote.size()));
    if (span.start < from || span.end > from + data.byteLength || span.end - span.start !== length) return null;
    return data.subarray(span.start - from, span.end - from);
  }

  /**
   * Settle one received block if the vote allows. A block is hashed only when its digest is
   * decided, or when its hash is a vote (its source has not given its list; or every list is in
   * and none has a majority). Parallel HTTP brings every block from each proxy, and a hash costs
   * more than comparing bytes (sameBytes): a copy of a delivered block is compared with it, a copy
   * of bytes hashed already takes their digest, and off the thread one copy of a block is hashed
   * at a time while the others wait to be compared with it (a WebCrypto digest costs the calling
   * thread ~70-80 µs besides the hashing, which takes another of the machine's cores).
   * @param {PendingBlock} p
   * @returns {boolean} settled (delivered, or dropped)
   */
  function settle(p) {
    if (vote.isLiar(p.source)) return true;
    const held = heldBytes(p.block, p.bytes.byteLength);
    if (held) {
      if (!sameBytes(held, p.bytes)) vote.mismatch(p.source, p.block);
      return true;
    }
    let verdict = 'wait';
    if (p.offered) verdict = vote.recheck(p.source, p.block);
    else if (vote.decided(p.block) || vote.stuck(p.block) || vote.sizeStuck() || (vote.size() !== null && vote.canVote(p.source, p.block))) {
      // the same bytes from another source were hashed already: their digest is this copy's too
      if (!p.digest && !p.hashing) p.digest = pending.find((q) => q !== p && q.block === p.block && q.digest && sameBytes(q.bytes, p.bytes))?.digest ?? null;
      if (!p.digest && checksumAsync) {
        if (!p.hashing && !pending.some((q) => q !== p && q.block === p.block && q.hashing)) hashOffThread(p, checksumAsync);
        return false; // settled when its hash, or its twin's, is in
      }
      if (!p.digest) p.digest = checksumOf(p.bytes);
      p.offered = true;
      verdict = vote.offerDigest(p.source, p.block, p.digest);
      onSize(); // bytes can settle the size too (a source's vote)
    }
    if (verdict === 'ok') deliver(p.source, p.block, p.bytes);
    return verdict !== 'wait';
  }

  /**
   * Hash p's bytes by `hash`, then settle what that allows. A hash that fails is taken inline.
   * @param {PendingBlock} p @param {(bytes: Uint8Array) => Promise<Uint8Array>} hash
   */
  function hashOffThread(p, hash) {
    p.hashing = true;
    hashesOut += 1;
    hash(p.bytes).catch(() => checksumOf(p.bytes)).then((digest) => {
      p.digest = digest;
      p.hashing = false;
      hashesOut -= 1;
      if (!closed) afterVote();
      if (hashesOut === 0) {
        const waiters = onHashed;
        onHashed = [];
        for (const w of waiters) w();
      }
    });
  }

  function flush() {
    const chunks = out;
    out = [];
    report({ grossBytes: grossBytes(), netBytes: pieces.handedOut(), objectBytes: data ? data.byteLength : null, chunks });
  }

  /** After the vote or the blocks changed: settle what can be, report liars; a liar found can unlock more. */
  function afterVote() {
    onSize();
    let liars;
    do {
      pending = pending.filter((p) => !settle(p));
      liars = vote.pollLiars();
      if (liars.length) forgetLists();
      for (const v of liars) onLiar(v);
    } while (liars.length > 0);
  }

  /**
   * One complete block from source s.
   * @param {number} s @param {number} b @param {Uint8Array} bytes
   */
  function offer(s, b, bytes) {
    if (!vote.isLive(s) && vote.isLiar(s)) return;
    pending.push({ source: s, block: b, bytes, digest: null, offered: false, hashing: false });
    afterVote();
  }

  return {
    /**
     * Every proxy's digest list of the download's blocks (the whole object's, or the span list of
     * the range's blocks): the one its body response carried (`inline`, when given: resolves
     * with the encoded list from the response's head, or null when there was none), else asked for
     * (GET /fetch?url=…&digests=1), in parallel with the bodies. One promise per proxy, settled
     * when its list is in (its request, if any, is over); a proxy that cannot give one no longer
     * counts in the vote.
     * @param {{fetch: typeof fetch, proxies: {url: string}[], url: string, signal: AbortSignal, stallTimeoutMs?: number,
     *   onError: (i: number, err: {code: string, message: string}) => void, inline?: (i: number) => Promise<Uint8Array | null>,
     *   next?: string | null, onList?: (i: number, wait: {originMs: number, prepareMs: number} | null) => void}} o
     *   next: named on the list requests, as on the body requests (tagsFor); onList: proxy i's list is in (before the
     *   vote takes it), with what its request waited for at the proxy (null: kept, carried, or the proxy did not say)
     * @returns {Promise<void>[]}
     */
    fetchDigests({ fetch, proxies, url, signal, stallTimeoutMs, onError, inline, next = null, onList }) {
      forgetLists = () => digestCache?.forget(url);
      return proxies.map(async (p, i) => {
        const kept = digestCache?.get(p.url, url, want);
        if (kept) {
          onList?.(i, null);
          vote.addList(i, kept);
          afterVote();
          return;
        }
        try {
          // a response stopped before its head (it lost its race to another proxy) carried no
          // list: the list is asked apart, as a vote it may yet decide needs it
          const carried = inline ? await inline(i).catch((err) => { if (errorInfo(err).code === 'ERR_LOST_RACE' && !signal.aborted) return null; throw err; }) : null;
          /** @param {{start: number, end: number} | null} span */
          /** @type {{originMs: number, prepareMs: number} | null} */
          let wait = null;
          const askList = (span) => fetchDigestList({ fetch, proxyUrl: p.url, url, span, signal, stallTimeoutMs, next, onWait: (w) => { wait = w; } });
          const plain = listSpan(false);
          let asked = !carried && listAhead && digestCache?.keeps(p.url, url) ? listSpan(true) : plain;
          const bytes = carried ?? (await askList(asked).catch((err) => {
            if (errorInfo(err).code !== 'ERR_ORIGIN_TOO_LARGE' || asked === plain) throw err;
            asked = plain; // the blocks ahead pass the proxy's object cap: this range's alone
            return askList(plain);
          }));
          const parsed = decodeDigestList(bytes, carried ? want : blocksOfRange(asked));
          if ('error' in parsed) {
            logger.warn(`http: ${p.url} sent a bad digest list: ${parsed.error.message}`);
            throw codedError(parsed.error.code, `${p.url}: ${parsed.error.message}`);
          }
          onList?.(i, wait);
          vote.addList(i, parsed.list);
          if (!vote.isLiar(i)) digestCache?.set(p.url, url, parsed.list);
        } catch (err) {
          vote.fail(i);
          onError(i, errorInfo(err));
        }
        afterVote();
      });
    },
    /**
     * The block assembler of one response from source s starting at an object offset (a block boundary).
     * @param {number} s @param {number} objectStart
     */
    assembler: (s, objectStart) => createBlockAssembler(objectStart, (b, bytes) => offer(s, b, bytes)),
    /** Report the counts (after a received chunk, or a vote) with anything delivered and not reported yet. */
    flush,
    /** The object size source s's response headers gave: a size vote until its list comes. @param {number} s @param {number} objectBytes */
    claimSize(s, objectBytes) {
      vote.claimSize(s, objectBytes);
      afterVote();
    },
    /** Resolves once a majority agreed on the object's size. */
    sizeKnown,
    /** Resolves once every block of the result is delivered. */
    done,
    /** Resolves once no block's hash is under way: what was received is settled as far as the vote allows. @returns {Promise<void>} */
    hashed: () => (hashesOut === 0 ? Promise.resolve() : new Promise((resolve) => { onHashed.push(() => resolve(undefined)); })),
    /** The download ended (delivered, failed or aborted): hashes still under way deliver nothing. */
    close() {
      closed = true;
    },
    isComplete: () => data !== null && missing === 0,
    /** The result, once complete. */
    data: () => /** @type {Uint8Array} */ (data),
    /** Object size the majority agreed on, or null. */
    objectSize: () => vote.size(),
    /** Blocks [first, end) of the result not delivered yet (object block indices). */
    missingBlocks() {
      const list = [];
      for (let b = firstBlock; b < endBlock; b++) if (!delivered[b - firstBlock]) list.push(b);
      return list;
    },
    /** Blocks delivered per source (the source whose bytes were used). */
    deliveredBy: () => [...deliveredBy],
    /** True when the digest lists cannot decide something even with every list in. */
    undecidable: () => vote.sizeStuck() || (data !== null && Array.from({ length: endBlock - firstBlock }, (_, k) => firstBlock + k).some((b) => vote.stuck(b))),
    verified: () => vote.verified(),
    /** @param {number} s */
    isLive: (s) => vote.isLive(s),
  };
}
