// Origo's proxy list with its tickets, kept for a while: a segment then starts with no Origo
// round trip. Refreshed before the tickets expire, and at once when a proxy in it fails. Shared
// with the browser's other pages through session storage once a download through it succeeded
// (a list of proxies that just died is not handed on): the next page load starts with it.

export const LIST_TTL_MS = 60_000; // half of Origo's 120 s ticket lifetime: a cached ticket is never stale
export const LIST_SIZE = 12; // enough for N = 6 with spares for proxies the breakers skip
const MAX_FIELD_CHARS = 2048; // a proxy URL or ticket; anything longer is not ours

/** @typedef {{id: string, url: string, ticket: string | null}} ListedProxy */

/**
 * A shared entry as stored, checked: storage outlives versions of this code.
 * @param {unknown} v @param {string} origo @param {string} key @param {number} now
 * @returns {{at: number, list: ListedProxy[]} | null}
 */
function sharedList(v, origo, key, now) {
  const e = /** @type {Record<string, any>} */ (v ?? {});
  if (e.origo !== origo || e.key !== key || !Number.isFinite(e.at) || now - e.at > LIST_TTL_MS || now < e.at || !Array.isArray(e.list) || e.list.length > LIST_SIZE) return null;
  const str = (/** @type {unknown} */ x) => typeof x === 'string' && x.length > 0 && x.length <= MAX_FIELD_CHARS;
  if (!e.list.every((p) => p && str(p.id) && str(p.url) && (p.ticket === null || str(p.ticket)))) return null;
  return { at: e.at, list: e.list.map((p) => ({ id: p.id, url: p.url, ticket: p.ticket })) };
}

/**
 * @param {object} o
 * @param {() => {proxies: (q: {n: number, lat?: number, lon?: number}) => Promise<ListedProxy[]>}} o.client
 * @param {() => number} o.now  wall-clock ms (entries are shared between pages)
 * @param {() => string} [o.origo]  the Origo URL in use: a shared list from another Origo is not taken
 * @param {{get: () => Promise<unknown>, set: (v: object | null) => Promise<void>} | null} [o.shared]  session storage
 */
export function createProxyCache({ client, now, origo = () => '', shared = null }) {
  /** @type {{at: number, list: Promise<ListedProxy[]>, key: string, origo: string, shared: boolean} | null} */
  let cached = null;

  /** @param {string} key @param {{lat?: number, lon?: number}} where @returns {Promise<{at: number, list: ListedProxy[], shared: boolean}>} at: when Origo made it; shared: taken from another page */
  async function lookUp(key, where) {
    const from = origo();
    const kept = shared ? sharedList(await shared.get().catch(() => null), from, key, now()) : null;
    if (kept) return { ...kept, shared: true };
    const at = now();
    const list = (await client().proxies({ n: LIST_SIZE, ...where })).map((p) => ({ id: p.id, url: p.url, ticket: p.ticket ?? null }));
    return { at, list, shared: false };
  }

  /** @param {{lat?: number, lon?: number}} where */
  function list(where) {
    const key = `${where.lat ?? ''},${where.lon ?? ''}`;
    if (!cached || cached.key !== key || now() - cached.at > LIST_TTL_MS) {
      /** @type {NonNullable<typeof cached>} */
      const entry = { at: now(), key, origo: origo(), shared: false, list: Promise.resolve([]) };
      entry.list = lookUp(key, where).then((got) => {
        entry.at = got.at; // a list another page fetched ages from then: its tickets do
        entry.shared = got.shared;
        return got.list;
      });
      entry.list.catch(() => { if (cached === entry) cached = null; }); // a failed lookup is not kept
      cached = entry;
    }
    return cached.list;
  }

  /** A download through the current list succeeded: hand it on to the next page loads. */
  async function worked() {
    const entry = cached;
    if (!shared || !entry || entry.shared) return;
    entry.shared = true;
    const list = await entry.list.catch(() => null);
    if (list && cached === entry) await shared.set({ origo: entry.origo, key: entry.key, at: entry.at, list }).catch(() => {});
  }

  return {
    list,
    worked,
    /** Forget the list (a proxy in it failed, the Origo URL changed), here and for the other pages. */
    invalidate: () => {
      cached = null;
      shared?.set(null).catch(() => {});
    },
  };
}
