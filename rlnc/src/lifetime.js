// Safety net for objects that are dropped without dispose(): their memory block goes back to the
// shared heap when they are garbage-collected. dispose() is still the way to free promptly.

/** @type {FinalizationRegistry<import('./backend-types.js').Arena>} */
const registry = new FinalizationRegistry((arena) => arena.free());

/** @param {object} owner @param {import('./backend-types.js').Arena} arena */
export function track(owner, arena) {
  registry.register(owner, arena, owner);
}

/** @param {object} owner */
export function untrack(owner) {
  registry.unregister(owner);
}

/** @param {string} what */
export function disposedError(what) {
  const err = new Error(`${what} was disposed`);
  /** @type {any} */ (err).code = 'ERR_RLNC_DISPOSED';
  return err;
}
