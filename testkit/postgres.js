// Starts a throw-away PostgreSQL for tests and benches: a fresh data directory in /tmp, run by an
// unprivileged user (PostgreSQL refuses to run as root), listening on a free 127.0.0.1 port with its
// socket in the data directory, stopped and deleted by stop().
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './origo-process.js';
import { skipOrFail } from './require-tool.js';
import { codedError } from '@mutp/common/errors';

/** Where Debian puts the server binaries: /usr/lib/postgresql/<major>/bin. */
const DEBIAN_PG_ROOT = '/usr/lib/postgresql';
/** The unprivileged user the server runs as when the tests run as root. */
const RUN_AS = 'nobody';
/** The database role and database the tests use. */
const ROLE = 'mutp';
/** pg_ctl's wait for start-up and shutdown, s: a busy shared machine can be slow. */
const PG_CTL_TIMEOUT_S = 60;

/** The directory holding initdb/pg_ctl/postgres, or null when PostgreSQL is not installed. @returns {string | null} */
export function postgresBinDir() {
  if (existsSync(DEBIAN_PG_ROOT)) {
    const majors = readdirSync(DEBIAN_PG_ROOT).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    for (const v of majors) if (existsSync(join(DEBIAN_PG_ROOT, v, 'bin', 'pg_ctl'))) return join(DEBIAN_PG_ROOT, v, 'bin');
  }
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return existsSync(join(dir, 'pg_ctl')) ? dir : null;
  } catch {
    return null;
  }
}

/**
 * @param {{ durable?: boolean }} [opts]  durable: keep fsync on (benches); tests turn it off, they never crash the host
 * @returns {Promise<{ url: string, stop: () => Promise<void> }>}
 */
export async function startPostgres({ durable = false } = {}) {
  const bin = postgresBinDir();
  if (!bin) throw codedError('ERR_NO_POSTGRES', 'PostgreSQL is not installed (apt-get install postgresql)');
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const dir = await mkdtemp(join(tmpdir(), 'mutp-pg-'));
  const data = join(dir, 'data');
  /** @param {string} tool @param {string[]} args */
  const run = (tool, args) => execFileSync(root ? 'runuser' : join(bin, tool), root ? ['-u', RUN_AS, '--', join(bin, tool), ...args] : args,
    { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  if (root) {
    const uid = Number(execFileSync('id', ['-u', RUN_AS], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', RUN_AS], { encoding: 'utf8' }));
    await chown(dir, uid, gid);
  }
  await chmod(dir, 0o700);
  const port = await freePort();
  const settings = ['-c', 'listen_addresses=127.0.0.1', '-c', `port=${port}`, '-c', `unix_socket_directories=${dir}`,
    '-c', 'max_connections=200', ...(durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'])];
  let started = false;
  try {
    run('initdb', ['-D', data, '-U', ROLE, '-A', 'trust', '-E', 'UTF8', '--no-sync', '--locale=C']);
    run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', String(PG_CTL_TIMEOUT_S), '-o', settings.map((a) => `'${a}'`).join(' '), 'start']);
    started = true;
    run('createdb', ['-h', dir, '-p', String(port), '-U', ROLE, ROLE]);
  } catch (err) {
    if (started) try { run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']); } catch { /* already down */ }
    await rm(dir, { recursive: true, force: true });
    const stderr = /** @type {any} */ (err).stderr?.toString() ?? '';
    throw codedError('ERR_NO_POSTGRES', `cannot start PostgreSQL: ${err.message} ${stderr}`, { cause: err });
  }
  let stopping = null;
  const stop = () => (stopping ??= (async () => {
    try { run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', String(PG_CTL_TIMEOUT_S), 'stop']); } catch { /* already down */ }
    await rm(dir, { recursive: true, force: true });
  })());
  return { url: `postgres://${ROLE}@127.0.0.1:${port}/${ROLE}`, stop };
}

/**
 * Mocha: starts one PostgreSQL for a describe block (before/after hooks), or skips the block with a clear
 * message when PostgreSQL is not installed; under CI=true that fails instead (.ci/run installs it).
 * @returns {{ url: string, freshDatabase: () => Promise<string> }}  read the fields inside tests, after `before` ran
 */
export function usePostgres() {
  /** @type {{ url: string, stop: () => Promise<void> } | null} */
  let server = null;
  let databases = 0;
  const handle = {
    url: '',
    /** A new empty database on the server, so each test starts from nothing. @returns {Promise<string>} its URL */
    async freshDatabase() {
      const name = `t${++databases}`;
      const { default: pg } = await import('pg');
      const admin = new pg.Client(handle.url);
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return handle.url.replace(/\/[^/]*$/, `/${name}`);
    },
  };
  before(async function () {
    this.timeout(120_000);
    if (!postgresBinDir()) skipOrFail(this, 'PostgreSQL is not installed (apt-get install postgresql)');
    server = await startPostgres();
    handle.url = server.url;
  });
  after(async function () {
    this.timeout(60_000);
    await server?.stop();
  });
  return handle;
}
