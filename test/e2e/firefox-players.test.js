// The player plugins (@mutp/players, no extension) in headless Debian Firefox ESR: hls.js, Shaka
// and dash.js in every mode and with the whole fleet dying mid-play, and `npm start`'s demo page
// played to its end.
// Firefox ESR offers no loopback ICE candidate, only the default route's interface address: so,
// as firefox.test.js does, this spec makes a network namespace with `lo` and one private address
// as the default route, and runs the whole scenario (fleet, site, `npm start`, Firefox and the
// puppeteer driver) inside it as an inner mocha run: firefox-netns/players.inner.js. Its own
// namespace name, so that it and firefox.test.js may run side by side.
import path from 'node:path';
import { testStreams } from '@mutp/testkit/e2e/helpers/streams';
import { REPO } from '@mutp/testkit/e2e/helpers/scenario';
import { describeFirefoxInner } from '@mutp/testkit/e2e/helpers/netns-host';

describeFirefoxInner({
  title: 'player plugins e2e: headless Firefox ESR without the extension (in its own network namespace)',
  test: 'hls.js, Shaka and dash.js play through the fleet in every mode and on after it dies, and the demo page plays to its end',
  inner: path.join(REPO, 'test', 'e2e', 'firefox-netns', 'players.inner.js'),
  ns: 'mutp-ffplay', // not firefox.test.js's mutp-ffe2e nor deploy-tls's mutp-tlse2e
  prepare: testStreams,
  timeoutMs: 720_000, // a wedged browser must not hang CI; a normal run takes ~4 min
  testTimeoutMs: 150_000, // per inner test or hook: a bundle build, a browser start, 24 s of demo video on a busy 2-core box
});
