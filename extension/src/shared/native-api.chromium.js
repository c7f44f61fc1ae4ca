// Chrome's own extension API, without the promise polyfill (whose set-up cost the page's main
// thread ~14 ms at every load): for a content script that uses only calls Chrome answers with
// promises itself (storage, runtime.getURL).
export default /** @type {import('webextension-polyfill').Browser} */ (/** @type {any} */ (globalThis).chrome);
