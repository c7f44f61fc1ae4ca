// The fleet made ready before the page asks for segments: Origo's proxy list with tickets, an
// HTTP connection to each proxy the next downloads will use (the browser keeps it for their
// requests), and WebRTC connections to them for MUTP downloads (kept in ProxyClientLib's pool).
// While the connections open, MUTP downloads go over HTTP, so no segment waits on a
// connect; when every connection fails with a WebRTC code, the WebRTC breaker opens before any
// segment tried it. When that breaker's backoff has passed, the warm-up probes WebRTC again
// (the caller starts it), so no segment waits on a connect that failed before. The WebRTC
// connects wait for the page's start (startup gate, below). No browser API here.
import { HTTP_REWARM_MS } from '@mutp/proxyclientlib/limits';
import { MUTP_MODES } from '../shared/settings.js';

export const PRECONNECT_PER_PROXY = 2; // a video and an audio segment at once, each on its own connection (the second round, after one each)
export const WARMING = 'ERR_RTC_WARMING'; // why a MUTP download ran over HTTP: a proxy of it had no connection open yet (the warm-up waiting for the page's start, or connecting; or one being opened again)
export const RTC_BUSY = 'ERR_RTC_BUSY'; // why a MUTP download ran over HTTP: every kept connection to its proxies carried another download
/**
 * The startup gate: a warm-up's WebRTC connects wait for the page's start: its first media
 * element playing (the page says so), or this many fleet downloads ended (any outcome), or
 * RTC_CONNECT_WAIT_MAX_MS, whichever comes first. Opening connections costs ICE and DTLS
 * handshakes on the fleet host's thread, the browser's network thread and the proxies, and on a
 * first page load that competed with the player's own start; its first segments go over HTTP
 * meanwhile in any case, because the connections take longer to open than they take to arrive.
 * Chromium, loopback, first page loads in Coded MUTP, three runs of 8, 8 and 6 alternated pairs
 * per player (median paired differences), a gate of 4 downloads against none: dash.js −40, −56,
 * −19 ms; hls.js −102, −103, −7; Shaka −90, −88, +46; sooner in 41 of 66 pairs. Second loads
 * (connections kept): −45, −41 (dash.js), +13, +26 (hls.js), −33, −83 (Shaka). A DASH player's
 * 4th download is its last before the first frame (two init sections, two media segments), so
 * that gate opened in the tens of ms the player then needs for its first frame: the downloads
 * count only for a page whose playing the fleet does not hear.
 */
export const RTC_CONNECT_AFTER_DOWNLOADS = 8;
/** …or this long after the warm-up began (ms): a page that asks for no segment soon still gets its connections. */
export const RTC_CONNECT_WAIT_MAX_MS = 1500;

/**
 * @typedef {{id: string, url: string, ticket: string | null}} ListedProxy
 * @typedef {{id: string, ok: boolean, code: string | null}} ConnectOutcome
 * @typedef {ConnectOutcome & {kept: number}} RoundOutcome  kept: connections the pool kept to
 *   that proxy as the round began, idle or lent to a download (a later page's downloads may take
 *   the idle ones an earlier page left before its round runs, and the round then opens more)
 */

/**
 * @param {object} o
 * @param {() => {list: (where: object) => Promise<ListedProxy[]>} | null | undefined} o.proxies  the cached list
 * @param {() => {preconnect?: (list: ListedProxy[], o: {perProxy: number}) => Promise<ConnectOutcome[]>,
 *   warmHttp?: (list: ListedProxy[]) => Promise<{id: string, ok: boolean}[]>, keptConnections?: (url: string) => number}} o.client
 * @param {ReturnType<typeof import('./breaker.js').createBreakers>} o.breakers
 * @param {() => number} o.now
 * @param {{warn: (...a: unknown[]) => void}} o.logger
 * @param {(ms: number) => Promise<void>} [o.sleep]
 * @param {{afterDownloads?: number, maxWaitMs?: number}} [o.gate]  the startup gate (afterDownloads 0: none)
 */
export function createWarmUp({ proxies, client, breakers, now, logger, sleep = (ms) => new Promise((r) => setTimeout(r, ms)),
  gate: { afterDownloads = RTC_CONNECT_AFTER_DOWNLOADS, maxWaitMs = RTC_CONNECT_WAIT_MAX_MS } = {} }) {
  /** @type {Promise<void> | null} */
  let running = null;
  let done = false; // the first warm-up finished
  /** @type {{at: number, outcomes: RoundOutcome[]} | null} */
  let last = null;
  /** @type {Map<string, number>} proxy URL → when a warm-up last opened its HTTP connection */
  const httpWarmedAt = new Map();
  let ended = 0; // fleet downloads ended since the running warm-up began
  let playing = false; // the page's media began playing since the running warm-up began
  /** @type {(() => void) | null} opens the startup gate early */
  let openGate = null;

  /** Resolves when the startup gate opens: the page's media plays, afterDownloads downloads ended, or maxWaitMs passed. */
  function pageStarted() {
    if (playing || ended >= afterDownloads) return Promise.resolve();
    return new Promise((resolve) => {
      openGate = () => resolve(undefined);
      sleep(maxWaitMs).then(openGate);
    }).finally(() => { openGate = null; });
  }

  /** A fleet download ended (done, failed or cancelled): the page's start is that much further. */
  function downloadEnded() {
    ended += 1;
    if (ended >= afterDownloads) openGate?.();
  }

  /** The page's media began playing: its start is behind it. */
  function pagePlaying() {
    playing = true;
    openGate?.();
  }

  /**
   * The HTTP downloads (and MUTP's while WebRTC connects) find their connections open.
   * @param {{warmHttp?: (list: ListedProxy[]) => Promise<unknown>}} c @param {ListedProxy[]} list
   */
  function warmHttp(c, list) {
    const t = now();
    // again only after HTTP_REWARM_MS: the proxy keeps an idle connection a little longer, the
    // browser for minutes (Chromium 5 min), and every download to the proxy uses it
    for (const [url, at] of httpWarmedAt) if (t - at >= HTTP_REWARM_MS) httpWarmedAt.delete(url); // bounded: a proxy once listed is not kept
    const due = list.filter((p) => !httpWarmedAt.has(p.url));
    if (due.length === 0 || typeof c.warmHttp !== 'function') return;
    for (const p of due) httpWarmedAt.set(p.url, t);
    c.warmHttp(due); // never rejects; a proxy it cannot reach is the breakers' business when a download meets it
  }

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
      const usable = list.filter((p) => breakers.allows(`proxy:${p.id}`, now())).slice(0, count);
      warmHttp(c, usable);
      if (!mayUseRtc || !breakers.allows('rtc', now()) || typeof c.preconnect !== 'function') return false;
      if (usable.length === 0) return false;
      await pageStarted();
      const kept = new Map(usable.map((p) => [p.id, c.keptConnections?.(p.url) ?? 0]));
      // one connection per proxy first: the first downloads need no more, and fewer connects at once open sooner
      const outcomes = await c.preconnect(usable, { perProxy: 1 });
      last = { at: now(), outcomes: outcomes.map((o) => ({ ...o, kept: kept.get(o.id) ?? 0 })) };
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
    ended = 0;
    playing = false;
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
    downloadEnded,
    pagePlaying,
    /** A warm-up is connecting: a MUTP download now would connect on its own. */
    busy: () => running !== null,
    started: () => running !== null || done,
    last: () => last,
  };
}
