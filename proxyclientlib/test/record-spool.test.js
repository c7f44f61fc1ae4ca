// The CLI's kept stats records (records/ in its cache directory): written whole, read back per
// Origo, removed once taken; files not its own are left alone, and the oldest go past the cap.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSpooled, removeSpooled, spoolRecords, SPOOL_MAX_FILE_BYTES, SPOOL_MAX_FILES, SPOOL_SUBDIR } from '../src/cli/record-spool.js';

const ORIGO = 'http://origo.test:8080';

describe('CLI: stats records kept for the next run', () => {
  /** @type {string} */ let dir;
  /** @type {string[]} */ let warnings;
  const logger = { warn: (/** @type {unknown[]} */ ...a) => { warnings.push(a.join(' ')); } };
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mutp-spool-'));
    warnings = [];
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('keeps records per Origo, reads them back in order, and removes the files once taken', async () => {
    await spoolRecords(dir, ORIGO, [{ id: 'a', netBytes: 1 }], 1000, logger);
    await spoolRecords(dir, 'http://other.test', [{ id: 'x' }], 1500, logger);
    await spoolRecords(dir, ORIGO, [{ id: 'b' }, { id: 'c' }], 2000, logger);
    assert.equal(await spoolRecords(dir, ORIGO, [], 3000, logger), null, 'nothing to keep: no file');
    const kept = await readSpooled(dir, ORIGO, logger);
    assert.deepEqual(kept.records.map((r) => r.id), ['a', 'b', 'c']);
    assert.equal(kept.records[0].netBytes, 1);
    await removeSpooled(kept.files);
    assert.deepEqual((await readSpooled(dir, ORIGO, logger)).records, []);
    assert.deepEqual((await readSpooled(dir, 'http://other.test', logger)).records.map((r) => r.id), ['x'], "another Origo's stay");
    assert.deepEqual(warnings, []);
  });

  it('leaves alone what is not its own: unreadable files, other shapes, records without an id', async () => {
    const folder = join(dir, SPOOL_SUBDIR);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, '1-1-a.json'), '{not json');
    await writeFile(join(folder, '2-1-b.json'), JSON.stringify({ origo: ORIGO, records: 'no' }));
    await writeFile(join(folder, '3-1-c.json'), JSON.stringify({ origo: ORIGO, records: [{ id: 'ok' }, { id: 7 }, null, 'x'] }));
    await writeFile(join(folder, 'notes.txt'), 'hello');
    const kept = await readSpooled(dir, ORIGO, logger);
    assert.deepEqual(kept.records.map((r) => r.id), ['ok']);
    assert.deepEqual(kept.files, [join(folder, '3-1-c.json')], 'only the file it read records from');
    assert.equal(warnings.length, 1, 'the unreadable file is named');
    assert.match(warnings[0], /1-1-a\.json/);
  });

  it(`keeps at most ${SPOOL_MAX_FILES} files: the oldest go, and a warning says so`, async () => {
    for (let i = 0; i < SPOOL_MAX_FILES + 2; i++) await spoolRecords(dir, ORIGO, [{ id: `r${i}` }], 1000 + i, logger);
    const names = await readdir(join(dir, SPOOL_SUBDIR));
    assert.equal(names.length, SPOOL_MAX_FILES);
    const ids = (await readSpooled(dir, ORIGO, logger)).records.map((r) => r.id);
    assert.equal(ids[0], 'r2', 'the two oldest were dropped');
    assert.equal(ids.at(-1), `r${SPOOL_MAX_FILES + 1}`);
    assert.equal(warnings.filter((w) => /dropped the 1 oldest/.test(w)).length, 2);
  });

  it(`splits many records into files of at most ${SPOOL_MAX_FILE_BYTES} B; a record too large for one is left out, and said`, async () => {
    const big = 'x'.repeat(Math.floor(SPOOL_MAX_FILE_BYTES / 3));
    const records = [1, 2, 3, 4, 5].map((i) => ({ id: `r${i}`, big }));
    await spoolRecords(dir, ORIGO, [...records, { id: 'huge', big: big + big + big }], 1, logger);
    const names = await readdir(join(dir, SPOOL_SUBDIR));
    assert.equal(names.length, 3, '2 + 2 + 1 records');
    for (const n of names) assert.ok((await stat(join(dir, SPOOL_SUBDIR, n))).size <= SPOOL_MAX_FILE_BYTES, n);
    assert.deepEqual((await readSpooled(dir, ORIGO, logger)).records.map((r) => r.id), ['r1', 'r2', 'r3', 'r4', 'r5']);
    assert.match(warnings.join('\n'), /too large to keep \(huge\)/);
  });

  it('a directory it cannot write is a warning, and nothing is kept', async () => {
    await writeFile(join(dir, 'file'), 'x');
    assert.equal(await spoolRecords(join(dir, 'file'), ORIGO, [{ id: 'a' }], 1, logger), null);
    assert.match(warnings[0], /cannot keep 1 stats record/);
  });
});
