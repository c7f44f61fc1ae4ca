// Base64 (RFC 4648, standard alphabet, padded) for bytes that travel in JSON fields and HTTP
// headers, in Node and in browsers alike (btoa/atob).

/** @param {number} bytes @returns {number} the length of the base64 of that many bytes (characters) */
export const base64Chars = (bytes) => 4 * Math.ceil(bytes / 3);

/** @param {Uint8Array} bytes @returns {string} */
export function base64Of(bytes) {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/**
 * The bytes a base64 text holds; null when it is not a non-empty string of base64 of at most
 * maxChars characters.
 * @param {unknown} text @param {number} maxChars
 * @returns {Uint8Array | null}
 */
export function bytesOfBase64(text, maxChars) {
  if (typeof text !== 'string' || text.length === 0 || text.length > maxChars || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return null;
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}
