// Backpressure for one data channel: node-datachannel never refuses a send, so we cap
// bufferedAmount ourselves and wait for `bufferedamountlow` to resume. The cap is small in
// *time*, not bytes: every queued packet was chosen on feedback that will be stale by the time it
// leaves, so the queue holds ~SEND_QUEUE_TARGET_MS of the channel's measured drain rate.

import {
  SEND_HIGH_WATER_BYTES, SEND_QUEUE_FLOOR_BYTES, SEND_QUEUE_INITIAL_BYTES, SEND_QUEUE_TARGET_MS,
  DRAIN_SAMPLE_MS, DRAIN_EWMA_WEIGHT,
} from './limits.js';

/**
 * @param {RTCDataChannel} channel
 * @param {{ highWaterBytes?: number, floorBytes?: number, targetMs?: number, now?: () => number }} [opts]
 *   highWaterBytes: the cap never exceeds this; floorBytes: nor goes below this
 */
export function createChannelSender(channel, opts = {}) {
  const ceilBytes = opts.highWaterBytes ?? SEND_HIGH_WATER_BYTES;
  const floorBytes = Math.min(opts.floorBytes ?? SEND_QUEUE_FLOOR_BYTES, ceilBytes);
  const targetMs = opts.targetMs ?? SEND_QUEUE_TARGET_MS;
  const now = opts.now ?? (() => performance.now());
  let capBytes = Math.max(floorBytes, Math.min(ceilBytes, SEND_QUEUE_INITIAL_BYTES));
  /** bytes handed to channel.send() since the channel opened */
  let queuedTotal = 0;
  /** drain estimator: bytes that had left the queue, and the time, at the start of the sample */
  let sampleAt = now();
  let sampleDrained = 0;
  let sampleBusy = false;
  /** bytes/ms, EWMA over samples taken while the queue was never empty (link-limited) */
  let drainRate = 0;
  /** set when a drain wait ends: the next look at the queue tells whether it ran dry meanwhile */
  let starved = false;
  setLowWater();

  function setLowWater() {
    channel.bufferedAmountLowThreshold = Math.floor(capBytes / 2);
  }

  /** Update the drain-rate estimate and the cap from bufferedAmount. @param {number} buffered */
  function observe(buffered) {
    const t = now();
    const dt = t - sampleAt;
    if (dt < DRAIN_SAMPLE_MS) {
      if (buffered === 0) sampleBusy = false;
      if (starved && buffered === 0 && capBytes < ceilBytes) {
        capBytes = Math.min(ceilBytes, capBytes * 2);
        setLowWater();
      }
      starved = false;
      return;
    }
    const drained = queuedTotal - buffered;
    // a sample counts only if the queue stayed non-empty: else it measures us, not the link
    if (sampleBusy && buffered > 0) {
      const rate = (drained - sampleDrained) / dt;
      drainRate = drainRate === 0 ? rate : drainRate + DRAIN_EWMA_WEIGHT * (rate - drainRate);
      const next = Math.max(floorBytes, Math.min(ceilBytes, Math.round(drainRate * targetMs)));
      if (Math.abs(next - capBytes) > capBytes / 4) {
        capBytes = next;
        setLowWater();
      }
    } else if (starved && buffered === 0 && capBytes < ceilBytes) {
      // we waited for the queue to drain and it ran dry: our wake-up is slower than the link
      capBytes = Math.min(ceilBytes, capBytes * 2);
      setLowWater();
    }
    starved = false;
    sampleAt = t;
    sampleDrained = drained;
    sampleBusy = buffered > 0;
  }

  return {
    /** true when the channel is open and its queue is under the cap */
    canSend() {
      if (channel.readyState !== 'open') return false;
      const buffered = channel.bufferedAmount;
      observe(buffered);
      return buffered < capBytes;
    },
    get open() {
      return channel.readyState === 'open';
    },
    /** the current queue cap (bytes) and drain estimate (bytes/ms), for logs and tests */
    get capBytes() {
      return capBytes;
    },
    get drainRate() {
      return drainRate;
    },
    /**
     * Queue one message. Returns false (and sends nothing) when the channel is not open.
     * @param {Uint8Array} bytes
     */
    send(bytes) {
      if (channel.readyState !== 'open') return false;
      try {
        channel.send(/** @type {Uint8Array<ArrayBuffer>} */ (bytes));
        queuedTotal += bytes.length;
        return true;
      } catch {
        return false; // closed between the check and the send
      }
    },
    /**
     * Resolves when the queue has drained below half the cap, or the channel closed.
     * @returns {Promise<void>}
     */
    drained() {
      if (channel.readyState !== 'open' || channel.bufferedAmount <= channel.bufferedAmountLowThreshold) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          starved = true;
          channel.removeEventListener('bufferedamountlow', done);
          channel.removeEventListener('close', done);
          resolve();
        };
        channel.addEventListener('bufferedamountlow', done);
        channel.addEventListener('close', done);
      });
    },
  };
}
