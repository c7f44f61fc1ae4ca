// The fleet made ready before the page asks for segments: Origo's proxy list with tickets, and
// WebRTC connections to the proxies the next MUTP downloads will use (kept in ProxyClientLib's
// pool). While the connections open, MUTP downloads go over HTTP, so no segment waits on a
// connect; when every connection fails with a WebRTC code, the WebRTC breaker opens before any
// segment tried it. When that breaker's backoff has passed, the warm-up probes WebRTC again
// (the caller starts it), so no segment waits on a connect that failed before. No browser API here.

export const PRECONNECT_PER_PROXY = 2; // a video and an audio segment at once, each on its own connection (the second round, after one each)
export const WARMING = 'ERR_RTC_WARMING'; // why a MUTP download ran over HTTP: its connections were still opening
export const RTC_BUSY = 'ERR_RTC_BUSY'; // why a MUTP download ran over HTTP: every kept connection to its proxies carried another download
const MUTP_MODES = ['coded', 'uncoded'];

/**
 * @typedef {{id: string, url: string, ticket: string | null}} ListedProxy
 * @typedef {{id: string, ok: boolean, code: string | null}} ConnectOutcome
 */

/**
 * @param {object} o
 * @param {() => {list: (where: object) => Promise<ListedProxy[]>} | null | undefined} o.proxies  the cached list
 * @param {() => {preconnect?: (list: ListedProxy[], o: {perProxy: number}) => Promise<ConnectOutcome[]>}} o.client
 * @param {ReturnType<typeof import('./breaker.js').createBreakers>} o.breakers
 * @param {() => number} o.now
 * @param {{warn: (...a: unknown[]) => void}} o.logger
 */
export function createWarmUp({ proxies, client, breakers, now, logger }) {
  /** @type {Promise<void> | null} */
  let running = null;
  let done = false; // the first warm-up finished
  /** @type {{at: number, outcomes: ConnectOutcome[]} | null} */
  let last = null;

  /**
   * Start the warm-up (once; again after it finished, to refresh the connections).
   * @param {import('../shared/settings.js').Settings} settings
   * @param {object} where  the proximity query
   * @param {number} count  proxies to connect to (the largest N a download may use)
   */
  function start(settings, where, count) {
    const cache = proxies();
    if (running || !settings.enabled || !cache) return running;
    const mayUseRtc = settings.mode === 'random' ? settings.randomModes.some((m) => MUTP_MODES.includes(m)) : MUTP_MODES.includes(settings.mode);
    /** @returns {Promise<boolean>} a connect round ran */
    const round = async () => {
      let list;
      try {
        list = await cache.list(where);
      } catch (err) {
        logger.warn(`warm-up: no proxy list (${/** @type {any} */ (err)?.code ?? err})`);
        return false;
      }
      const c = client();
      if (!mayUseRtc || !breakers.allows('rtc', now()) || typeof c.preconnect !== 'function') return false;
      const usable = list.filter((p) => breakers.allows(`proxy:${p.id}`, now())).slice(0, count);
      if (usable.length === 0) return false;
      // one connection per proxy first: the first downloads need no more, and fewer connects at once open sooner
      const outcomes = await c.preconnect(usable, { perProxy: 1 });
      last = { at: now(), outcomes };
      const failed = outcomes.filter((o) => !o.ok);
      if (failed.length > 0 && failed.length === outcomes.length && failed.every((o) => /^ERR_RTC_/.test(String(o.code)))) {
        breakers.fail('rtc', String(failed[0].code), now()); // the transport cannot work here, whatever the proxy
        logger.warn(`warm-up: WebRTC cannot connect (${failed[0].code}); MUTP downloads go over HTTP for a while`);
      } else if (failed.length < outcomes.length) {
        breakers.succeed('rtc');
        const up = usable.filter((p) => outcomes.some((o) => o.ok && o.id === p.id));
        c.preconnect(up, { perProxy: PRECONNECT_PER_PROXY }); // never rejects; the pool keeps what opens
      } else breakers.succeed('rtc'); // failures that are not WebRTC's: the proxies' breakers judge them when downloads meet them
      return true;
    };
    running = round().then((ran) => {
      // a probe that could not run proves nothing: the next MUTP segment tries WebRTC itself
      if (!ran && breakers.halfOpen('rtc', now())) breakers.succeed('rtc');
    }).finally(() => {
      running = null;
      done = true;
    });
    return running;
  }

  return {
    start,
    /** A warm-up is connecting: a MUTP download now would connect on its own. */
    busy: () => running !== null,
    started: () => running !== null || done,
    last: () => last,
  };
}
