// After a campaign: what each MUTP download's proxies said of it in their own records, which the
// client could not see when it built its record: each source's in-flight holds (inflightHeldMs),
// and so its time breakdown recomputed with them, and each source's start (proxyStartMs, for
// sim:compare). Proxy and client records are joined by proxy, source index, mode and time: on
// the testbed a proxy serves one download at a time.
import { computeTimeBreakdown } from '@mutp/protocol';
import { openDuckDbStore } from '@mutp/origo';

/** A proxy starts serving after the client's request left; this much clock slack either way (ms): one machine, one clock. */
const JOIN_SLACK_MS = 1000;
/** Page size when reading every proxy record (the store's list limit). */
const PAGE_ROWS = 10_000;
/** Origo's process just died: its file lock can outlive it for a moment. */
const OPEN_ATTEMPTS = 10;
const OPEN_RETRY_MS = 300;

/**
 * A source's start as its proxy recorded it (ms): request → its first datagram (firstSendMs);
 * a record from before that field gives its origin fetch (serverFetchMs; 0 from the cache). Null: no record.
 * @param {any} p a proxy record, or undefined
 * @returns {number | null}
 */
export function proxyStartMs(p) {
  if (!p) return null;
  if (typeof p.firstSendMs === 'number') return p.firstSendMs;
  return p.fromCache === false && typeof p.serverFetchMs === 'number' ? p.serverFetchMs : 0;
}

/**
 * @param {import('@mutp/origo').openDuckDbStore extends (...a: any) => Promise<infer S> ? S : never} store
 * @param {{recordId: string | null, mode: string, ok: boolean, timeBreakdown?: unknown, proxyStartMs?: (number | null)[]}[]} rows  changed in place
 * @returns {Promise<{joined: number, sources: number, heldFound: number, startFound: number}>}
 */
export async function joinProxyRecords(store, rows) {
  /** @type {Map<string, any[]>} */
  const byProxy = new Map();
  for (let offset = 0; ; offset += PAGE_ROWS) {
    const page = await store.listProxyRecords({ limit: PAGE_ROWS, offset });
    for (const p of /** @type {any[]} */ (page)) {
      if (p.mode !== 'coded' && p.mode !== 'uncoded') continue;
      const list = byProxy.get(p.proxyId) ?? [];
      list.push({ ...p, t: Date.parse(p.startedAt) });
      byProxy.set(p.proxyId, list);
    }
    if (page.length < PAGE_ROWS) break;
  }
  let joined = 0;
  let sources = 0;
  let heldFound = 0;
  let startFound = 0;
  for (const row of rows) {
    if (!row.ok || !row.recordId || (row.mode !== 'coded' && row.mode !== 'uncoded')) continue;
    const rec = /** @type {any} */ (await store.getClientRecord(row.recordId));
    if (!rec?.packetLog) continue;
    const t0 = Date.parse(rec.startedAt);
    const own = rec.proxyIds.map((/** @type {string} */ id, /** @type {number} */ i) => {
      const cands = (byProxy.get(id) ?? []).filter((p) => p.sourceIndex === i && p.mode === rec.mode && p.t >= t0 - JOIN_SLACK_MS && p.t <= t0 + rec.durationMs + JOIN_SLACK_MS);
      cands.sort((a, b) => Math.abs(a.t - t0) - Math.abs(b.t - t0));
      return cands[0];
    });
    const held = own.map((/** @type {any} */ p) => p?.inflightHeldMs ?? null);
    sources += held.length;
    heldFound += held.filter((/** @type {number | null} */ h) => h !== null).length;
    row.timeBreakdown = computeTimeBreakdown(rec, held);
    row.proxyStartMs = own.map(proxyStartMs);
    startFound += row.proxyStartMs.filter((v) => v !== null).length;
    joined++;
  }
  return { joined, sources, heldFound, startFound };
}

/**
 * joinProxyRecords from Origo's database (closed by now).
 * @param {string} path @param {any[]} rows  changed in place @param {string} who  names the caller in its log lines
 */
export async function joinProxyRecordsFromStore(path, rows, who) {
  for (let i = 0; i < OPEN_ATTEMPTS; i++) {
    try {
      const store = await openDuckDbStore({ path });
      try {
        const r = await joinProxyRecords(store, rows);
        console.error(`${who}: joined from the proxies' records: in-flight holds of ${r.heldFound} and starts of ${r.startFound} of ${r.sources} sources in ${r.joined} MUTP downloads`);
        return r;
      } finally {
        await store.close();
      }
    } catch (err) {
      if (i === OPEN_ATTEMPTS - 1) console.error(`${who}: could not join the proxies' records: ${/** @type {Error} */ (err).message}`);
      else await new Promise((r) => setTimeout(r, OPEN_RETRY_MS));
    }
  }
  return null;
}
