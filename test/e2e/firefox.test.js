// The extension in headless Debian Firefox ESR, all four modes. Firefox ESR offers no
// loopback ICE candidate (even with media.peerconnection.ice.loopback=true) and the test fleet
// may only listen on loopback or on addresses of namespaces the test made: so this spec makes a
// network namespace with `lo` and one private dummy address, and runs the whole scenario (fleet,
// site, Firefox, and the puppeteer driver, which talks to Firefox over loopback) inside it as
// an inner mocha run: firefox-netns/firefox.inner.js. Recipe: docs/extension-testing.md.
import path from 'node:path';
import { testVideo } from '@mutp/testkit/e2e/helpers/video';
import { REPO } from '@mutp/testkit/e2e/helpers/scenario';
import { describeFirefoxInner } from '@mutp/testkit/e2e/helpers/netns-host';

describeFirefoxInner({
  title: 'extension e2e: headless Firefox ESR (in its own network namespace)',
  test: 'plays in random modes (MUTP included) with byte-exact chunks, and the popup shows the tab\'s chunk',
  inner: path.join(REPO, 'test', 'e2e', 'firefox-netns', 'firefox.inner.js'),
  prepare: testVideo,
  timeoutMs: 240_000, // a wedged browser must not hang CI; a normal run takes ~40 s
  testTimeoutMs: 120_000, // per inner test: a build and a browser start on a busy 2-core box
});
