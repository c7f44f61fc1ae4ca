// How a download reaches its proxies: attaches each proxy's Origo ticket to the requests that need
// one (`?ticket=` on GET /fetch, `ticket` in the POST /rtc/offer body); when a proxy refuses the
// ticket (expired, or one a kept listing held), asks Origo once for a fresh one and retries; and
// when a proxy refuses with 503 ERR_PROXY_BUSY, moves that source to a spare proxy from Origo's
// list and retries there. It wraps `fetch`, so every transfer mode gets all this without knowing.
import { codedError } from '@mutp/common/errors';
import { proxyBase as base, proxyErrorFromResponse } from './http/proxy-fetch.js';

/**
 * @typedef {{ id: string, url: string, ticket?: string | null, uploadRateBps?: number | null }} TicketedProxy
 */

/** A proxy's refusals of a ticket that a fresh one from Origo can mend (401 and 403, docs/origo-api.md "Tickets"). */
const TICKET_REFUSALS = new Set(['ERR_TICKET_MISSING', 'ERR_TICKET_EXPIRED', 'ERR_TICKET_BAD', 'ERR_TICKET_WRONG_PROXY']);

/**
 * @param {object} o
 * @param {TicketedProxy[]} o.proxies     the proxies the download starts with (source i = proxies[i])
 * @param {TicketedProxy[]} [o.spares]    proxies to move a refusing source to, used in order
 * @param {typeof fetch} o.fetch
 * @param {{ warn: (...a: unknown[]) => void }} o.logger
 * @param {((ids: string[]) => Promise<Map<string, string>>) | null} [o.renewTickets]  fresh tickets from Origo (proxy id →
 *   ticket), asked at most once per proxy; null: a refused ticket fails that request
 */
export function createProxyAccess({ proxies, spares = [], fetch, logger, renewTickets = null }) {
  const sources = proxies.map((p) => ({ original: p, current: p }));
  const spareQueue = [...spares];
  /** @type {{ from: string, to: string, code: string }[]} */
  const moves = [];
  /** @type {Map<string, Promise<string | null>>} proxy id → its fresh ticket (null: Origo gave none) */
  const renewals = new Map();

  /**
   * The ticket to retry with after `res` (a 401 or 403 from `target`), or null: not a ticket refusal,
   * no fresh ticket, or this request had the fresh one already.
   * @param {TicketedProxy} target @param {Response} res
   */
  async function freshTicket(target, res) {
    if (!renewTickets) return null;
    const { code } = await proxyErrorFromResponse(res.clone(), target.url);
    if (!TICKET_REFUSALS.has(code)) return null;
    let renewal = renewals.get(target.id);
    if (!renewal) {
      logger.warn(`proxy ${target.id} refused its ticket (${code}); asking Origo for a fresh one`);
      renewal = renewTickets([target.id]).then((m) => m.get(target.id) ?? null, () => null);
      renewals.set(target.id, renewal);
    }
    const ticket = await renewal;
    return ticket && ticket !== target.ticket ? ticket : null;
  }

  /**
   * @param {RequestInfo | URL} input
   * @param {RequestInit} [init]
   * @returns {Promise<Response>}
   */
  async function proxyFetch(input, init = {}) {
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const source = sources.find((s) => href.startsWith(base(s.original.url)) || href.startsWith(base(s.current.url)));
    if (!source) return fetch(input, init);
    const rest = href.startsWith(base(source.current.url)) ? href.slice(base(source.current.url).length) : href.slice(base(source.original.url).length);
    for (;;) {
      const target = source.current;
      const res = await fetch(...withTicket(base(target.url) + rest, init, target.ticket));
      if (res.status === 401 || res.status === 403) {
        const ticket = await freshTicket(target, res);
        if (!ticket) return res;
        await res.body?.cancel().catch(() => {});
        if (source.current.id === target.id) source.current = { ...source.current, ticket };
        continue;
      }
      if (res.status !== 503) return res;
      const { code } = await proxyErrorFromResponse(res.clone(), target.url); // the proxy's error body, read with its bound
      if (code !== 'ERR_PROXY_BUSY' || spareQueue.length === 0) return res;
      const spare = /** @type {TicketedProxy} */ (spareQueue.shift());
      logger.warn(`proxy ${target.id} is busy; using ${spare.id} instead`);
      moves.push({ from: target.id, to: spare.id, code });
      await res.body?.cancel().catch(() => {});
      source.current = spare;
    }
  }

  return {
    fetch: /** @type {typeof fetch} */ (proxyFetch),
    /** The proxies actually used, source by source (a moved source names its replacement, and its rate). */
    used: () => sources.map((s) => ({ id: s.current.id, url: s.current.url, uploadRateBps: s.current.uploadRateBps ?? null })),
    /** Every move so far: { from, to, code }. */
    moves: () => [...moves],
    /**
     * Rewrites per-proxy stats made under the original ids to the proxies that served them.
     * @template {{ proxyId: string }} T @param {T[] | undefined} perProxy @returns {T[] | undefined}
     */
    relabel(perProxy) {
      if (!Array.isArray(perProxy)) return perProxy;
      return perProxy.map((p, i) => (sources[i] && p.proxyId === sources[i].original.id ? { ...p, proxyId: sources[i].current.id } : p));
    },
  };
}

/**
 * @param {string} href @param {RequestInit} init @param {string | null | undefined} ticket
 * @returns {[string, RequestInit]}
 */
function withTicket(href, init, ticket) {
  if (!ticket) return [href, init];
  const u = new URL(href);
  const method = (init.method ?? 'GET').toUpperCase();
  if (method === 'POST' && u.pathname.endsWith('/rtc/offer') && typeof init.body === 'string') {
    let body;
    try {
      body = JSON.parse(init.body);
    } catch {
      throw codedError('ERR_BAD_OPTION', 'the offer body is not JSON');
    }
    return [href, { ...init, body: JSON.stringify({ ...body, ticket }) }];
  }
  if (method === 'GET' || method === 'HEAD') {
    u.searchParams.set('ticket', ticket);
    return [u.href, init];
  }
  return [href, init];
}
