// Uncoded and Coded MUTP in the simulator: drives the protocol's own sender and receiver
// objects (@mutp/protocol), and every message crosses the wire codec, so byte counts are real.
// Each source asks its sender for the next packet whenever its uplink is free; when the sender
// returns null the source idles until feedback arrives (or until the time the sender or
// receiver asked to be woken, if they expose wakeAt()).

/** Simulated time after which a run that has not completed is called stalled, ms. */
const STALL_LIMIT_MS = 600_000;

/**
 * @typedef {object} MutpJob
 * @property {'coded'|'uncoded'} mode
 * @property {number} size
 * @property {Uint8Array} data
 * @property {object} params          protocol params (window, generationSize, feedbackEvery, ...)
 * @property {number} seed
 * @property {number} overheadBytes   per-datagram lower-layer header bytes on the wire
 * @property {any} protocol           the @mutp/protocol module
 */

/**
 * @param {import('./network.js').Network} net
 * @param {MutpJob} job
 * @returns {Promise<import('./simulate.js').RunResult>}
 */
export async function runMutp(net, job) {
  const { mode, size, data, params, seed, overheadBytes, protocol } = job;
  const { createSender, createReceiver, encodeMessage, decodeMessage } = protocol;
  const q = net.queue;
  const n = net.sources.length;

  const senders = [];
  for (let i = 0; i < n; i++) {
    senders.push(await createSender({ mode, data, params, sourceIndex: i, sourceCount: n, seed: (seed * 7919 + i) >>> 0 }));
  }
  // Every source sends the same meta; the client builds its receiver from the first to arrive.
  // The meta (like the request) is modelled as reliable: the live client retries it.
  const metaBytes = encodeMessage(senders[0].meta());
  const metaDecoded = decodeMessage(metaBytes);
  if (!metaDecoded.ok) throw new Error(`meta does not decode: ${metaDecoded.error.code}`);
  const receiver = await createReceiver({ meta: metaDecoded.msg, params, sourceCount: n, now: 0 });

  let doneMs = null;
  let ttfbMs = null;
  let badMessages = 0;
  let feedbackSent = 0;
  const active = new Array(n).fill(false);
  const busy = new Array(n).fill(false);
  const wakeSet = new Array(n).fill(Infinity);
  let receiverWake = -1;
  // Diagnostics: how long each uplink sat idle because its sender had nothing to send
  // (window or in-flight limits waiting for feedback).
  const idleMs = new Array(n).fill(0);
  const idleSince = new Array(n).fill(NaN);

  /** @param {number} i */
  function pump(i) {
    if (doneMs !== null || !active[i] || busy[i]) return;
    // nextDatagram(): the same bytes as encodeMessage(nextPacket()), without the copies
    const bytes = senders[i].nextDatagram(q.now);
    const msg = bytes !== null;
    if (!msg && Number.isNaN(idleSince[i])) idleSince[i] = q.now;
    if (msg && !Number.isNaN(idleSince[i])) {
      idleMs[i] += q.now - idleSince[i];
      idleSince[i] = NaN;
    }
    if (!msg) {
      const wake = senders[i].wakeAt?.(q.now);
      if (typeof wake === 'number' && wake > q.now && wake < wakeSet[i]) {
        wakeSet[i] = wake;
        q.at(wake, () => {
          if (wakeSet[i] === wake) wakeSet[i] = Infinity;
          pump(i);
        });
      }
      return;
    }
    const wire = bytes.length + overheadBytes;
    const end = net.serialize(i, wire);
    busy[i] = true;
    q.at(end, () => {
      busy[i] = false;
      pump(i);
    });
    net.toClient(i, wire, end, () => onClientDatagram(i, bytes), true);
  }

  /**
   * @param {number} i
   * @param {Uint8Array} bytes
   */
  function onClientDatagram(i, bytes) {
    if (doneMs !== null) return;
    const r = decodeMessage(bytes);
    if (!r.ok) {
      badMessages++;
      return;
    }
    if (ttfbMs === null) ttfbMs = q.now;
    receiver.handlePacket(r.msg, i, q.now);
    flushFeedback();
    if (receiver.isComplete()) doneMs = q.now;
  }

  function flushFeedback() {
    for (;;) {
      const fb = receiver.pollFeedback(q.now);
      if (!fb) break;
      feedbackSent++;
      const bytes = encodeMessage(fb);
      for (let k = 0; k < n; k++) {
        net.toSource(k, bytes.length + overheadBytes, () => {
          const d = decodeMessage(bytes);
          if (!d.ok) return;
          senders[k].handleFeedback(d.msg, q.now);
          pump(k);
        }, true);
      }
      if (fb.type === 'done') break;
    }
    const wake = receiver.wakeAt?.(q.now);
    // One pending wake-up at a time: a timer per packet would flood the event queue.
    if (typeof wake === 'number' && wake > q.now && wake < Infinity && !(receiverWake > q.now && receiverWake <= wake)) {
      receiverWake = wake;
      q.at(wake, () => {
        if (receiverWake === wake) receiverWake = -1;
        if (doneMs === null) flushFeedback();
      });
    }
  }

  for (let i = 0; i < n; i++) {
    const link = net.sources[i];
    // The request reaches the proxy after one delay; it fetches the origin, then sends meta + data.
    q.at(link.delayMs + link.startDelayMs, () => {
      active[i] = true;
      const end = net.serialize(i, metaBytes.length + overheadBytes);
      busy[i] = true;
      q.at(end, () => {
        busy[i] = false;
        pump(i);
      });
    });
  }
  if (size === 0) {
    q.run(() => receiver.isComplete(), STALL_LIMIT_MS);
    doneMs = receiver.isComplete() ? q.now : null;
  } else {
    q.run(() => doneMs !== null, STALL_LIMIT_MS);
  }
  const counts = receiver.counts();
  const release = () => {
    for (const s of senders) s.close?.();
    receiver.close?.();
  };
  if (doneMs === null) {
    release();
    return { ok: false, error: 'ERR_SIM_STALLED', durationMs: q.now, grossBytes: counts.grossBytes, netBytes: 0, ttfbMs, duplicates: counts.duplicates, packets: counts.packets, verified: false, badMessages, feedbackSent };
  }
  const got = receiver.data();
  const verified = got !== null && got.length === data.length &&
    Buffer.compare(Buffer.from(got.buffer, got.byteOffset, got.byteLength), Buffer.from(data.buffer, data.byteOffset, data.byteLength)) === 0;
  release();
  return {
    ok: true,
    error: null,
    durationMs: doneMs,
    grossBytes: counts.grossBytes,
    netBytes: verified ? size : 0,
    ttfbMs,
    duplicates: counts.duplicates,
    packets: counts.packets,
    verified,
    badMessages,
    feedbackSent,
    senderIdleMs: idleMs.map((v, i) => v + (Number.isNaN(idleSince[i]) ? 0 : doneMs - idleSince[i])),
  };
}
