// One HTTP or HTTPS server for Origo and the proxy. With TLS, the certificate and key come from
// files and are reloaded when they change (an ACME client renewing them, a mounted secret
// rotated), without a restart: new connections get the new pair, open ones keep theirs.
import { readFileSync, watchFile, unwatchFile } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { codedError } from '@mutp/common/errors';

// How often the files are checked (stat, no read): certbot/lego renew days ahead, so a minute is
// plenty; polling, unlike fs.watch, sees a symlink swapped to a new target (certbot's live/ dir).
export const CERT_POLL_MS = 60_000;

/**
 * @typedef {{ certFile: string, keyFile: string }} TlsFiles
 * @typedef {{ info: (msg: string, f?: object) => void, warn: (msg: string, f?: object) => void }} Logger
 */

/**
 * Reads a certificate chain and its key, and checks that they make a usable pair.
 * @param {TlsFiles} files
 * @returns {{ cert: Buffer, key: Buffer }}
 */
export function readTlsPair({ certFile, keyFile }) {
  let cert;
  let key;
  try {
    cert = readFileSync(certFile);
    key = readFileSync(keyFile);
  } catch (err) {
    throw codedError('ERR_TLS_FILES', `cannot read the TLS certificate/key: ${err.message}`, { cause: err });
  }
  try {
    tls.createSecureContext({ cert, key }); // a key that does not match the certificate throws here
  } catch (err) {
    throw codedError('ERR_TLS_FILES', `the TLS certificate and key are not a usable pair (${certFile}, ${keyFile}): ${err.message}`, { cause: err });
  }
  return { cert, key };
}

/**
 * Both files or neither: one without the other is a configuration mistake.
 * @param {string | null | undefined} certFile @param {string | null | undefined} keyFile
 * @returns {TlsFiles | null}
 */
export function pickTlsFiles(certFile, keyFile) {
  if (!certFile && !keyFile) return null;
  if (!certFile || !keyFile) throw codedError('ERR_BAD_CONFIG', 'give both the TLS certificate and its key, or neither');
  return { certFile, keyFile };
}

/**
 * @param {import('node:http').RequestListener} handler
 * @param {{ tls: TlsFiles | null, logger: Logger, pollMs?: number, serverOptions?: import('node:http').ServerOptions }} o
 *   serverOptions: passed to both kinds of server (e.g. headersTimeout, requestTimeout)
 * @returns {{ server: import('node:http').Server, scheme: 'http' | 'https', reloads: () => number, stopWatching: () => void }}
 */
export function createWebServer(handler, { tls: files, logger, pollMs = CERT_POLL_MS, serverOptions = {} }) {
  if (!files) return { server: http.createServer(serverOptions, handler), scheme: 'http', reloads: () => 0, stopWatching: () => {} };
  const server = https.createServer({ ...serverOptions, ...readTlsPair(files) }, handler);
  let reloads = 0;
  const reload = (/** @type {import('node:fs').Stats} */ now, /** @type {import('node:fs').Stats} */ before) => {
    if (now.mtimeMs === before.mtimeMs && now.ino === before.ino && now.size === before.size) return;
    try {
      server.setSecureContext(readTlsPair(files));
      reloads++;
      logger.info('TLS certificate reloaded', { certFile: files.certFile });
    } catch (err) {
      // Mid-renewal (the certificate written, the key not yet): keep serving the old pair; the
      // second file's change brings another try.
      logger.warn('TLS certificate not reloaded, still serving the previous one', { code: err.code, message: err.message });
    }
  };
  const opts = { interval: pollMs, persistent: false };
  watchFile(files.certFile, opts, reload);
  watchFile(files.keyFile, opts, reload);
  const stopWatching = () => {
    unwatchFile(files.certFile, reload);
    unwatchFile(files.keyFile, reload);
  };
  server.once('close', stopWatching);
  return { server, scheme: 'https', reloads: () => reloads, stopWatching };
}
