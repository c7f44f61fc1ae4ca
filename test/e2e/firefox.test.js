// The extension in headless Debian Firefox ESR, all four modes. Firefox ESR offers no
// loopback ICE candidate (even with media.peerconnection.ice.loopback=true) and the test fleet
// may only listen on loopback or on addresses of namespaces the test made: so this spec makes a
// network namespace with `lo` and one private dummy address, and runs the whole scenario (fleet,
// site, Firefox, and the puppeteer driver, which talks to Firefox over loopback) inside it as
// an inner mocha run: firefox-netns/firefox.inner.js. Recipe: docs/extension-testing.md.
import path from 'node:path';
import { requireOrSkip } from '@mutp/testkit/require-tool';
import { testVideo } from '@mutp/testkit/e2e/helpers/video';
import { REPO } from '@mutp/testkit/e2e/helpers/scenario';
import { runInnerMocha, FIREFOX_NS, deleteNamespace } from '@mutp/testkit/e2e/helpers/netns-host';

const INNER = path.join(REPO, 'test', 'e2e', 'firefox-netns', 'firefox.inner.js');
const INNER_TIMEOUT_MS = 240_000; // a wedged browser must not hang CI; a normal run takes ~40 s
const INNER_TEST_TIMEOUT_MS = 120_000; // per inner test: a build and a browser start on a busy 2-core box

describe('extension e2e: headless Firefox ESR (in its own network namespace)', function () {
  this.timeout(INNER_TIMEOUT_MS + 30_000);

  before(async function () {
    requireOrSkip(this, { commands: ['firefox-esr', 'ffmpeg', 'ip'], root: true });
    await testVideo(); // made (and cached) out here: the inner run finds it ready
  });

  after(() => deleteNamespace(FIREFOX_NS)); // also after a crash of the inner run

  it('plays in random modes (MUTP included) with byte-exact chunks, and the popup shows the tab\'s chunk', async () => {
    await runInnerMocha(INNER, { timeoutMs: INNER_TIMEOUT_MS, testTimeoutMs: INNER_TEST_TIMEOUT_MS });
  });
});
