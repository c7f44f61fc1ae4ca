// Origo and the proxies over HTTPS, as a deployment runs them: the inner run
// (tls-fleet/tls-fleet.inner.js) trusts a throwaway test CA through NODE_EXTRA_CA_CERTS, which
// Node reads only at start, so it is a child process; everything stays on 127.0.0.1.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { makeTestCa, issueLeaf } from '@mutp/testkit/test-ca';
import { requireOrSkip } from '@mutp/testkit/require-tool';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const INNER = path.join(ROOT, 'test', 'integration', 'tls-fleet', 'tls-fleet.inner.js');
const MOCHA = path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
const INNER_TIMEOUT_MS = 120_000;

describe('integration: Origo and proxies over HTTPS (test CA)', function () {
  this.timeout(INNER_TIMEOUT_MS + 20_000);
  let dir = '';
  before(function () { requireOrSkip(this, { commands: ['openssl'] }); });
  after(async () => { if (dir) await rm(dir, { recursive: true, force: true }); });

  it('every mode downloads byte-exact through an HTTPS Origo and HTTPS proxies; nothing answers plain HTTP', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'mutp-tls-fleet-'));
    const ca = await makeTestCa(dir);
    const leaf = await issueLeaf(ca, 'fleet', ['localhost', '127.0.0.1']);
    const res = await run(process.execPath, [MOCHA, '--no-config', '--reporter', 'dot', '--timeout', '60000', '--exit', INNER], {
      cwd: ROOT, timeout: INNER_TIMEOUT_MS, maxBuffer: 8 << 20,
      env: { ...process.env, NODE_EXTRA_CA_CERTS: ca.certFile, MUTP_TLS_CERT: leaf.certFile, MUTP_TLS_KEY: leaf.keyFile },
    }).catch((err) => err);
    assert.equal(res.code ?? 0, 0, `inner run failed:\n${res.stdout}\n${res.stderr}`);
  });
});
