// Uncoded 'share': packets are dealt to owners by weights that every source must compute alike,
// yet each source hears feedback at its own times. So the window is cut into epochs, and the
// receiver sends the feedback that moves its base into a new epoch to every source at once: the
// first feedback a source hears with its base in epoch e is the same message at every source,
// and the weights of the packets whose window entry needs epoch e come from it.

/** Epochs per window: the weights follow rate changes this often (each epoch costs one feedback to all). */
export const EPOCHS_PER_WINDOW = 4;

/** Packets per epoch under a window of `window` packets. @param {number} window */
export function epochPackets(window) {
  return Math.max(1, Math.ceil(window / EPOCHS_PER_WINDOW));
}

/**
 * The epoch the window's base must reach before packet i can enter a window of `window` packets.
 * @param {number} i @param {number} window @param {number} [perEpoch] epochPackets(window), when the caller holds it
 */
export function entryEpoch(i, window, perEpoch = epochPackets(window)) {
  return Math.max(0, Math.floor((i - window + 1) / perEpoch));
}
