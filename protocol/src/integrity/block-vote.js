// Which block digests to believe in the HTTP modes (sans-IO). Every proxy publishes a digest
// list of the whole object (block-digests.js); no single proxy is believed alone:
// - the object size, then each block's digest, is accepted once a strict majority of the live
//   sources votes for it. Live = every source not excluded as a liar and not failed before it
//   gave a list (sources still on their way count: the majority is of all of them, so one liar
//   can never make it alone while two or more sources are live);
// - a source votes with its list, and with the bytes it served: the digest of a block it sent.
//   A source whose bytes do not match its own list is a liar at once (an honest proxy serves the
//   copy it digested), so a source votes at most one value per block;
// - a source whose list or bytes disagree with an accepted value is a liar. Liars are excluded,
//   which lowers the majority needed for what is still open.
// `verified()` is false when any accepted value rested on one source (one live proxy).
// A download of a byte range votes on the blocks of that range only (`span`): the lists it is
// given cover those blocks, and may cover no others (span lists, block-digests.js).
import { CHECKSUM_ENTRY_BYTES, checksumOf } from './checksums.js';
import { WHOLE_OBJECT_BLOCKS, blockCount, clipBlocks, entryOffset, listHas } from './block-digests.js';

/**
 * @typedef {object} Verdict
 * @property {number} source
 * @property {'ERR_INTEGRITY'} code
 * @property {string} message
 */

/**
 * @param {{ sources: number, span?: import('./block-digests.js').BlockSpan }} o
 *   span: the blocks the download needs (default: the whole object); every list given covers them
 */
export function createBlockVote({ sources, span = WHOLE_OBJECT_BLOCKS }) {
  const E = CHECKSUM_ENTRY_BYTES;
  /** @type {('waiting' | 'listed' | 'failed' | 'liar')[]} */
  const status = new Array(sources).fill('waiting');
  /** @type {(import('./block-digests.js').DigestList | null)[]} */
  const lists = new Array(sources).fill(null);
  /** the object size a source's response headers gave before its list came (its size vote meanwhile) */
  /** @type {(number | null)[]} */
  const claims = new Array(sources).fill(null);
  /** block → source → digest of the bytes that source served for it */
  /** @type {Map<number, Map<number, Uint8Array>>} */
  const evidence = new Map();
  /** @type {number | null} */
  let size = null;
  let blocks = 0; // the object's blocks
  let lo = 0; // blocks [lo, hi) are voted on: the span, clipped to the object
  let hi = 0;
  let accepted = new Uint8Array(0);
  let decided = new Uint8Array(0);
  let open = 0; // blocks not decided yet
  let singleVoter = false;
  /** @type {Verdict[]} */
  const verdicts = [];
  let liarsChanged = false;

  const live = () => status.reduce((n, s) => n + (s === 'waiting' || s === 'listed' ? 1 : 0), 0);
  const waiting = () => status.includes('waiting');
  const key = (/** @type {Uint8Array} */ bytes, /** @type {number} */ off) => String.fromCharCode(...bytes.subarray(off, off + E));
  /** @param {Uint8Array} a @param {number} ao @param {Uint8Array} b @param {number} bo */
  const same = (a, ao, b, bo) => {
    for (let i = 0; i < E; i++) if (a[ao + i] !== b[bo + i]) return false;
    return true;
  };
  /** Is block b one the vote decides? @param {number} b */
  const voted = (b) => size !== null && b >= lo && b < hi;
  /** Does a list's entry for block b equal digest h? (a list lacking b does not) @param {import('./block-digests.js').DigestList} l @param {number} b @param {Uint8Array} h @param {number} ho */
  const listSays = (l, b, h, ho) => listHas(l, b) && same(h, ho, l.digests, entryOffset(l, b));

  /** @param {number} s @param {string} message */
  function liar(s, message) {
    if (status[s] === 'liar') return;
    status[s] = 'liar';
    liarsChanged = true;
    verdicts.push({ source: s, code: 'ERR_INTEGRITY', message });
  }

  /** The object size, once a strict majority of live sources listed it. */
  function settleSize() {
    if (size !== null) return;
    /** @type {Map<number, number[]>} */
    const bySize = new Map();
    for (let s = 0; s < sources; s++) {
      const l = lists[s];
      const said = status[s] === 'listed' && l ? l.objectBytes : status[s] === 'waiting' ? claims[s] : null;
      if (said === null) continue;
      if (!bySize.has(said)) bySize.set(said, []);
      /** @type {number[]} */ (bySize.get(said)).push(s);
    }
    const need = live();
    for (const [value, voters] of bySize) {
      if (voters.length * 2 <= need) continue;
      size = value;
      blocks = blockCount(value);
      ({ first: lo, end: hi } = clipBlocks(span, value));
      accepted = new Uint8Array((hi - lo) * E);
      decided = new Uint8Array(hi - lo);
      open = hi - lo;
      if (voters.length < 2) singleVoter = true;
      for (const [other, who] of bySize) if (other !== value) for (const s of who) liar(s, `its object size ${other} disagrees with the majority's ${value}`);
      for (const [b, m] of evidence) if (b >= blocks) for (const s of m.keys()) liar(s, `it served block ${b}, past the majority's object size ${value}`);
      return;
    }
  }

  /** @param {number} b */
  function settleBlock(b) {
    if (!voted(b) || decided[b - lo]) return;
    /** @type {Map<string, { value: Uint8Array, off: number, voters: number[] }>} */
    const tally = new Map();
    const vote = (/** @type {number} */ s, /** @type {Uint8Array} */ value, /** @type {number} */ off) => {
      const k = key(value, off);
      const t = tally.get(k);
      if (t) t.voters.push(s);
      else tally.set(k, { value, off, voters: [s] });
    };
    const ev = evidence.get(b);
    for (let s = 0; s < sources; s++) {
      const l = lists[s];
      if (status[s] === 'listed' && l) {
        if (listHas(l, b)) vote(s, l.digests, entryOffset(l, b));
      } else if (status[s] === 'waiting' && ev?.has(s)) vote(s, /** @type {Uint8Array} */ (ev.get(s)), 0);
    }
    const need = live();
    for (const t of tally.values()) {
      if (t.voters.length * 2 <= need) continue;
      accepted.set(t.value.subarray(t.off, t.off + E), (b - lo) * E);
      decided[b - lo] = 1;
      open--;
      if (t.voters.length < 2) singleVoter = true;
      for (const o of tally.values()) if (o !== t) for (const s of o.voters) liar(s, `its digest of block ${b} disagrees with the majority`);
      return;
    }
  }

  /** Decide what can be decided; each new liar lowers the majority, so go round until nothing changes. */
  function settle() {
    do {
      liarsChanged = false;
      settleSize();
      if (size !== null) for (let b = lo; b < hi && open > 0; b++) settleBlock(b);
    } while (liarsChanged);
  }

  /** @param {number} s @param {number} b @returns {'ok' | 'bad' | 'wait'} */
  function recheck(s, b) {
    if (status[s] === 'liar') return 'bad';
    const h = evidence.get(b)?.get(s);
    if (!voted(b) || !decided[b - lo] || !h) return 'wait';
    if (same(h, 0, accepted, (b - lo) * E)) return 'ok';
    liar(s, `its bytes of block ${b} do not match the majority's digest`);
    settle();
    return 'bad';
  }

  return {
    /**
     * Source s's digest list (decoded and checked at the edge).
     * @param {number} s @param {import('./block-digests.js').DigestList} list
     */
    addList(s, list) {
      if (status[s] !== 'waiting') return;
      lists[s] = list;
      status[s] = 'listed';
      if (claims[s] !== null && claims[s] !== list.objectBytes) liar(s, `its list's object size ${list.objectBytes} is not the ${claims[s]} its response said`);
      if (size !== null) {
        // a list that comes after the vote must match what it decided
        if (list.objectBytes !== size) liar(s, `its object size ${list.objectBytes} disagrees with the majority's ${size}`);
        else {
          const k = decided.findIndex((d, i) => d === 1 && !listSays(list, lo + i, accepted, i * E));
          if (k >= 0) liar(s, `its digest of block ${lo + k} disagrees with the majority`);
        }
      }
      for (const [b, m] of evidence) {
        const h = m.get(s);
        if (h && !listSays(list, b, h, 0)) {
          liar(s, `its bytes of block ${b} do not match its own digest list`);
          break;
        }
      }
      settle();
    },
    /**
     * The object size source s's response headers gave (Content-Length of a whole object, the total of a
     * Content-Range): it votes for the size until s's list comes, which must then say the same.
     * @param {number} s @param {number} objectBytes
     */
    claimSize(s, objectBytes) {
      if (status[s] !== 'waiting' || claims[s] !== null) return;
      claims[s] = objectBytes;
      if (size !== null && objectBytes !== size) liar(s, `its response's object size ${objectBytes} disagrees with the majority's ${size}`);
      settle();
    },
    /** Could block b's bytes from source s still add a vote (s has not given its list, nor those bytes)? @param {number} s @param {number} b */
    canVote: (s, b) => status[s] === 'waiting' && !evidence.get(b)?.has(s),
    /** Source s failed before giving a list (unreachable, refused, bad list): it no longer counts. @param {number} s */
    fail(s) {
      if (status[s] !== 'waiting') return;
      status[s] = 'failed';
      settle();
    },
    /**
     * Block b as source s served it. 'ok': it matches the accepted digest, deliver it; 'bad': s is a liar
     * (see pollLiars); 'wait': not decided yet, call recheck(s, b) after the next addList/fail/offer.
     * @param {number} s @param {number} b @param {Uint8Array} bytes
     * @returns {'ok' | 'bad' | 'wait'}
     */
    offer(s, b, bytes) {
      return this.offerDigest(s, b, checksumOf(bytes));
    },
    /**
     * offer() with the block's digest already taken (a caller that found the same bytes from another
     * source hashes them once).
     * @param {number} s @param {number} b @param {Uint8Array} h  checksumOf(the block's bytes)
     * @returns {'ok' | 'bad' | 'wait'}
     */
    offerDigest(s, b, h) {
      if (status[s] === 'liar') return 'bad';
      const own = lists[s];
      if (own && !listSays(own, b, h, 0)) {
        liar(s, `its bytes of block ${b} do not match its own digest list`);
        settle();
        return 'bad';
      }
      if (!evidence.has(b)) evidence.set(b, new Map());
      /** @type {Map<number, Uint8Array>} */ (evidence.get(b)).set(s, h);
      if (size !== null && b >= blocks) {
        liar(s, `it served block ${b}, past the majority's object size ${size}`);
        settle();
        return 'bad';
      }
      if (voted(b) && !decided[b - lo] && status[s] === 'waiting') {
        settleBlock(b);
        if (liarsChanged) settle();
      }
      return recheck(s, b);
    },
    recheck,
    /**
     * Source s served block b with bytes that differ from bytes which matched the accepted digest
     * (the caller compared them instead of hashing again): s is a liar.
     * @param {number} s @param {number} b
     */
    mismatch(s, b) {
      if (status[s] === 'liar' || size === null || !decided[b]) return;
      liar(s, `its bytes of block ${b} do not match the majority's digest`);
      settle();
    },
    /** The object size a majority agreed on, or null. */
    size: () => size,
    /** @param {number} b */
    decided: (b) => voted(b) && decided[b - lo] === 1,
    /** True when block b is open and no more lists can come: only exposing a liar by its bytes can decide it. @param {number} b */
    stuck: (b) => voted(b) && decided[b - lo] === 0 && !waiting() && live() > 0,
    /** True when lists came but disagree on the size, and no more lists can come. */
    sizeStuck: () => size === null && !waiting() && status.includes('listed'),
    /** @param {number} s */
    isLiar: (s) => status[s] === 'liar',
    /** @param {number} s */
    isLive: (s) => status[s] === 'waiting' || status[s] === 'listed',
    /** Liars found since the last call. */
    pollLiars: () => verdicts.splice(0),
    /** Every accepted value had at least two sources behind it. */
    verified: () => size !== null && !singleVoter,
  };
}
