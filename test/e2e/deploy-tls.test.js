// The extension as a real deployment sees it (docs/extension-testing.md, "Deployment tests"):
// an HTTPS page, Origo and proxies on public-looking TEST-NET-2 addresses with names, in a
// network namespace of their own, and a throwaway CA each browser profile trusts. Chromium and
// Firefox play through the HTTPS fleet in all four modes, byte-exact; in Chromium a plain-HTTP
// fleet serves too (the fleet client's offscreen document is not under the page's mixed-content
// rule; the frame it replaced was), and the options page warns. The loopback e2e tests
// (chromium.test.js, firefox.test.js) stay for speed but cannot see this: browsers trust
// http://127.0.0.1. The whole scenario runs inside the namespace: deploy-netns/deploy.inner.js.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { requireOrSkip } from '@mutp/testkit/require-tool';
import { makeTestCa, issueLeaf } from '@mutp/testkit/test-ca';
import { testVideo } from '@mutp/testkit/e2e/helpers/video';
import { REPO } from '@mutp/testkit/e2e/helpers/scenario';
import { createHostNamespace, runInNamespace, deleteNamespace, namespaceHosts } from '@mutp/testkit/e2e/helpers/netns-host';

const INNER = path.join(REPO, 'test', 'e2e', 'deploy-netns', 'deploy.inner.js');
const MOCHA = path.join(REPO, 'node_modules', 'mocha', 'bin', 'mocha.js');
const INNER_TIMEOUT_MS = 420_000; // two browsers, eight playbacks, one build on a busy 2-core box; a wedged browser must not hang CI
const INNER_TEST_TIMEOUT_MS = 150_000;
const NS = 'mutp-tlse2e'; // not the Firefox test's mutp-ffe2e, nor the testbed's

// TEST-NET-2 (RFC 5737): public as far as browsers can tell (no Local Network Access prompt),
// routed nowhere, and only inside this namespace. The site is on a private address instead:
// the proxies' SSRF guard refuses documentation ranges as origins even with --allow-private, and
// stays as it is; the site's name resolves to that private address (10.227.8.0/24: not the
// testbed's 10.219/16, testkit/netns.js's 10.213.7/24 nor the Firefox test's 10.226.6/24).
const DEPLOY = {
  names: {
    'origo.test': '198.51.100.2', // the HTTPS fleet
    'p1.fleet.test': '198.51.100.11', 'p2.fleet.test': '198.51.100.12', 'p3.fleet.test': '198.51.100.13',
    'origo-plain.test': '198.51.100.3', 'q1.fleet.test': '198.51.100.21', // all plain HTTP
    'origo-mixed.test': '198.51.100.4', 'r1.fleet.test': '198.51.100.31', // HTTPS Origo, plain-HTTP proxy
    'site.test': '10.227.8.3',
  },
};
const TLS_NAMES = ['origo.test', 'p1.fleet.test', 'p2.fleet.test', 'p3.fleet.test', 'origo-mixed.test', 'site.test'];

describe('extension e2e: a deployment (HTTPS page, TLS fleet on TEST-NET addresses, in a network namespace)', function () {
  this.timeout(INNER_TIMEOUT_MS + 60_000);
  let dir = '';

  before(async function () {
    requireOrSkip(this, { commands: ['chromium', 'firefox-esr', 'ffmpeg', 'ip', 'openssl', 'certutil'], root: true });
    await testVideo(); // made (and cached) out here: the inner run finds it ready
  });
  after(async () => {
    deleteNamespace(NS);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('Chromium and Firefox play through the HTTPS fleet in every mode; a plain-HTTP fleet serves Chromium too (offscreen document), with a warning', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'mutp-deploy-'));
    const ca = await makeTestCa(dir);
    const leaf = await issueLeaf(ca, 'deploy', TLS_NAMES);
    // Firefox trusts the CA through its profile's own NSS store (cert9.db), as an administrator would add one
    const ffProfile = path.join(dir, 'firefox-profile');
    await mkdir(ffProfile);
    execFileSync('certutil', ['-N', '-d', `sql:${ffProfile}`, '--empty-password']);
    execFileSync('certutil', ['-A', '-n', 'MUTP test CA', '-t', 'C,,', '-i', ca.certFile, '-d', `sql:${ffProfile}`]);
    const addrs = [...new Set(Object.values(DEPLOY.names))];
    const net = createHostNamespace(NS, addrs[0], addrs.slice(1));
    const removeHosts = namespaceHosts(NS, DEPLOY.names);
    try {
      const res = await runInNamespace(net.ns, [
        process.execPath, MOCHA, '--no-config', '--reporter', 'spec', '--timeout', String(INNER_TEST_TIMEOUT_MS), '--exit', INNER,
      ], {
        timeoutMs: INNER_TIMEOUT_MS,
        env: {
          ...process.env,
          NODE_EXTRA_CA_CERTS: ca.certFile, // the fleet's own links (proxy → Origo, proxy → site) trust the test CA
          MUTP_DEPLOY: JSON.stringify({ names: DEPLOY.names, certFile: leaf.certFile, keyFile: leaf.keyFile, spki: [leaf.spkiSha256, ca.spkiSha256], ffProfile }),
        },
      });
      assert.equal(res.code, 0, `the inner deployment run failed (exit ${res.code}, signal ${res.signal}):\n${res.tail}`);
    } finally {
      removeHosts();
      net.destroy();
    }
  });
});
