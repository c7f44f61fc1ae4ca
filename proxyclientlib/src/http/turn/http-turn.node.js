// Node: let undici hand the connection back to its pool before the caller's next request.
// proxyFetch stops reading once every announced byte is in, so undici finishes the response
// (and frees the socket) on a later macrotask; a request sent before that opens a new TCP
// connection, and pays a handshake and a new slow start (Node 20: a range requested right after
// the previous one opened a second connection every time; after one setImmediate, never).
// Chosen by the "#http-turn" import condition in package.json; browsers get http-turn.browser.js.

/** @returns {Promise<void>} */
export function yieldToHttpClient() {
  return new Promise((resolve) => setImmediate(resolve));
}
