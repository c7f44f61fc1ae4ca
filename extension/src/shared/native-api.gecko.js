// Firefox's own extension API (`browser`, promises throughout): no polyfill needed.
export default /** @type {import('webextension-polyfill').Browser} */ (/** @type {any} */ (globalThis).browser);
