import assert from 'node:assert/strict';
import { checkAddress, ipLiteralOf } from '../src/ssrf/address-policy.js';
import { createHostAllowlist, parseHostPattern } from '../src/ssrf/host-allowlist.js';
import { checkTargetUrl } from '../src/ssrf/target-url.js';
import { createGuardedLookup } from '../src/origin/guarded-lookup.js';

describe('SSRF address policy', () => {
  const refusedAlways = ['0.0.0.0', '::', '169.254.169.254', 'fd00:ec2::254', '224.0.0.1', 'ff02::1',
    '255.255.255.255', '::ffff:169.254.169.254', '::ffff:0.0.0.0'];
  const refusedUnlessPrivate = ['127.0.0.1', '127.8.9.1', '::1', '::ffff:127.0.0.1', '10.0.0.1', '172.16.5.4',
    '192.168.1.1', '169.254.10.10', 'fe80::1', 'fc00::1', 'fd12:3456::1', '100.64.0.1', '::ffff:10.0.0.1'];
  const allowed = ['8.8.8.8', '142.250.0.1', '2a00:1450:4001::1', '::ffff:8.8.8.8'];

  it('refuses loopback, private, link-local, unique-local, CGNAT by default', () => {
    for (const a of refusedUnlessPrivate) assert.equal(checkAddress(a).ok, false, a);
  });
  it('lets allowPrivate open exactly those classes', () => {
    for (const a of refusedUnlessPrivate) assert.equal(checkAddress(a, { allowPrivate: true }).ok, true, a);
  });
  it('never allows unspecified, multicast, broadcast or metadata addresses', () => {
    for (const a of refusedAlways) {
      assert.equal(checkAddress(a).ok, false, a);
      assert.equal(checkAddress(a, { allowPrivate: true }).ok, false, a);
    }
  });
  it('allows public unicast', () => {
    for (const a of allowed) assert.equal(checkAddress(a).ok, true, a);
  });
  it('reads old IPv4 spellings as addresses, not names', () => {
    assert.equal(ipLiteralOf('2130706433'), '127.0.0.1');
    assert.equal(ipLiteralOf('0x7f.1'), '127.0.0.1');
    assert.equal(ipLiteralOf('[::1]'), '::1');
    assert.equal(ipLiteralOf('rr1.googlevideo.com'), null);
  });
});

describe('host allowlist', () => {
  const allowed = createHostAllowlist(['*.googlevideo.com', 'media.example:8080', '127.0.0.1:9000', '[::1]:9001']);
  const u = (/** @type {string} */ s) => new URL(s);
  it('matches wildcard subdomains on the default port only', () => {
    assert.equal(allowed(u('https://rr3---sn-4g5e6nze.googlevideo.com/videoplayback')), true);
    assert.equal(allowed(u('http://a.b.googlevideo.com/')), true);
    assert.equal(allowed(u('https://googlevideo.com/')), false);
    assert.equal(allowed(u('https://evilgooglevideo.com/')), false);
    assert.equal(allowed(u('https://x.googlevideo.com.evil.example/')), false);
    assert.equal(allowed(u('https://x.googlevideo.com:8443/')), false);
  });
  it('matches host:port exactly', () => {
    assert.equal(allowed(u('http://media.example:8080/a')), true);
    assert.equal(allowed(u('http://media.example/a')), false);
    assert.equal(allowed(u('http://127.0.0.1:9000/')), true);
    assert.equal(allowed(u('http://127.0.0.1:9002/')), false);
    assert.equal(allowed(u('http://[::1]:9001/')), true);
  });
  it('refuses bad patterns with ERR_BAD_CONFIG', () => {
    for (const bad of ['', 'a b', 'host:0', 'host:70000', '*.127.0.0.1', 'http://x']) {
      assert.throws(() => parseHostPattern(bad), { code: 'ERR_BAD_CONFIG' }, bad);
    }
  });
});

describe('target URL check', () => {
  const policy = { allowPrivate: false, isHostAllowed: createHostAllowlist(['*.googlevideo.com']) };
  const codeOf = (/** @type {string} */ url) => {
    try {
      checkTargetUrl(url, policy);
      return 'ok';
    } catch (err) {
      return err.code;
    }
  };
  it('refuses each unsafe URL with its code', () => {
    assert.equal(codeOf('http://127.0.0.1/'), 'ERR_SSRF_BLOCKED');
    assert.equal(codeOf('http://[::1]/'), 'ERR_SSRF_BLOCKED');
    assert.equal(codeOf('http://[::ffff:127.0.0.1]/'), 'ERR_SSRF_BLOCKED');
    assert.equal(codeOf('http://0.0.0.0/'), 'ERR_SSRF_BLOCKED');
    assert.equal(codeOf('http://169.254.169.254/latest/meta-data/'), 'ERR_SSRF_BLOCKED');
    assert.equal(codeOf('http://2130706433/'), 'ERR_SSRF_BLOCKED');
    assert.equal(codeOf('http://0177.0.0.1/'), 'ERR_SSRF_BLOCKED');
    assert.equal(codeOf('http://0x7f000001/'), 'ERR_SSRF_BLOCKED');
    assert.equal(codeOf('http://example.com/'), 'ERR_HOST_NOT_ALLOWED');
    assert.equal(codeOf('ftp://a.googlevideo.com/'), 'ERR_BAD_URL');
    assert.equal(codeOf('file:///etc/passwd'), 'ERR_BAD_URL');
    assert.equal(codeOf('http://user:pw@a.googlevideo.com/'), 'ERR_BAD_URL');
    assert.equal(codeOf('not a url'), 'ERR_BAD_URL');
    assert.equal(codeOf('https://r1.googlevideo.com/videoplayback?id=1'), 'ok');
  });
});

describe('guarded DNS lookup', () => {
  /** @param {{ address: string, family: number }[]} answer */
  const fakeResolver = (answer) => /** @type {any} */ ((_host, _opts, cb) => cb(null, answer));
  const run = (/** @type {any} */ lookup, /** @type {object} */ opts) => new Promise((resolve) => {
    lookup('cdn.example', opts, (/** @type {any} */ err, /** @type {any} */ address) => resolve({ err, address }));
  });

  it('refuses a name when any resolved address is private (DNS rebinding)', async () => {
    const lookup = createGuardedLookup({}, fakeResolver([{ address: '8.8.8.8', family: 4 }, { address: '127.0.0.1', family: 4 }]));
    const r = /** @type {any} */ (await run(lookup, { all: true }));
    assert.equal(r.err?.code, 'ERR_SSRF_BLOCKED');
  });
  it('passes public answers through in both callback shapes', async () => {
    const lookup = createGuardedLookup({}, fakeResolver([{ address: '8.8.4.4', family: 4 }]));
    const all = /** @type {any} */ (await run(lookup, { all: true }));
    assert.deepEqual(all.address, [{ address: '8.8.4.4', family: 4 }]);
    const single = /** @type {any} */ (await run(lookup, {}));
    assert.equal(single.address, '8.8.4.4');
  });
});
