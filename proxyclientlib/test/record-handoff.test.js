// How a get's stats records reach Origo (record-handoff.js), with a stand-in client and Origo:
// kept first and handed off, the earlier kept ones removed only once Origo acknowledged them, and a
// wait for the ack only where nothing can be kept.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRecordHandoff } from '../src/cli/record-handoff.js';
import { readSpooled, spoolRecords } from '../src/cli/record-spool.js';

const ORIGO = 'http://origo.test:8080';

/** A client whose queue holds `pending`; flushLogs answers `taken`. @param {{id: string}[]} pending @param {boolean} taken */
function standInClient(pending, taken) {
  const calls = /** @type {string[]} */ ([]);
  return {
    calls,
    logRecords: () => pending,
    beaconLogs: async () => { calls.push('beacon'); },
    flushLogs: async () => { calls.push('flush'); return taken; },
  };
}

/** Origo's POST /api/logs/v2 answer: every record stored, or `status` with no ack. @param {number} status @param {string[]} seen */
function standInOrigo(status, seen) {
  return /** @type {typeof fetch} */ (async (_url, init) => {
    const ids = JSON.parse(String(init?.body)).map((/** @type {{id: string}} */ r) => r.id);
    seen.push(...ids);
    return new Response(status === 200 ? JSON.stringify({ stored: [], duplicates: ids, rejected: [] }) : '{}', { status, headers: { 'content-type': 'application/json' } });
  });
}

describe('CLI: a get\'s records on their way to Origo', () => {
  /** @type {string} */ let dir;
  const quiet = { warn() {} };
  beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'mutp-handoff-')); });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('keeps its own records and hands them off; removes the earlier kept ones once Origo acknowledged them', async () => {
    await spoolRecords(dir, ORIGO, [{ id: 'earlier' }], 1, quiet);
    const seen = /** @type {string[]} */ ([]);
    const handedOff = /** @type {string[]} */ ([]);
    const records = createRecordHandoff({ dir, origo: ORIGO, fetch: standInOrigo(200, seen), handOff: async (url, body) => { handedOff.push(url, body); return true; }, logger: quiet });
    records.sendKept();
    const client = standInClient([{ id: 'own' }], true);
    assert.equal(await records.finish(client), null);
    assert.deepEqual(seen, ['earlier'], 'the kept record went to Origo again');
    assert.deepEqual(client.calls, ['beacon'], 'handed off, no wait for an ack');
    assert.deepEqual((await readSpooled(dir, ORIGO, quiet)).records.map((r) => r.id), ['own'], 'the earlier one acknowledged and gone; its own kept');
  });

  it('earlier kept records Origo did not acknowledge stay kept', async () => {
    await spoolRecords(dir, ORIGO, [{ id: 'earlier' }], 1, quiet);
    const records = createRecordHandoff({ dir, origo: ORIGO, fetch: standInOrigo(503, []), handOff: async () => true, logger: quiet });
    records.sendKept();
    assert.equal(await records.finish(standInClient([{ id: 'own' }], true)), null);
    assert.deepEqual((await readSpooled(dir, ORIGO, quiet)).records.map((r) => r.id).sort(), ['earlier', 'own']);
  });

  it('where nothing can be kept it waits for the ack, and says when none came', async () => {
    await writeFile(join(dir, 'file'), 'x');
    const unwritable = createRecordHandoff({ dir: join(dir, 'file'), origo: ORIGO, fetch: standInOrigo(200, []), handOff: async () => true, logger: quiet });
    const client = standInClient([{ id: 'own' }], false);
    assert.match(String(await unwritable.finish(client)), /did not take 1 stats record\(s\) within 3000 ms, and they could not be kept/);
    assert.deepEqual(client.calls, ['flush']);
    const nowhere = createRecordHandoff({ dir: null, origo: ORIGO, fetch: standInOrigo(200, []), handOff: async () => true, logger: quiet });
    assert.deepEqual(nowhere.senderOptions, {}, 'its records go as any client\'s');
    assert.equal(await nowhere.finish(standInClient([], true)), null);
  });

  it('a hand-off that did not leave is said, and the records stay kept', async () => {
    const records = createRecordHandoff({ dir, origo: ORIGO, fetch: standInOrigo(200, []), handOff: async () => false, logger: quiet });
    const client = standInClient([{ id: 'own' }], true);
    client.beaconLogs = async () => { records.senderOptions.sendBeacon?.(`${ORIGO}/api/logs/v2`, '[]'); };
    assert.match(String(await records.finish(client)), /did not leave for Origo; kept in/);
    assert.deepEqual((await readSpooled(dir, ORIGO, quiet)).records.map((r) => r.id), ['own']);
  });
});
