// Open peer connections to proxies, kept between downloads (the paper's ProxyClientLib kept its
// proxy connections): a download takes one, opens a fresh data channel on it (one in-band DCEP
// round trip instead of signalling + ICE + DTLS + SCTP), and gives it back when it ends. The
// proxy's ticket is checked once, at signalling, for the connection's whole life.

import { connectPeer, MUTP_CHANNEL_OPTIONS } from './connect-peer.js';
import { codedError } from './coded-error.js';

/**
 * An idle pooled connection closes after this (ms): under the proxy's 30 s idle sweep
 * (SESSION_IDLE_TIMEOUT_MS), so we close first and never reuse one the proxy is dropping.
 */
export const POOL_IDLE_TIMEOUT_MS = 20_000;

/**
 * A channel on a pooled connection must open within this (ms), else the connection is taken as
 * dead (e.g. the proxy restarted and ICE has not noticed yet) and a fresh one is made. An open
 * is one round trip on a live connection.
 */
export const POOL_REUSE_OPEN_TIMEOUT_MS = 1500;

/** Idle connections kept per proxy (count): one per concurrent download to it is plenty. */
export const POOL_MAX_IDLE_PER_PROXY = 2;

/**
 * @typedef {{ pc: RTCPeerConnection, channel: RTCDataChannel, reused: boolean, close: (lingerMs?: number) => void,
 *   discard: () => void }} PooledPeer
 *   close(lingerMs): gives the connection back now and closes the download's channel lingerMs later; discard(): closes both
 */

/**
 * @param {{ idleTimeoutMs?: number, reuseOpenTimeoutMs?: number, maxIdlePerProxy?: number }} [o]
 */
export function createPeerPool({ idleTimeoutMs = POOL_IDLE_TIMEOUT_MS, reuseOpenTimeoutMs = POOL_REUSE_OPEN_TIMEOUT_MS,
  maxIdlePerProxy = POOL_MAX_IDLE_PER_PROXY } = {}) {
  /** @type {Map<string, { pc: RTCPeerConnection, timer: ReturnType<typeof setTimeout> }[]>} */
  const idle = new Map();
  /** @type {Set<RTCPeerConnection>} connections out on a download */
  const leased = new Set();
  let closed = false;
  const counters = { connects: 0, reuses: 0, deadReplaced: 0 };

  /**
   * A connection with an open data channel for one download.
   * @param {Parameters<typeof connectPeer>[0]} opts
   * @returns {Promise<PooledPeer>}
   */
  async function acquire(opts) {
    if (closed) throw codedError('ERR_POOL_CLOSED', 'the client was closed');
    const key = opts.url;
    for (let entry = takeIdle(key); entry; entry = takeIdle(key)) {
      const pc = entry.pc;
      if (pc.connectionState !== 'connected') {
        closePc(pc);
        continue;
      }
      try {
        const channel = await openChannel(pc, reuseOpenTimeoutMs, opts.signal);
        counters.reuses++;
        return lease(key, pc, channel, true);
      } catch (e) {
        if (/** @type {any} */ (e)?.code === 'ERR_ABORTED' || opts.signal?.aborted) {
          closePc(pc);
          throw e;
        }
        counters.deadReplaced++; // a dead pooled connection: replace it, do not fail the download
        closePc(pc);
      }
    }
    const peer = await connectPeer(opts);
    counters.connects++;
    return lease(key, peer.pc, peer.channel, false);
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
   * @param {string} key @param {RTCPeerConnection} pc @param {RTCDataChannel} channel @param {boolean} reused
   * @returns {PooledPeer}
   */
  function lease(key, pc, channel, reused) {
    leased.add(pc);
    let done = false;
    const closeChannel = () => {
      try {
        channel.close();
      } catch {
        // already closed
      }
    };
    const end = (/** @type {boolean} */ keep, lingerMs = 0) => {
      if (done) return;
      done = true;
      leased.delete(pc);
      // the connection is free at once; only this download's channel lingers (its last messages)
      if (keep && lingerMs > 0) setTimeout(closeChannel, lingerMs);
      else closeChannel();
      if (keep && !closed && pc.connectionState === 'connected') putIdle(key, pc);
      else closePc(pc);
    };
    return { pc, channel, reused, close: (lingerMs = 0) => end(true, lingerMs), discard: () => end(false) };
  }

  /** @param {string} key @param {RTCPeerConnection} pc */
  function putIdle(key, pc) {
    const list = idle.get(key) ?? [];
    if (list.length >= maxIdlePerProxy) {
      closePc(pc);
      return;
    }
    const entry = {
      pc,
      timer: setTimeout(() => {
        const l = idle.get(key);
        const i = l ? l.indexOf(entry) : -1;
        if (l && i >= 0) l.splice(i, 1);
        if (l && l.length === 0) idle.delete(key);
        closePc(pc);
      }, idleTimeoutMs),
    };
    entry.timer.unref?.(); // an idle pool alone must not keep Node running
    list.push(entry);
    idle.set(key, list);
  }

  return {
    acquire,
    /** idle connections, all proxies */
    get idleCount() {
      let n = 0;
      for (const l of idle.values()) n += l.length;
      return n;
    },
    /** {connects, reuses, deadReplaced} since the pool was made */
    counters: () => ({ ...counters }),
    /** Close every idle connection now; leased ones close when their download gives them back. */
    close() {
      closed = true;
      for (const list of idle.values()) {
        for (const e of list) {
          clearTimeout(e.timer);
          closePc(e.pc);
        }
      }
      idle.clear();
    },
  };
}

/** @param {RTCPeerConnection} pc */
function closePc(pc) {
  try {
    pc.close();
  } catch {
    // already closed
  }
}

/**
 * A new MUTP data channel on a connected peer connection.
 * @param {RTCPeerConnection} pc @param {number} timeoutMs @param {AbortSignal | undefined} signal
 * @returns {Promise<RTCDataChannel>}
 */
function openChannel(pc, timeoutMs, signal) {
  const channel = pc.createDataChannel('mutp', MUTP_CHANNEL_OPTIONS);
  channel.binaryType = 'arraybuffer';
  return new Promise((resolve, reject) => {
    const fail = (/** @type {any} */ err) => {
      cleanup();
      try {
        channel.close();
      } catch {
        // never opened
      }
      reject(err);
    };
    const timer = setTimeout(() => fail(codedError('ERR_RTC_CONNECT_TIMEOUT', `pooled channel not open within ${timeoutMs} ms`)), timeoutMs);
    const onOpen = () => {
      cleanup();
      resolve(channel);
    };
    const onClose = () => fail(codedError('ERR_RTC_CHANNEL_CLOSED', 'the pooled channel closed before it opened'));
    const onAbort = () => fail(codedError('ERR_ABORTED', 'the download was aborted'));
    function cleanup() {
      clearTimeout(timer);
      channel.removeEventListener('open', onOpen);
      channel.removeEventListener('close', onClose);
      signal?.removeEventListener('abort', onAbort);
    }
    if (signal?.aborted) return onAbort();
    channel.addEventListener('open', onOpen);
    channel.addEventListener('close', onClose);
    signal?.addEventListener('abort', onAbort);
    if (channel.readyState === 'open') onOpen();
  });
}
