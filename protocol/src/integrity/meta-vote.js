// Which proxy's meta to believe (a polluting proxy may lie in its meta). Every proxy sends its own meta and
// checksum table; the client trusts what most of them say:
// - layout (mode, size, payload size, packet/generation counts): the layout most proxies sent
//   wins; on a tie, the one that arrived first. Proxies with another layout are outvoted.
// - each unit's checksum: the value most proxies (of the winning layout) gave. Proxies that
//   gave another value are liars. On a tie (e.g. two proxies, one lying) the data decides:
//   the unit is accepted if it matches one of the tied values, and those who gave another
//   value for it are reported as liars then (pollLiars).
import { CHECKSUM_ENTRY_BYTES, checksumOf } from './checksums.js';
import { codedError } from '@mutp/common/errors';

/** Meta fields that define the object's layout: all proxies must agree on them. */
export const LAYOUT_FIELDS = /** @type {const} */ (['mode', 'totalSize', 'payloadSize', 'packetCount', 'generationSize', 'generationCount']);

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
 * @param {{ source: number, meta: any, table: Uint8Array }[]} entries  complete metas, in arrival order
 * @returns {{ meta: any, excluded: Verdict[], verify: (unit: number, bytes: Uint8Array) => boolean,
 *   pollLiars: () => Verdict[], admit: (entry: { source: number, meta: any, table: Uint8Array }) => Verdict | null }}
 */
export function createMetaVote(entries) {
  if (entries.length === 0) throw codedError('ERR_BAD_PARAMS', 'no meta to vote on');
  const key = (/** @type {any} */ m) => LAYOUT_FIELDS.map((f) => m[f]).join('/');
  /** @type {Map<string, typeof entries>} */
  const groups = new Map();
  for (const e of entries) {
    const k = key(e.meta);
    if (!groups.has(k)) groups.set(k, []);
    /** @type {typeof entries} */ (groups.get(k)).push(e);
  }
  let winner = /** @type {typeof entries} */ (groups.values().next().value); // first arrival wins ties
  for (const g of groups.values()) if (g.length > winner.length) winner = g;
  const meta = winner[0].meta;
  /** @type {Verdict[]} */
  const excluded = [];
  for (const e of entries) {
    if (winner.includes(e)) continue;
    const f = layoutDifference(e.meta, meta);
    excluded.push({ source: e.source, code: 'ERR_META_MISMATCH', message: `meta disagrees with the majority on ${f}: ${f && e.meta[f]} vs ${f && meta[f]}` });
  }

  const E = CHECKSUM_ENTRY_BYTES;
  const units = winner[0].table.length / E;
  const agreed = winner[0].table.slice();
  /** unit → tied candidate values, each with the sources that gave it */
  /** @type {Map<number, { value: Uint8Array, sources: number[] }[]>} */
  const ties = new Map();
  const liars = new Set();
  /** @type {Verdict[]} */
  const late = [];
  const same = (/** @type {Uint8Array} */ t, /** @type {number} */ u, /** @type {Uint8Array} */ v) => {
    for (let i = 0; i < E; i++) if (t[u * E + i] !== v[i]) return false;
    return true;
  };
  for (let u = 0; u < units && winner.length > 1; u++) {
    const first = winner[0].table.subarray(u * E, u * E + E);
    if (winner.every((e) => same(e.table, u, first))) continue;
    /** @type {{ value: Uint8Array, sources: number[] }[]} */
    const cands = [];
    for (const e of winner) addVote(cands, e, u);
    if (!settle(u, cands)) ties.set(u, cands);
  }
  excluded.push(...late.splice(0));

  /** One more source's value for unit u. @param {{ value: Uint8Array, sources: number[] }[]} cands @param {{ source: number, table: Uint8Array }} e @param {number} u */
  function addVote(cands, e, u) {
    const v = e.table.subarray(u * E, u * E + E);
    const c = cands.find((x) => same(x.value, 0, v));
    if (c) c.sources.push(e.source);
    else cands.push({ value: v, sources: [e.source] });
  }

  /**
   * Settle unit u if one value has the most sources: it is agreed, the others' sources are liars.
   * @param {number} u @param {{ value: Uint8Array, sources: number[] }[]} cands @returns {boolean} settled
   */
  function settle(u, cands) {
    const top = Math.max(...cands.map((c) => c.sources.length));
    const best = cands.filter((c) => c.sources.length === top);
    if (best.length !== 1) return false;
    agreed.set(best[0].value, u * E);
    for (const c of cands) if (c !== best[0]) for (const s of c.sources) addLiar(s, u, 'disagrees with the majority');
    return true;
  }

  /** @param {number} source @param {number} u @param {string} why */
  function addLiar(source, u, why) {
    if (liars.has(source)) return;
    liars.add(source);
    late.push({ source, code: 'ERR_INTEGRITY', message: `meta checksum of unit ${u} ${why}` });
  }

  return {
    meta,
    excluded,
    verify(unit, bytes) {
      if (!Number.isInteger(unit) || unit < 0 || unit >= units) return false;
      const cands = ties.get(unit);
      if (!cands) return same(agreed, unit, checksumOf(bytes));
      const h = checksumOf(bytes);
      const match = cands.find((c) => same(c.value, 0, h));
      if (!match) return false;
      for (const c of cands) if (c !== match) for (const s of c.sources) addLiar(s, unit, 'does not match the verified data');
      ties.delete(unit);
      agreed.set(match.value, unit * E);
      return true;
    },
    pollLiars: () => (late.length === 0 ? NO_VERDICTS : late.splice(0)), // polled after every packet: no array when none
    /**
     * A proxy whose meta completed after the vote: it must match the layout and every settled
     * checksum. On a unit still tied it is one more vote: a value it joins now has the most
     * sources, so it settles the unit (and names who gave the other) before any data could.
     */
    admit(e) {
      const f = layoutDifference(e.meta, meta);
      if (f) return { source: e.source, code: 'ERR_META_MISMATCH', message: `meta disagrees with the majority on ${f}: ${e.meta[f]} vs ${meta[f]}` };
      for (let u = 0; u < units; u++) {
        if (ties.has(u)) continue;
        if (!same(agreed, u, e.table.subarray(u * E, u * E + E))) {
          liars.add(e.source);
          return { source: e.source, code: 'ERR_INTEGRITY', message: `meta checksum of unit ${u} disagrees with the majority` };
        }
      }
      for (const [u, cands] of ties) {
        addVote(cands, e, u);
        if (settle(u, cands)) ties.delete(u);
      }
      return null;
    },
  };
}

/**
 * Whether the vote is already decided: more than half of `voters` (the sources whose meta may
 * still count: those that sent one and those that still may) sent the same meta, layout and every
 * checksum. No later meta can outvote them, and each is checked against them when it comes (admit).
 * @param {{ meta: any, table: Uint8Array }[]} entries  complete metas so far
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
  for (let i = 0; i < a.table.length; i++) if (a.table[i] !== b.table[i]) return false;
  return true;
}

/**
 * Collects one proxy's meta messages (the checksum table comes in slices) until complete.
 * @param {any} first the first meta message received
 */
export function createMetaAssembler(first) {
  const units = first.generationCount;
  const table = new Uint8Array(units * CHECKSUM_ENTRY_BYTES);
  const have = new Uint8Array(units);
  let missing = units;
  return {
    meta: first,
    table,
    /** @param {any} m a meta message of the same proxy @returns {string | null} why it was refused */
    add(m) {
      const f = layoutDifference(m, first);
      if (f) return `meta slices disagree on ${f}`;
      const cs = m.checksums;
      if (!cs) return units === 0 ? null : 'meta without checksums';
      const count = cs.values.length / CHECKSUM_ENTRY_BYTES;
      if (cs.entryBytes !== CHECKSUM_ENTRY_BYTES || cs.first + count > units) return 'checksum slice outside the object';
      for (let i = 0; i < count; i++) {
        const u = cs.first + i;
        if (have[u]) continue;
        have[u] = 1;
        missing--;
        table.set(cs.values.subarray(i * CHECKSUM_ENTRY_BYTES, (i + 1) * CHECKSUM_ENTRY_BYTES), u * CHECKSUM_ENTRY_BYTES);
      }
      return null;
    },
    get complete() { return missing === 0; },
  };
}
