// Open peer connections to proxies, kept between downloads (the paper's ProxyClientLib kept its
// proxy connections). Each kept connection keeps its one MUTP data channel; downloads on it are
// told apart by the downloadId every message carries (a new request supersedes the last download
// at the proxy). A connection is lent to one download at a time: concurrent downloads to the same
// proxy get their own. The proxy's ticket is checked once, at signalling, for the connection's life.
// (A fresh channel per download on a kept connection was tried: libdatachannel 0.33 then closed
// some of the new channels, likely a reused SCTP stream id racing its reset.)

import { closePeer, connectPeer } from './connect-peer.js';
import { codedError } from '@mutp/common/errors';
import { createCounts } from '@mutp/common/counts';

/**
 * An idle pooled connection closes after this (ms): under the proxy's 30 s idle sweep
 * (SESSION_IDLE_TIMEOUT_MS), so we close first and never reuse one the proxy is dropping.
 */
export const POOL_IDLE_TIMEOUT_MS = 20_000;

/** Idle connections kept per proxy (count): one per concurrent download to it is plenty. */
export const POOL_MAX_IDLE_PER_PROXY = 2;

/**
 * @typedef {{ pc: RTCPeerConnection, channel: RTCDataChannel, reused: boolean, requestTaken: boolean, close: () => void,
 *   discard: () => void }} PooledPeer
 *   close(): gives the connection back (the caller removed its listeners); discard(): closes it (suspect or failed);
 *   requestTaken: a new connection whose proxy took the request its offer carried
 */

/** @typedef {{ reused: boolean, error: Error | null }} FillOutcome  one connection of fill(): kept already, or opened (error: why not) */

/**
 * @param {{ idleTimeoutMs?: number, maxIdlePerProxy?: number }} [o]
 */
export function createPeerPool({ idleTimeoutMs = POOL_IDLE_TIMEOUT_MS, maxIdlePerProxy = POOL_MAX_IDLE_PER_PROXY } = {}) {
  /** @type {Map<string, { pc: RTCPeerConnection, channel: RTCDataChannel, timer: ReturnType<typeof setTimeout> }[]>} */
  const idle = new Map();
  /** @type {ReturnType<typeof createCounts<string>>} connections lent to downloads, per proxy */
  const lent = createCounts();
  /** Idle connections to one proxy (a download to it now would take one instead of connecting). @param {string} url */
  const idleFor = (url) => idle.get(url)?.length ?? 0;
  /** @type {Map<string, Promise<FillOutcome>[]>} connections fill() is opening, per proxy */
  const opening = new Map();
  let closed = false;
  const counters = { connects: 0, reuses: 0, discarded: 0 };

  /**
   * A connection with an open data channel for one download: a kept one if there is a live one,
   * else a new one. `fresh`: skip the kept ones (the caller found one silent: dead).
   * @param {Parameters<typeof connectPeer>[0] & { fresh?: boolean }} opts
   * @returns {Promise<PooledPeer>}
   */
  async function acquire(opts) {
    if (closed) throw codedError('ERR_POOL_CLOSED', 'the client was closed');
    const key = opts.url;
    for (let entry = opts.fresh ? null : takeIdle(key); entry; entry = takeIdle(key)) {
      if (entry.pc.connectionState === 'connected' && entry.channel.readyState === 'open') {
        counters.reuses++;
        return lease(key, entry.pc, entry.channel, true, false);
      }
      closePeer(entry.pc, entry.channel);
    }
    const peer = await connectPeer(opts);
    counters.connects++;
    return lease(key, peer.pc, peer.channel, false, peer.requestTaken);
  }

  /**
   * Have `count` connections to opts.url idle, opening only the missing ones, each kept idle once
   * open. Lends none: the kept ones stay free for a download meanwhile (a warm-up that held them
   * while it opened more made the download beside it connect on its own). One outcome per
   * connection counted: the idle ones (reused), the ones already opening, the new ones.
   * @param {Parameters<typeof connectPeer>[0]} opts @param {number} count
   * @returns {Promise<FillOutcome[]>}
   */
  async function fill(opts, count) {
    if (closed) throw codedError('ERR_POOL_CLOSED', 'the client was closed');
    const key = opts.url;
    const alive = (idle.get(key) ?? []).filter((e) => e.pc.connectionState === 'connected' && e.channel.readyState === 'open').length;
    const kept = Array.from({ length: Math.min(alive, count) }, () => Promise.resolve(/** @type {FillOutcome} */ ({ reused: true, error: null })));
    const pending = opening.get(key) ?? [];
    const already = pending.slice(0, Math.max(0, count - kept.length));
    const fresh = Array.from({ length: Math.max(0, count - kept.length - already.length) }, () => {
      const p = connectPeer(opts).then((peer) => {
        counters.connects++;
        if (closed) closePeer(peer.pc, peer.channel);
        else putIdle(key, peer.pc, peer.channel);
        return /** @type {FillOutcome} */ ({ reused: false, error: null });
      }, (/** @type {Error} */ error) => ({ reused: false, error }));
      const list = opening.get(key) ?? [];
      list.push(p);
      opening.set(key, list);
      p.finally(() => {
        const l = opening.get(key) ?? [];
        l.splice(l.indexOf(p), 1);
        if (l.length === 0) opening.delete(key);
      });
      return p;
    });
    return Promise.all([...kept, ...already, ...fresh]);
  }

  /** @param {string} key */
  function takeIdle(key) {
    const list = idle.get(key);
    const entry = list?.pop();
    if (list && list.length === 0) idle.delete(key);
    if (entry) clearTimeout(entry.timer);
    return entry ?? null;
  }

  /**
   * @param {string} key @param {RTCPeerConnection} pc @param {RTCDataChannel} channel @param {boolean} reused @param {boolean} requestTaken
   * @returns {PooledPeer}
   */
  function lease(key, pc, channel, reused, requestTaken) {
    let done = false;
    lent.add(key);
    const end = (/** @type {boolean} */ keep) => {
      if (done) return;
      done = true;
      lent.remove(key);
      if (keep && !closed && pc.connectionState === 'connected' && channel.readyState === 'open') putIdle(key, pc, channel);
      else closePeer(pc, channel);
    };
    return { pc, channel, reused, requestTaken, close: () => end(true), discard: () => { if (!done) counters.discarded++; end(false); } };
  }

  /** @param {string} key @param {RTCPeerConnection} pc @param {RTCDataChannel} channel */
  function putIdle(key, pc, channel) {
    const list = idle.get(key) ?? [];
    if (list.length >= maxIdlePerProxy) {
      closePeer(pc, channel);
      return;
    }
    const entry = {
      pc,
      channel,
      timer: setTimeout(() => {
        const l = idle.get(key);
        const i = l ? l.indexOf(entry) : -1;
        if (l && i >= 0) l.splice(i, 1);
        if (l && l.length === 0) idle.delete(key);
        closePeer(pc, channel);
      }, idleTimeoutMs),
    };
    entry.timer.unref?.(); // an idle pool alone must not keep Node running
    list.push(entry);
    idle.set(key, list);
  }

  return {
    acquire,
    fill,
    /** idle connections, all proxies */
    get idleCount() {
      let n = 0;
      for (const l of idle.values()) n += l.length;
      return n;
    },
    idleFor,
    /** Connections to one proxy, idle or lent to a download. @param {string} url */
    keptFor: (url) => idleFor(url) + lent.get(url),
    /** {connects, reuses, discarded} since the pool was made (discarded: lent connections closed as failed or suspect) */
    counters: () => ({ ...counters }),
    /**
     * Close the idle connections now (the next download to a proxy connects anew); the pool stays
     * open. urls: only those to these proxies (default: all).
     */
    closeIdle,
    /** Close every idle connection now; leased ones close when their download gives them back. */
    close() {
      closed = true;
      closeIdle();
    },
  };

  /** @param {string[]} [urls] */
  function closeIdle(urls) {
    for (const [url, list] of idle) {
      if (urls && !urls.includes(url)) continue;
      for (const e of list) {
        clearTimeout(e.timer);
        closePeer(e.pc, e.channel);
      }
      idle.delete(url);
    }
  }
}
