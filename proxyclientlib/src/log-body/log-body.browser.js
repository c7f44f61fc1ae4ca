// A log batch's request body in a browser: plain JSON. A compressed body would need Origo to allow
// the Content-Encoding header across origins (a page's player plugin posts cross-origin), which
// Origos that predate it do not.

/** @param {string} json @returns {Promise<{ body: BodyInit, headers: Record<string, string> }>} */
export async function logBody(json) {
  return { body: json, headers: { 'content-type': 'application/json' } };
}
