import assert from 'node:assert/strict';
import { once } from 'node:events';
import https from 'node:https';
import { mkdtemp, rm, copyFile, writeFile, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { createWebServer, pickTlsFiles, readTlsPair } from '@mutp/tls';
import { makeTestCa, issueLeaf } from '@mutp/testkit/test-ca';
import { requireOrSkip } from '@mutp/testkit/require-tool';

const POLL_MS = 50; // fast polling for the test; production polls once a minute
const RELOAD_WAIT_MS = 5000;
const quiet = { info() {}, warn() {} };

/** The certificate the server presents now, as a fingerprint. @param {number} port @param {string} caPem */
function presented(port, caPem) {
  return new Promise((resolve, reject) => {
    const req = https.get({ host: '127.0.0.1', port, path: '/', servername: 'localhost', ca: caPem, agent: false }, (res) => {
      const fp = /** @type {import('node:tls').TLSSocket} */ (res.socket).getPeerCertificate().fingerprint256;
      res.resume();
      res.on('end', () => resolve(fp));
    });
    req.on('error', reject);
  });
}

describe('@mutp/tls: createWebServer', function () {
  this.timeout(30_000);
  let dir, ca, first, second;

  before(async function () {
    requireOrSkip(this, { commands: ['openssl'] });
    dir = await mkdtemp(path.join(os.tmpdir(), 'mutp-tls-'));
    ca = await makeTestCa(dir);
    first = await issueLeaf(ca, 'first', ['localhost', '127.0.0.1']);
    second = await issueLeaf(ca, 'second', ['localhost', '127.0.0.1']);
  });
  after(async () => { if (dir) await rm(dir, { recursive: true, force: true }); });

  it('without files: plain HTTP', () => {
    const { scheme, server } = createWebServer(() => {}, { tls: null, logger: quiet });
    assert.equal(scheme, 'http');
    assert.ok(!('setSecureContext' in server));
  });

  it('serves HTTPS with the files, and presents the new certificate after they change (no restart)', async () => {
    const live = path.join(dir, 'live');
    const files = { certFile: `${live}.pem`, keyFile: `${live}.key` };
    await copyFile(first.certFile, files.certFile);
    await copyFile(first.keyFile, files.keyFile);
    const { server, scheme, reloads } = createWebServer((_q, r) => r.end('ok'), { tls: files, logger: quiet, pollMs: POLL_MS });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
      assert.equal(scheme, 'https');
      const fpFirst = new X509Certificate(await readFile(first.certFile)).fingerprint256;
      const fpSecond = new X509Certificate(await readFile(second.certFile)).fingerprint256;
      assert.equal(await presented(port, ca.certPem), fpFirst);
      // a renewal: key first, then certificate (between the two the pair does not match: kept the old one)
      await copyFile(second.keyFile, files.keyFile);
      await new Promise((r) => setTimeout(r, POLL_MS * 4));
      assert.equal(await presented(port, ca.certPem), fpFirst, 'a mismatched pair mid-renewal must not replace the working one');
      await copyFile(second.certFile, files.certFile);
      const deadline = Date.now() + RELOAD_WAIT_MS;
      while (reloads() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, POLL_MS));
      assert.equal(await presented(port, ca.certPem), fpSecond);
    } finally {
      server.close();
    }
  });

  it('refuses a key that does not match the certificate, unreadable files, and one file without the other', async () => {
    assert.throws(() => readTlsPair({ certFile: first.certFile, keyFile: second.keyFile }), { code: 'ERR_TLS_FILES' });
    assert.throws(() => readTlsPair({ certFile: path.join(dir, 'nope.pem'), keyFile: first.keyFile }), { code: 'ERR_TLS_FILES' });
    const junk = path.join(dir, 'junk.pem');
    await writeFile(junk, 'not a certificate');
    assert.throws(() => readTlsPair({ certFile: junk, keyFile: first.keyFile }), { code: 'ERR_TLS_FILES' });
    assert.throws(() => pickTlsFiles(first.certFile, undefined), { code: 'ERR_BAD_CONFIG' });
    assert.equal(pickTlsFiles(undefined, ''), null);
  });
});
