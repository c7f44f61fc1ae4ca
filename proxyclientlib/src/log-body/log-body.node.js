// A log batch's request body in Node: gzipped from LOG_GZIP_FROM_BYTES on. Origo reads gzip (its
// JSON body parser inflates it, and its byte cap counts the inflated body). A one-off `mutp get`
// waits for its record's upload before it exits: an 8 MiB coded download's record is ~56 KB of
// JSON with its packet log in columns (log-post.js), ~4x less gzipped.
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';

/** Bodies shorter than this (characters) go as they are: a few records' worth, not worth the CPU. */
export const LOG_GZIP_FROM_BYTES = 16 * 1024;

/** zlib's fastest level: an 8 MiB coded download's record (56 KB of JSON, the packet log in columns)
 * gzips in 0.7 ms to 13.8 KB, one round trip's worth from an idle connection's 10-segment window; with
 * the log as arrays (147 KB) it took 1.7 ms to 49 KB, against 8.4 ms and 42 KB at the default 6. */
const LOG_GZIP_LEVEL = 1;

const gzipAsync = promisify(gzip);

/** @param {string} json @returns {Promise<{ body: BodyInit, headers: Record<string, string> }>} */
export async function logBody(json) {
  if (json.length < LOG_GZIP_FROM_BYTES) return { body: json, headers: { 'content-type': 'application/json' } };
  return { body: new Uint8Array(await gzipAsync(json, { level: LOG_GZIP_LEVEL })), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } };
}
