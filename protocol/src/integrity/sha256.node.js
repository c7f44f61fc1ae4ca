// SHA-256 on Node: node:crypto (OpenSSL, uses the CPU's SHA extensions), synchronous.
// Browsers get the plain-JS sha256.js through the "#sha256" import condition.
import { createHash } from 'node:crypto';

/**
 * @param {Uint8Array} bytes
 * @returns {Uint8Array} 32-byte digest
 */
export function sha256(bytes) {
  const d = createHash('sha256').update(bytes).digest();
  return new Uint8Array(d.buffer, d.byteOffset, d.length);
}

/**
 * No async SHA-256 on Node: the synchronous one is native already, a promise would only add a hop.
 * @type {((bytes: Uint8Array) => Promise<Uint8Array>) | null}
 */
export const sha256Async = null;
