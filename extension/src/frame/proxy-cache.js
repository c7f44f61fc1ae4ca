// Origo's proxy list with its tickets, kept for a while: a segment then starts with no Origo
// round trip. Refreshed before the tickets expire, and at once when a proxy in it fails.

export const LIST_TTL_MS = 60_000; // half of Origo's 120 s ticket lifetime: a cached ticket is never stale
export const LIST_SIZE = 12; // enough for N = 6 with spares for proxies the breakers skip

/**
 * @param {object} o
 * @param {() => {proxies: (q: {n: number, lat?: number, lon?: number}) => Promise<{id: string, url: string, ticket: string | null}[]>}} o.client
 * @param {() => number} o.now
 */
export function createProxyCache({ client, now }) {
  /** @type {{at: number, list: Promise<{id: string, url: string, ticket: string | null}[]>, key: string} | null} */
  let cached = null;

  /** @param {{lat?: number, lon?: number}} where */
  function list(where) {
    const key = `${where.lat ?? ''},${where.lon ?? ''}`;
    if (!cached || cached.key !== key || now() - cached.at > LIST_TTL_MS) {
      const entry = { at: now(), key, list: client().proxies({ n: LIST_SIZE, ...where }) };
      entry.list.catch(() => { if (cached === entry) cached = null; }); // a failed lookup is not kept
      cached = entry;
    }
    return cached.list;
  }

  return {
    list,
    /** Forget the list (a proxy in it failed, the Origo URL changed). */
    invalidate: () => { cached = null; },
  };
}
