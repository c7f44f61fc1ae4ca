// Origo's last answer kept for the next `mutp get` (kept-listing.js): taken once, young, for the
// same Origo and question, every entry checked; the user's own file.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEPT_LISTING_FILE, KEPT_LISTING_MAX_AGE_MS, keepListing, takeKeptListing } from '../src/cli/kept-listing.js';

const ORIGO = 'http://127.0.0.1:8080';
const NOW = Date.UTC(2026, 11, 4, 5);
const QUERY = { n: 6, lat: null, lon: null };
const PROXIES = [
  { id: 'p1', url: 'http://10.0.0.1:8090', location: null, uploadRateBps: 917504, activeSessions: 0, ticket: 't1.abc.def' },
  { id: 'p2', url: 'http://10.0.0.2:8090', location: { lat: 47.5, lon: 19 }, uploadRateBps: null, activeSessions: 2, ticket: 't1.ghi.jkl' },
];

describe('Origo\'s listing kept for the next `mutp get`', () => {
  /** @type {string} */
  let dir;
  /** @type {string[]} */
  let warnings;
  const logger = { warn: (/** @type {unknown[]} */ ...a) => { warnings.push(a.join(' ')); } };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kept-listing-'));
    warnings = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is taken once, with its client id and every entry as Origo gave it; the file is the user\'s alone', async () => {
    await keepListing(dir, ORIGO, QUERY, 'client-7', PROXIES, NOW, logger);
    assert.equal(statSync(join(dir, KEPT_LISTING_FILE)).mode & 0o777, 0o600);
    assert.deepEqual(takeKeptListing(dir, ORIGO, QUERY, NOW + 1000), { clientId: 'client-7', proxies: PROXIES });
    assert.equal(takeKeptListing(dir, ORIGO, QUERY, NOW + 1000), null, 'taken: a second get asks Origo');
    await keepListing(dir, ORIGO, QUERY, 'client-8', PROXIES, NOW, logger);
    assert.deepEqual(takeKeptListing(dir, ORIGO, QUERY, NOW + 60_000), { clientId: 'client-8', proxies: PROXIES }, 'a get a minute later goes to the proxies at once');
    assert.deepEqual(readdirSync(dir), [], 'nothing left behind');
    assert.deepEqual(warnings, []);
  });

  it(`is ignored when older than ${KEPT_LISTING_MAX_AGE_MS} ms, from the future, for another Origo or question, or malformed`, async () => {
    /** @type {[string, (f: string) => Promise<void> | void, number, typeof QUERY][]} */
    const cases = [
      ['old', () => keepListing(dir, ORIGO, QUERY, 'c', PROXIES, NOW - KEPT_LISTING_MAX_AGE_MS, logger), NOW, QUERY],
      ['future', () => keepListing(dir, ORIGO, QUERY, 'c', PROXIES, NOW + 5000, logger), NOW, QUERY],
      ['another Origo', () => keepListing(dir, 'http://other:8080', QUERY, 'c', PROXIES, NOW, logger), NOW, QUERY],
      ['another n', () => keepListing(dir, ORIGO, QUERY, 'c', PROXIES, NOW, logger), NOW, { ...QUERY, n: 3 }],
      ['another place', () => keepListing(dir, ORIGO, QUERY, 'c', PROXIES, NOW, logger), NOW, { n: 6, lat: 1, lon: 2 }],
      ['a bad client id', () => keepListing(dir, ORIGO, QUERY, 'no spaces', PROXIES, NOW, logger), NOW, QUERY],
      ['a bad entry', () => keepListing(dir, ORIGO, QUERY, 'c', [...PROXIES, { ...PROXIES[0], url: 'file:///etc/passwd' }], NOW, logger), NOW, QUERY],
      ['no entries', (f) => writeFileSync(f, JSON.stringify({ origo: ORIGO, at: NOW, query: QUERY, clientId: 'c', proxies: [] })), NOW, QUERY],
      ['not JSON', (f) => writeFileSync(f, '{'), NOW, QUERY],
      ['too large', (f) => writeFileSync(f, ' '.repeat(70_000)), NOW, QUERY],
    ];
    for (const [name, write, now, query] of cases) {
      await write(join(dir, KEPT_LISTING_FILE));
      assert.equal(takeKeptListing(dir, ORIGO, query, now), null, name);
      assert.equal(existsSync(join(dir, KEPT_LISTING_FILE)), false, `${name}: taken all the same`);
    }
    assert.equal(takeKeptListing(null, ORIGO, QUERY, NOW), null, 'no cache directory');
  });

  it('a directory it cannot write is a warning', async () => {
    writeFileSync(join(dir, 'file'), 'x');
    await keepListing(join(dir, 'file'), ORIGO, QUERY, 'c', PROXIES, NOW, logger);
    assert.match(warnings[0], /cannot keep Origo's proxy list/);
  });
});
