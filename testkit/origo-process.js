// Origo as a child process (origo/bin/origo.js) on a fixed loopback port and an on-disk DuckDB,
// so a test can SIGKILL it and start it again on the same port and file.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const ORIGO_BIN = fileURLToPath(import.meta.resolve('@mutp/origo/bin'));
const ORIGO_START_TIMEOUT_MS = 30_000; // DuckDB opening + WAL replay on a busy 2-core box

/** A free TCP port on 127.0.0.1 (closed again; the caller binds it next). */
export async function freePort() {
  const srv = createServer();
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(undefined)));
  const port = /** @type {import('node:net').AddressInfo} */ (srv.address()).port;
  await new Promise((resolve) => srv.close(() => resolve(undefined)));
  return port;
}

/**
 * Benchmark fleets run from one address with proxies on loopback, so the per-address caps are off and
 * private proxy URLs allowed, unless `defaults` asks for Origo's production defaults.
 * @param {{port: number, db: string, secret: string, adminPassword: string, extraArgs?: string[], defaults?: boolean}} o
 * @returns {Promise<{url: string, pid: number, child: import('node:child_process').ChildProcess, exited: Promise<unknown>, output: () => string}>}
 */
export async function spawnOrigo({ port, db, secret, adminPassword, extraArgs = [], defaults = false }) {
  const fleetArgs = defaults ? [] : ['--rate-limit', '0', '--ticket-rate', '0', '--log-quota', '0', '--allow-private-proxies'];
  const child = spawn(process.execPath, [ORIGO_BIN, '--port', String(port), '--host', '127.0.0.1', '--db', db, ...fleetArgs, ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ORIGO_PROXY_SECRET: secret, ORIGO_ADMIN_PASSWORD: adminPassword },
  });
  let out = '';
  const keep = (d) => { out = (out + d).slice(-8000); };
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`origo did not start within ${ORIGO_START_TIMEOUT_MS} ms:\n${out}`)), ORIGO_START_TIMEOUT_MS);
    child.stdout.on('data', (d) => {
      keep(d);
      if (out.includes('origo listening on')) { clearTimeout(timer); resolve(undefined); }
    });
    exited.then(() => { clearTimeout(timer); reject(new Error(`origo exited during start:\n${out}`)); });
  });
  return { url: `http://127.0.0.1:${port}`, pid: /** @type {number} */ (child.pid), child, exited, output: () => out };
}
