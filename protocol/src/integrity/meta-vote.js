// Which proxy's meta to believe (a polluting proxy may lie in its meta). Every proxy sends its own meta and
// checksum table; no proxy is believed alone while another says otherwise:
// - layout (mode, size, payload size, packet/generation counts): the layout a strict majority of
//   the metas gave. Proxies with another layout are outvoted. Without such a majority the vote is
//   unresolved (ERR_INTEGRITY_UNRESOLVED): nothing is delivered.
// - each unit's checksum: the value a strict majority of its voters gave. A unit's voters are the
//   proxies of the winning layout that are not liars and either gave the unit's checksum (a proxy
//   that dropped out keeps the votes it gave) or may still give it. Proxies that gave another
//   value are liars.
// - without such a majority (e.g. two proxies that disagree) the unit waits for the metas still
//   awaited (proxies still here that have sent none: one may break the tie). Once none is, the
//   data may settle the unit, but only by showing a proxy to contradict itself: the unit's bytes
//   match one value and were built from that proxy's packets while it gave another. Data from the
//   proxies of one value alone proves nothing against the others (each may serve its own copy
//   consistently); once every value of a unit is backed that way, or by a proxy that left, the
//   vote is unresolved.
import { CHECKSUM_ENTRY_BYTES, checksumOf } from './checksums.js';
import { sameBytes } from '#same-bytes';
import { codedError } from '@mutp/common/errors';

/** Meta fields that define the object's layout: all proxies must agree on them. */
export const LAYOUT_FIELDS = /** @type {const} */ (['mode', 'totalSize', 'payloadSize', 'packetCount', 'generationSize', 'generationCount']);

/** The meta's layout as one string, equal for metas that agree on it. @param {any} m */
const layoutKey = (m) => LAYOUT_FIELDS.map((f) => m[f]).join('/');

/** The first layout field two metas disagree on, or undefined. @param {any} a @param {any} b */
function layoutDifference(a, b) {
  return LAYOUT_FIELDS.find((f) => a[f] !== b[f]);
}

/** pollLiars() when there is no news. @type {Verdict[]} */
const NO_VERDICTS = /** @type {any} */ (Object.freeze([]));

/**
 * @typedef {object} Verdict
 * @property {number} source
 * @property {string} code     ERR_META_MISMATCH (layout) or ERR_INTEGRITY (checksums)
 * @property {string} message
 */

/**
 * @typedef {object} VoteEntry  one proxy's meta: its layout and the checksums it has sent so far
 * @property {number} source
 * @property {any} meta
 * @property {Uint8Array} table          its checksum table (entries it has not sent are zeros)
 * @property {(unit: number) => boolean} [has]  whether it has sent unit's checksum (default: all: a whole meta)
 */

/** A whole meta has every unit's checksum. */
const HAS_ALL = () => true;

/**
 * Useful packets of a proxy in a coded decode that matched one value before the decode shows that
 * proxy to contradict the other value it gave: its packets carry random coefficients, and all m of
 * them fit data other than what they were made from with probability at most 256^-m. An uncoded
 * packet is a whole unit: one is proof.
 */
export const MIN_CONTRADICTING_PACKETS = 8;

/**
 * @typedef {ArrayLike<number>} Contributors  useful packets per source index in the data offered
 *   (a coded decode's per-source counts; an uncoded packet: 1 for its source)
 */

/**
 * The vote on the proxies' metas. The layout is decided once, among `entries`. Each unit's
 * checksum is decided when one value has a strict majority of its voters (the rules at the top of
 * this file); a tie is left to the data (verify with its contributors). A whole meta gives every
 * unit at once; a streamed one gives units as the proxy gets the object's bytes (heard), so a
 * unit may be open for a while: verify() then answers undefined. unresolved() says when nothing
 * more can be delivered.
 * @param {VoteEntry[]} entries  metas in arrival order
 * @param {Iterable<number>} [awaited]  sources still here that have sent no meta yet: a tie waits
 *   for them (admit() or drop() each)
 * @returns {{ meta: any, excluded: Verdict[], verify: (unit: number, bytes: Uint8Array, contributors?: Contributors) => boolean | null | undefined,
 *   verifyChecksum: (unit: number, checksum: Uint8Array, contributors?: Contributors) => boolean | null | undefined,
 *   unresolved: () => string | null, verified: () => boolean, pollLiars: () => Verdict[], admit: (entry: VoteEntry) => Verdict | null,
 *   heard: (source: number, from: number, to: number) => void, drop: (source: number) => void,
 *   awaits: () => boolean, stopAwaiting: () => void,
 *   decided: (unit: number) => boolean, lacking: (unit: number) => number[] }}
 */
export function createMetaVote(entries, awaited = []) {
  if (entries.length === 0) throw codedError('ERR_BAD_PARAMS', 'no meta to vote on');
  const awaiting = new Set(awaited);
  const groups = layoutGroups(entries);
  let winner = /** @type {typeof entries} */ (groups.values().next().value);
  for (const g of groups.values()) if (g.length > winner.length) winner = g;
  const meta = winner[0].meta;
  /** why nothing can be delivered, once that is known */
  /** @type {string | null} */
  let unresolved = 2 * winner.length > entries.length ? null : `the proxies' metas give ${groups.size} layouts and no strict majority backs one`;
  /** @type {Verdict[]} */
  const excluded = [];
  for (const e of unresolved ? [] : entries) {
    if (winner.includes(e)) continue;
    const f = layoutDifference(e.meta, meta);
    excluded.push({ source: e.source, code: 'ERR_META_MISMATCH', message: `meta disagrees with the majority on ${f}: ${f && e.meta[f]} vs ${f && meta[f]}` });
  }
  const minContradicting = meta.mode === 'coded' ? MIN_CONTRADICTING_PACKETS : 1;
  let singleVoter = winner.length < 2; // some accepted value rested on one proxy

  const E = CHECKSUM_ENTRY_BYTES;
  const units = meta.generationCount;
  /**
   * the proxies whose checksums count: the winning layout's, then admitted ones. Liars leave; a
   * proxy that dropped out (gone) keeps the checksums it gave. consistent: its own data matched
   * what it gave for a tied unit.
   */
  /** @type {{ source: number, table: Uint8Array, has: (unit: number) => boolean, gone: boolean, consistent: boolean }[]} */
  const voters = unresolved ? [] : winner.map((e) => ({ source: e.source, table: e.table, has: e.has ?? HAS_ALL, gone: false, consistent: false }));
  const agreed = new Uint8Array(units * E);
  const decided = new Uint8Array(units);
  /** unit → tied candidate values (every voter gave one), each with the sources that gave it */
  /** @type {Map<number, { value: Uint8Array, sources: number[] }[]>} */
  const ties = new Map();
  const liars = new Set();
  /** @type {Verdict[]} */
  const late = [];
  const same = (/** @type {Uint8Array} */ t, /** @type {number} */ u, /** @type {Uint8Array} */ v) => {
    for (let i = 0; i < E; i++) if (t[u * E + i] !== v[i]) return false;
    return true;
  };
  if (!unresolved) for (let u = 0; u < units; u++) decide(u);
  excluded.push(...late.splice(0));

  /**
   * Decide unit u if its votes allow: a strict majority of its voters (those that gave it, and
   * those still here that may). When every one of them gave it, none has a strict majority and no
   * meta is awaited, it is a tie, left to the data (judge).
   * @param {number} u
   */
  function decide(u) {
    if (decided[u]) return;
    /** @type {{ value: Uint8Array, sources: number[] }[]} */
    const cands = [];
    let given = 0;
    let counted = 0;
    for (const v of voters) {
      if (!v.has(u)) {
        if (!v.gone) counted++;
        continue;
      }
      given++;
      counted++;
      const value = v.table.subarray(u * E, u * E + E);
      const c = cands.find((x) => same(x.value, 0, value));
      if (c) c.sources.push(v.source);
      else cands.push({ value, sources: [v.source] });
    }
    ties.delete(u);
    if (given === 0) return;
    const best = cands.reduce((a, b) => (b.sources.length > a.sources.length ? b : a));
    if (2 * best.sources.length <= counted) {
      if (given === counted && awaiting.size === 0) ties.set(u, cands);
      return;
    }
    accept(u, best.value);
    if (best.sources.length < 2) singleVoter = true;
    for (const c of cands) if (c !== best) for (const s of c.sources) addLiar(s, u, 'disagrees with the majority');
  }

  /**
   * Is a tied unit beyond the data's reach? A value is backed when a proxy that gave it is one
   * whose own data matched it, or one that left: no data can show that proxy wrong. One value wins
   * a tie only when the proxies of every other one are shown wrong, so two backed values never can.
   */
  function checkStuck() {
    if (unresolved) return;
    const backed = (/** @type {number} */ s) => {
      const v = voters.find((x) => x.source === s);
      return !v || v.gone || v.consistent;
    };
    for (const [u, cands] of ties) {
      if (cands.filter((c) => c.sources.some(backed)).length >= 2) {
        unresolved = `the proxies' checksums of unit ${u} disagree, two or more of them backed by their proxies' own data (or by a proxy that left), and no strict majority backs one`;
        return;
      }
    }
  }

  /** @param {number} u @param {Uint8Array} value */
  function accept(u, value) {
    agreed.set(value, u * E);
    decided[u] = 1;
    ties.delete(u);
  }

  /** Units a voter leaving may decide: every open one. */
  function decideOpen() {
    for (let u = 0; u < units; u++) if (!decided[u]) decide(u);
  }

  /** @param {number} source @param {number} u @param {string} why */
  function addLiar(source, u, why) {
    if (liars.has(source)) return;
    liars.add(source);
    late.push({ source, code: 'ERR_INTEGRITY', message: `meta checksum of unit ${u} ${why}` });
    leave(source);
  }

  /** A liar leaves the vote, its checksums with it. @param {number} source */
  function leave(source) {
    const i = voters.findIndex((v) => v.source === source);
    if (i < 0) return;
    voters.splice(i, 1);
    decideOpen(); // fewer voters: the others may now be a majority
    checkStuck();
  }

  /** A proxy dropped out for another reason: the checksums it gave still count, the ones it did not are no longer awaited. @param {number} source */
  function goneAway(source) {
    if (awaiting.delete(source)) return tiesNow();
    const v = voters.find((x) => x.source === source);
    if (!v || v.gone) return;
    v.gone = true;
    decideOpen();
    checkStuck();
  }

  /** The last awaited meta came or will not: the units no majority decided are ties now. */
  function tiesNow() {
    if (awaiting.size > 0 || unresolved) return;
    decideOpen();
    checkStuck();
  }

  /**
   * Unit's data against its voted checksum: true, false, or undefined while the unit is open. A
   * tie is settled only by a proxy's own packets contradicting the value it gave (it is named);
   * data that shows no such thing answers null: not taken, nobody blamed.
   * @param {number} unit @param {Uint8Array | null} bytes  the data (hashed only when the vote can use it)
   * @param {Uint8Array | null} checksum  its checksum, when taken already (off the thread)
   * @param {Contributors | undefined} contributors  whose packets the data was built from
   * @returns {boolean | null | undefined}
   */
  function judge(unit, bytes, checksum, contributors) {
    if (!Number.isInteger(unit) || unit < 0 || unit >= units) return false;
    const hash = () => checksum ?? checksumOf(/** @type {Uint8Array} */ (bytes)); // only when the vote can use it
    if (decided[unit]) return same(agreed, unit, hash());
    const cands = ties.get(unit);
    if (!cands) return unresolved ? null : undefined; // not decided yet: more checksums are on their way
    const h = hash();
    const match = cands.find((c) => same(c.value, 0, h));
    if (!match) return false;
    const packetsOf = (/** @type {number} */ s) => (contributors && s < contributors.length ? contributors[s] : 0);
    for (const c of cands) if (c !== match) for (const s of c.sources) if (packetsOf(s) >= minContradicting) addLiar(s, unit, 'was contradicted by its own packets');
    if (decided[unit]) return same(agreed, unit, h);
    // nothing shown against the others: the proxies behind this data are consistent, which may leave no way forward
    for (const s of match.sources) {
      const v = voters.find((x) => x.source === s);
      if (v && packetsOf(s) > 0) v.consistent = true;
    }
    checkStuck();
    return null;
  }

  return {
    meta,
    excluded,
    verify: (unit, bytes, contributors) => judge(unit, bytes, null, contributors),
    /**
     * verify() for a unit whose checksum was taken already (off the thread).
     * @param {number} unit @param {Uint8Array} checksum @param {Contributors} [contributors]
     */
    verifyChecksum: (unit, checksum, contributors) => judge(unit, null, checksum, contributors),
    /** Why no data can be delivered (a layout or a unit no strict majority backs, which the data cannot settle), or null. */
    unresolved: () => unresolved,
    /** Every accepted layout and checksum had at least two proxies behind it. */
    verified: () => !unresolved && !singleVoter,
    pollLiars: () => (late.length === 0 ? NO_VERDICTS : late.splice(0)), // polled after every packet: no array when none
    /**
     * A proxy whose meta came after the vote: it must match the layout and every decided
     * checksum; on the units still open or tied it is one more vote (a tie it breaks is settled,
     * and names who gave the other value, before any data could).
     */
    admit(e) {
      awaiting.delete(e.source);
      const f = layoutDifference(e.meta, meta);
      if (f) {
        tiesNow();
        return { source: e.source, code: 'ERR_META_MISMATCH', message: `meta disagrees with the majority on ${f}: ${e.meta[f]} vs ${meta[f]}` };
      }
      const has = e.has ?? HAS_ALL;
      for (let u = 0; u < units; u++) {
        if (decided[u] && has(u) && !same(agreed, u, e.table.subarray(u * E, u * E + E))) {
          liars.add(e.source);
          tiesNow();
          return { source: e.source, code: 'ERR_INTEGRITY', message: `meta checksum of unit ${u} disagrees with the majority` };
        }
      }
      voters.push({ source: e.source, table: e.table, has, gone: false, consistent: false });
      decideOpen();
      if (awaiting.size === 0) checkStuck();
      return null;
    },
    /**
     * Proxy `source` sent the checksums of units [from, to) (a streamed meta's slice, already in its
     * table): each must match a decided one, or is one more vote.
     * @param {number} source @param {number} from @param {number} to
     */
    heard(source, from, to) {
      const v = voters.find((x) => x.source === source);
      if (!v) return;
      for (let u = Math.max(0, from); u < Math.min(units, to); u++) {
        if (!decided[u]) decide(u);
        else if (!same(agreed, u, v.table.subarray(u * E, u * E + E))) return addLiar(source, u, 'disagrees with the majority');
      }
    },
    /**
     * Proxy `source` takes no further part (dropped for a reason other than its checksums): what it
     * gave still counts; units it did not give are decided without it. An awaited one's meta is
     * awaited no more.
     * @param {number} source
     */
    drop: goneAway,
    /** Whether a meta is still awaited (a tie may wait for it). */
    awaits: () => awaiting.size > 0,
    /** Wait no longer for the awaited metas: the units no majority decided are ties now. */
    stopAwaiting() {
      awaiting.clear();
      tiesNow();
    },
    /** @param {number} unit */
    decided: (unit) => decided[unit] === 1,
    /** The voters that have not given `unit`'s checksum yet. @param {number} unit */
    lacking: (unit) => voters.filter((v) => !v.gone && !v.has(unit)).map((v) => v.source),
  };
}

/**
 * The metas grouped by layout, groups in the order of their first meta's arrival.
 * @template {{ meta: any }} T
 * @param {T[]} entries
 * @returns {Map<string, T[]>}
 */
function layoutGroups(entries) {
  /** @type {Map<string, T[]>} */
  const groups = new Map();
  for (const e of entries) {
    const k = layoutKey(e.meta);
    const g = groups.get(k);
    if (g) g.push(e);
    else groups.set(k, [e]);
  }
  return groups;
}

/**
 * How many of the metas give the most common layout.
 * @param {{ meta: any }[]} entries
 */
export function largestLayoutGroup(entries) {
  let top = 0;
  for (const g of layoutGroups(entries).values()) top = Math.max(top, g.length);
  return top;
}

/**
 * Whether the vote is already decided: more than half of `voters` (the sources whose meta may
 * still count: those that sent one and those that still may) sent the same meta, layout and every
 * checksum (a streamed meta: the same layout; its checksums are voted unit by unit as they come).
 * No later meta can outvote them, and each is checked against them when it comes (admit).
 * @param {{ meta: any, table: Uint8Array }[]} entries  metas so far (streamed: their layouts)
 * @param {number} voters
 */
export function majorityAgrees(entries, voters) {
  for (let i = 0; 2 * (entries.length - i) > voters; i++) {
    let agreeing = 0;
    for (const e of entries) if (sameMeta(entries[i], e)) agreeing++;
    if (2 * agreeing > voters) return true;
  }
  return false;
}

/** Same layout and same checksum table, byte for byte. @param {{ meta: any, table: Uint8Array }} a @param {{ meta: any, table: Uint8Array }} b */
function sameMeta(a, b) {
  if (a === b) return true;
  if (layoutDifference(a.meta, b.meta) || a.table.length !== b.table.length) return false;
  if (a.meta.streamed || b.meta.streamed) return true; // the same layout: a streamed meta's checksums are voted as they come
  return sameBytes(a.table, b.table);
}

/**
 * Collects one proxy's meta messages (the checksum table comes in slices) until complete. A
 * streamed meta is complete, for the vote, with its layout: its checksums come as the proxy gets
 * the object's bytes, and each slice is voted on as it comes (createMetaVote's heard).
 * @param {any} first the first meta message received
 */
export function createMetaAssembler(first) {
  const units = first.generationCount;
  const table = new Uint8Array(units * CHECKSUM_ENTRY_BYTES);
  const have = new Uint8Array(units);
  const streamed = first.streamed === true;
  let missing = units;
  let lowestMissing = 0; // every unit below it is had
  let highest = 0; // every unit had is below it
  return {
    meta: first,
    table,
    streamed,
    /** @param {number} u */
    has: (u) => have[u] === 1,
    /** @param {any} m a meta message of the same proxy @returns {string | null} why it was refused */
    add(m) {
      const f = layoutDifference(m, first);
      if (f) return `meta slices disagree on ${f}`;
      if ((m.streamed === true) !== streamed) return 'meta slices disagree on streaming';
      const cs = m.checksums;
      if (!cs) return units === 0 || streamed ? null : 'meta without checksums';
      const count = cs.values.length / CHECKSUM_ENTRY_BYTES;
      if (cs.entryBytes !== CHECKSUM_ENTRY_BYTES || cs.first + count > units) return 'checksum slice outside the object';
      for (let i = 0; i < count; i++) {
        const u = cs.first + i;
        if (have[u]) continue;
        have[u] = 1;
        missing--;
        table.set(cs.values.subarray(i * CHECKSUM_ENTRY_BYTES, (i + 1) * CHECKSUM_ENTRY_BYTES), u * CHECKSUM_ENTRY_BYTES);
      }
      highest = Math.max(highest, cs.first + count);
      while (lowestMissing < units && have[lowestMissing]) lowestMissing++;
      return null;
    },
    get complete() { return streamed || missing === 0; },
    /** A unit below the highest one had is missing: its slice was lost (a proxy sends slices in order). */
    get gap() { return lowestMissing < highest; },
  };
}
