// A throwaway certificate authority for tests, made with Debian's openssl: a CA, and leaf
// certificates it signs for given DNS names and IP addresses. Nothing here is ever trusted
// outside the test that made it (a browser profile, NODE_EXTRA_CA_CERTS of a child process, or
// the `ca` option of one request).
import { execFile } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const VALID_DAYS = 7; // a test run lasts minutes; a short life keeps a leaked key harmless
const KEY_ALG = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1']; // fast to make, accepted by every browser

/**
 * @typedef {{ dir: string, certFile: string, keyFile: string, certPem: string, spkiSha256: string }} TestCa
 * @typedef {{ certFile: string, keyFile: string, chainFile: string, spkiSha256: string }} TestLeaf
 *   certFile: the leaf and the CA (what a server sends); chainFile: the same (kept for clarity of use)
 */

/**
 * @param {string} dir  an empty temporary directory of the caller
 * @returns {Promise<TestCa>}
 */
export async function makeTestCa(dir) {
  const certFile = path.join(dir, 'ca.pem');
  const keyFile = path.join(dir, 'ca.key');
  await run('openssl', ['req', '-x509', ...KEY_ALG, '-nodes', '-keyout', keyFile, '-out', certFile, '-days', String(VALID_DAYS),
    '-subj', '/CN=MUTP test CA (throwaway)', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  const certPem = await readFile(certFile, 'utf8');
  return { dir, certFile, keyFile, certPem, spkiSha256: spkiHash(certPem) };
}

/**
 * A server certificate for `names` (DNS names or IP addresses), signed by `ca`.
 * @param {TestCa} ca
 * @param {string} name  file stem
 * @param {string[]} names
 * @returns {Promise<TestLeaf>}
 */
export async function issueLeaf(ca, name, names) {
  const keyFile = path.join(ca.dir, `${name}.key`);
  const csrFile = path.join(ca.dir, `${name}.csr`);
  const leafFile = path.join(ca.dir, `${name}.leaf.pem`);
  const certFile = path.join(ca.dir, `${name}.pem`);
  const extFile = path.join(ca.dir, `${name}.ext`);
  const san = names.map((n) => (/^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  await writeFile(extFile, `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n`);
  await run('openssl', ['req', ...KEY_ALG, '-nodes', '-keyout', keyFile, '-out', csrFile, '-subj', `/CN=${names[0]}`]);
  await run('openssl', ['x509', '-req', '-in', csrFile, '-CA', ca.certFile, '-CAkey', ca.keyFile, '-CAcreateserial',
    '-out', leafFile, '-days', String(VALID_DAYS), '-extfile', extFile]);
  const leafPem = await readFile(leafFile, 'utf8');
  await writeFile(certFile, leafPem + ca.certPem);
  return { certFile, keyFile, chainFile: certFile, spkiSha256: spkiHash(leafPem) };
}

/**
 * Base64 SHA-256 of a certificate's SubjectPublicKeyInfo: what Chromium's
 * --ignore-certificate-errors-spki-list takes to trust exactly that key.
 * @param {string} pem
 */
export function spkiHash(pem) {
  const der = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64');
}
