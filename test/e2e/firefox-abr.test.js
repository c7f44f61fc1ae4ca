// The player plugins' ABR checks (testkit's abr-play.js) in headless Debian Firefox ESR: each
// player climbs to the top rendition through a fast fleet no later than on a fast direct path, and
// does not overshoot through a slow one. Firefox ESR offers no loopback ICE candidate, only the
// default route's interface address: so, as firefox-players.test.js does, this spec makes a network
// namespace with `lo` and one private address as the default route, and runs the whole scenario
// inside it as an inner mocha run: firefox-netns/abr.inner.js. Its own namespace name, so that it
// and the other Firefox specs may run side by side.
import path from 'node:path';
import { abrStreams } from '@mutp/testkit/e2e/helpers/abr-streams';
import { REPO } from '@mutp/testkit/e2e/helpers/scenario';
import { describeFirefoxInner } from '@mutp/testkit/e2e/helpers/netns-host';

describeFirefoxInner({
  title: 'player plugins e2e: ABR sees the truth in headless Firefox ESR (in its own network namespace)',
  test: 'hls.js, Shaka and dash.js: climb through a fast fleet, no overshoot through a slow one',
  inner: path.join(REPO, 'test', 'e2e', 'firefox-netns', 'abr.inner.js'),
  ns: 'mutp-ffabr', // not firefox.test.js's, firefox-players.test.js's nor deploy-tls's
  prepare: abrStreams,
  timeoutMs: 900_000, // a wedged browser must not hang CI; a normal run takes ~5 min
  testTimeoutMs: 300_000, // per inner test or hook: three or two 16 s plays on a busy 2-core box
});
