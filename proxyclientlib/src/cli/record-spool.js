// A get's log records Origo has not acknowledged, kept in files under the user's cache
// directory (records/), so that none is lost: a get exits without waiting for Origo's ack, and
// a later `mutp get` for the same Origo sends them again (record-handoff.js). A process writes them in files of at most
// SPOOL_MAX_FILE_BYTES, each written whole and renamed. Origo stores
// records by id exactly once, so a record sent twice (two processes at once) is acked as a
// duplicate. A file that is unreadable or not ours is left alone (and not sent).
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const SPOOL_SUBDIR = 'records';
export const SPOOL_MAX_FILES = 100; // past it the oldest go (a warning says so): the spool stays under 100 × SPOOL_MAX_FILE_BYTES
export const SPOOL_MAX_FILE_BYTES = 8 * 1024 * 1024; // a coded record with its packet log is ~150 KB: a file holds dozens; a larger one is not ours
const SPOOL_SUFFIX = '.json';

/**
 * @typedef {{ id: string } & Record<string, unknown>} SpooledRecord
 * @typedef {{ warn: (...a: unknown[]) => void }} Logger
 */

/**
 * Keep `records` (for Origo `origo`) in new files. Failures are warnings: those records are then
 * lost, as they were before there was a spool; so is a single record larger than a file may be.
 * @param {string} dir  the cache directory @param {string} origo @param {SpooledRecord[]} records
 * @param {number} now  ms since the epoch @param {Logger} logger
 * @returns {Promise<string | null>} the folder they were kept in, or null when none was kept
 */
export async function spoolRecords(dir, origo, records, now, logger) {
  if (records.length === 0) return null;
  const folder = join(dir, SPOOL_SUBDIR);
  const head = JSON.stringify({ origo, records: [] });
  /** @type {string[][]} */
  const files = [[]];
  let bytes = head.length;
  for (const r of records) {
    const json = JSON.stringify(r);
    if (head.length + json.length + 1 > SPOOL_MAX_FILE_BYTES) {
      logger.warn(`a stats record of ${json.length} B is too large to keep (${r.id})`);
      continue;
    }
    if (bytes + json.length + 1 > SPOOL_MAX_FILE_BYTES) {
      files.push([]);
      bytes = head.length;
    }
    /** @type {string[]} */ (files.at(-1)).push(json);
    bytes += json.length + 1;
  }
  const stem = `${now}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  try {
    await mkdir(folder, { recursive: true });
    await dropOldest(folder, SPOOL_MAX_FILES - files.length, logger);
    for (const [i, jsons] of files.entries()) {
      if (jsons.length === 0) continue;
      const file = join(folder, `${stem}-${i}${SPOOL_SUFFIX}`);
      await writeFile(`${file}.tmp`, `{"origo":${JSON.stringify(origo)},"records":[${jsons.join(',')}]}`);
      await rename(`${file}.tmp`, file);
    }
    return folder;
  } catch (err) {
    logger.warn(`cannot keep ${records.length} stats record(s) in ${folder}: ${/** @type {Error} */ (err).message}`);
    return null;
  }
}

/**
 * The records kept for Origo `origo`, with the files they came from (to remove once Origo took them).
 * @param {string} dir @param {string} origo @param {Logger} logger
 * @returns {Promise<{ records: SpooledRecord[], files: string[] }>}
 */
export async function readSpooled(dir, origo, logger) {
  const folder = join(dir, SPOOL_SUBDIR);
  /** @type {SpooledRecord[]} */
  const records = [];
  /** @type {string[]} */
  const files = [];
  for (const name of await spoolFiles(folder)) {
    const file = join(folder, name);
    try {
      if ((await stat(file)).size > SPOOL_MAX_FILE_BYTES) continue;
      const data = JSON.parse(await readFile(file, 'utf8'));
      if (!data || data.origo !== origo || !Array.isArray(data.records)) continue;
      const ok = data.records.filter((/** @type {any} */ r) => r && typeof r === 'object' && typeof r.id === 'string');
      records.push(...ok);
      files.push(file);
    } catch (err) {
      logger.warn(`ignored the kept stats records in ${file}: ${/** @type {Error} */ (err).message}`);
    }
  }
  return { records, files };
}

/** Remove spool files (Origo took their records); one already gone is fine. @param {string[]} files */
export async function removeSpooled(files) {
  await Promise.all(files.map((f) => unlink(f).catch(() => {})));
}

/** The spool's files, oldest first (names start with their time, and end with their place among a process's files). @param {string} folder */
async function spoolFiles(folder) {
  try {
    return (await readdir(folder)).filter((n) => n.endsWith(SPOOL_SUFFIX)).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  } catch {
    return [];
  }
}

/** Keep at most `keep` files, removing the oldest. @param {string} folder @param {number} keep @param {Logger} logger */
async function dropOldest(folder, keep, logger) {
  const names = await spoolFiles(folder);
  const extra = names.slice(0, Math.max(0, names.length - keep));
  if (extra.length === 0) return;
  logger.warn(`dropped the ${extra.length} oldest file(s) of stats records Origo never took (${folder} keeps ${SPOOL_MAX_FILES})`);
  await removeSpooled(extra.map((n) => join(folder, n)));
}
