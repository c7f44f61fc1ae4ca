// The proxies a `mutp get` remembers for the next process: where the file lives, what it keeps,
// and every file it must ignore.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KNOWN_PROXIES_FILE, KNOWN_PROXIES_MAX_AGE_MS, MAX_PRECONNECTS, cacheDir, readKnownProxies, rememberProxies } from '../src/cli/known-proxies.js';

const ORIGO = 'http://127.0.0.1:8080';
const NOW = Date.UTC(2026, 10, 30, 12);

describe('the proxies kept for the next `mutp get`', () => {
  /** @type {string} */
  let dir;
  /** @type {string[]} */
  let warnings;
  const logger = { warn: (/** @type {unknown[]} */ ...a) => { warnings.push(a.join(' ')); } };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'known-proxies-'));
    warnings = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lives in $MUTP_CACHE_DIR, else $XDG_CACHE_HOME/mutp, else ~/.cache/mutp; nowhere when MUTP_CACHE_DIR is empty or no home is known', () => {
    assert.equal(cacheDir({ MUTP_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x', HOME: '/h' }), '/c');
    assert.equal(cacheDir({ XDG_CACHE_HOME: '/x', HOME: '/h' }), '/x/mutp');
    assert.equal(cacheDir({ HOME: '/h' }), '/h/.cache/mutp');
    assert.equal(cacheDir({ MUTP_CACHE_DIR: '', HOME: '/h' }), null);
    assert.equal(cacheDir({}), null);
    assert.deepEqual(readKnownProxies(null, ORIGO, NOW), []);
  });

  it('keeps the http(s) URLs Origo listed, once each and at most MAX_PRECONNECTS, for that Origo and a day', async () => {
    const urls = Array.from({ length: MAX_PRECONNECTS + 2 }, (_, i) => `http://10.0.0.${i + 1}:8090`);
    await rememberProxies(join(dir, 'sub'), ORIGO, [urls[0], 'ftp://10.0.0.99/', urls[0], ...urls.slice(1)], NOW, logger);
    const kept = readKnownProxies(join(dir, 'sub'), ORIGO, NOW + 1000);
    assert.deepEqual(kept, urls.slice(0, MAX_PRECONNECTS));
    assert.deepEqual(readKnownProxies(join(dir, 'sub'), 'http://127.0.0.1:9090', NOW), [], 'another Origo\'s list');
    assert.deepEqual(readKnownProxies(join(dir, 'sub'), ORIGO, NOW + KNOWN_PROXIES_MAX_AGE_MS), [], 'a day old');
    assert.deepEqual(readKnownProxies(join(dir, 'sub'), ORIGO, NOW - 1000), [], 'from the future');
    assert.deepEqual(warnings, []);
    const text = readFileSync(join(dir, 'sub', KNOWN_PROXIES_FILE), 'utf8');
    assert.doesNotMatch(text, /ticket/);
  });

  it('ignores a file that is not its own: not JSON, too large, of another shape, with URLs that are not http(s)', () => {
    const file = join(dir, KNOWN_PROXIES_FILE);
    for (const text of ['{"origo":', JSON.stringify({ origo: ORIGO, at: NOW, urls: ['http://a:1', 'x'.repeat(20_000)] }),
      JSON.stringify({ origo: ORIGO, at: String(NOW), urls: ['http://a:1'] }), JSON.stringify({ origo: ORIGO, at: NOW, urls: 'http://a:1' }), 'null']) {
      writeFileSync(file, text);
      assert.deepEqual(readKnownProxies(dir, ORIGO, NOW), [], text.slice(0, 40));
    }
    writeFileSync(file, JSON.stringify({ origo: ORIGO, at: NOW, urls: ['javascript:alert(1)', 'file:///etc/passwd', 7, 'https://p.example:8443/base/'] }));
    assert.deepEqual(readKnownProxies(dir, ORIGO, NOW), ['https://p.example:8443/base/']);
  });

  it('a directory it cannot write is a warning, not a failure', async function () {
    if (process.getuid?.() === 0) {
      // root writes anywhere: a file where the directory should be is what it cannot pass
      writeFileSync(join(dir, 'blocked'), 'a file');
      await rememberProxies(join(dir, 'blocked'), ORIGO, ['http://a:1'], NOW, logger);
    } else {
      chmodSync(dir, 0o500);
      await rememberProxies(join(dir, 'sub'), ORIGO, ['http://a:1'], NOW, logger);
    }
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /cannot keep the proxies' addresses/);
  });
});
