// Backpressure for one data channel: node-datachannel never refuses a send, so we keep
// bufferedAmount under a cap ourselves and wait for `bufferedamountlow` to resume.

import { SEND_HIGH_WATER_BYTES, SEND_LOW_WATER_BYTES } from './limits.js';

/**
 * @param {RTCDataChannel} channel
 * @param {{ highWaterBytes?: number, lowWaterBytes?: number }} [opts]
 */
export function createChannelSender(channel, opts = {}) {
  const highWaterBytes = opts.highWaterBytes ?? SEND_HIGH_WATER_BYTES;
  const lowWaterBytes = opts.lowWaterBytes ?? SEND_LOW_WATER_BYTES;
  channel.bufferedAmountLowThreshold = lowWaterBytes;

  return {
    /** true when the channel is open and its queue is under the cap */
    canSend() {
      return channel.readyState === 'open' && channel.bufferedAmount < highWaterBytes;
    },
    get open() {
      return channel.readyState === 'open';
    },
    /**
     * Queue one message. Returns false (and sends nothing) when the channel is not open.
     * @param {Uint8Array} bytes
     */
    send(bytes) {
      if (channel.readyState !== 'open') return false;
      try {
        channel.send(/** @type {Uint8Array<ArrayBuffer>} */ (bytes));
        return true;
      } catch {
        return false; // closed between the check and the send
      }
    },
    /**
     * Resolves when the queue has drained below the low-water mark, or the channel closed.
     * @returns {Promise<void>}
     */
    drained() {
      if (channel.readyState !== 'open' || channel.bufferedAmount <= lowWaterBytes) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
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
