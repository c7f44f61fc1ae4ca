// The proxy's log records on disk until Origo acks them, so a killed proxy loses none: an
// append-only file of `+<record JSON>` and `-<ids JSON>` lines. Each line is written at once (a
// SIGKILL keeps what the kernel has); fsync runs at most every SPOOL_FSYNC_EVERY_MS (a power cut
// loses at most that much). On start the file is replayed (records minus acked ids) and compacted.
// Origo stores by id exactly once, so a record replayed after it was stored is acked as a duplicate.
import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** fsync the spool at most this often (ms): records arrive one per download, so a batch is a few lines. */
export const SPOOL_FSYNC_EVERY_MS = 200;

/** Rewrite the spool with only its pending records once it is this large (bytes) and still not empty. */
export const SPOOL_COMPACT_BYTES = 64 * 1024 * 1024;

/**
 * @typedef {{ id: string } & Record<string, unknown>} ProxyRecord
 */

/**
 * Reads a spool: the records added and not acked, in order. A torn last line (killed mid-write) is skipped.
 * @param {string} text
 * @returns {{ records: ProxyRecord[], badLines: number }}
 */
export function parseSpool(text) {
  /** @type {Map<string, ProxyRecord>} */
  const pending = new Map();
  let badLines = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      const value = JSON.parse(line.slice(1));
      if (line[0] === '+' && value && typeof value.id === 'string') pending.set(value.id, value);
      else if (line[0] === '-' && Array.isArray(value)) for (const id of value) pending.delete(id);
      else badLines++;
    } catch {
      badLines++;
    }
  }
  return { records: [...pending.values()], badLines };
}

/** @param {number} fd @param {string} text */
function writeAll(fd, text) {
  const buf = Buffer.from(text, 'utf8');
  for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off);
}

/** Replaces the spool with exactly `records`, atomically (a new file renamed over it). @param {string} path @param {ProxyRecord[]} records */
function rewrite(path, records) {
  const tmp = `${path}.tmp`;
  const tfd = openSync(tmp, 'w');
  writeAll(tfd, records.map((r) => `+${JSON.stringify(r)}\n`).join(''));
  fdatasyncSync(tfd);
  closeSync(tfd);
  renameSync(tmp, path);
}

/**
 * Opens (creating) the spool at `path`, returns what it held, and compacts it to those records.
 * @param {string} path
 * @param {{ warn: Function, info: Function }} logger
 */
export function openLogSpool(path, logger) {
  mkdirSync(dirname(path), { recursive: true });
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (/** @type {any} */ (err).code !== 'ENOENT') throw err;
  }
  const { records, badLines } = parseSpool(text);
  if (badLines) logger.warn('log spool: skipped unreadable lines', { path, badLines });
  if (records.length) logger.info('log spool: replaying records Origo has not acked', { path, records: records.length });
  rewrite(path, records);

  let fd = openSync(path, 'a');
  let dirty = false;
  let closed = false;
  const syncTimer = setInterval(() => {
    if (dirty && !closed) {
      dirty = false;
      fdatasyncSync(fd);
    }
  }, SPOOL_FSYNC_EVERY_MS);
  syncTimer.unref();

  /** @param {string} line */
  const append = (line) => {
    if (closed) return;
    writeAll(fd, line);
    dirty = true;
  };

  return {
    /** Records the file held when opened (not acked by Origo), oldest first. */
    records,
    /** @param {ProxyRecord} record */
    added(record) {
      append(`+${JSON.stringify(record)}\n`);
    },
    /**
     * Records left the queue (acked, rejected or dropped). With none left the file is emptied; when it
     * has grown large it is rewritten (to a new file, then renamed) with the records still queued.
     * @param {string[]} ids @param {number} left  records still queued @param {() => Iterable<ProxyRecord>} remaining
     */
    done(ids, left, remaining) {
      if (closed || ids.length === 0) return;
      if (left === 0) {
        ftruncateSync(fd, 0);
        dirty = true;
        return;
      }
      append(`-${JSON.stringify(ids)}\n`);
      if (fstatSync(fd).size > SPOOL_COMPACT_BYTES) {
        rewrite(path, [...remaining()]);
        closeSync(fd);
        fd = openSync(path, 'a');
      }
    },
    close() {
      if (closed) return;
      clearInterval(syncTimer);
      fdatasyncSync(fd);
      closed = true;
      closeSync(fd);
    },
  };
}
