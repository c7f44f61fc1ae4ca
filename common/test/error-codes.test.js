// The catalogue of error codes is complete and has no stale entries.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES } from '@mutp/common/error-codes';
import { codedError } from '@mutp/common/errors';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SKIP_DIRS = new Set(['node_modules', 'dist', 'vendor', '.git', 'test-artifacts']);
const PLACEHOLDERS = new Set(['ERR_CODE']); // the "`ERR_CODE: text`" reason format named in comments

/** @param {string} dir @param {boolean} withTests @returns {Generator<string>} */
function* sources(dir, withTests) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP_DIRS.has(e.name) || (!withTests && e.name === 'test')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sources(p, withTests);
    else if (e.name.endsWith('.js')) yield p;
  }
}

/** Codes in string literals ('ERR_X', "ERR_X", `ERR_X: …`) of non-test files → first file. */
function codesInSources() {
  /** @type {Map<string, string>} */
  const found = new Map();
  for (const f of sources(ROOT, false)) {
    if (f.endsWith('error-codes.js')) continue;
    for (const m of readFileSync(f, 'utf8').matchAll(/['"`](ERR_[A-Z0-9_]*[A-Z0-9])\b/g)) {
      if (!found.has(m[1]) && !PLACEHOLDERS.has(m[1])) found.set(m[1], f.slice(ROOT.length));
    }
  }
  return found;
}

describe('error code catalogue (@mutp/common/error-codes)', () => {
  it('lists every code a source file uses, each with a one-line meaning', () => {
    const missing = [...codesInSources()].filter(([code]) => !Object.hasOwn(ERROR_CODES, code));
    assert.deepEqual(missing.map(([code, file]) => `${code} (${file})`), []);
    for (const [code, meaning] of Object.entries(ERROR_CODES)) {
      assert.match(code, /^ERR_[A-Z0-9_]+$/);
      assert.ok(meaning.length > 10 && !meaning.includes('\n'), code);
    }
  });

  it('lists no code that nothing mentions any more', () => {
    const all = new Set();
    for (const f of sources(ROOT, true)) {
      if (f.endsWith('error-codes.js')) continue;
      for (const m of readFileSync(f, 'utf8').matchAll(/ERR_[A-Z0-9_]*[A-Z0-9]/g)) all.add(m[0]);
    }
    assert.deepEqual(Object.keys(ERROR_CODES).filter((c) => !all.has(c)), []);
  });
});

describe('codedError (@mutp/common/errors)', () => {
  it('is an Error with the code and the extra fields, and the code wins over extra.code', () => {
    const cause = new Error('inner');
    const err = codedError('ERR_BAD_OPTION', 'bad n', { status: 400, cause, code: 'ERR_OTHER' });
    assert.ok(err instanceof Error);
    assert.equal(err.message, 'bad n');
    assert.equal(err.code, 'ERR_BAD_OPTION');
    assert.equal(err.status, 400);
    assert.equal(err.cause, cause);
    assert.equal(codedError('ERR_X', 'm').code, 'ERR_X');
  });
});
