// The player plugins (@mutp/players, no extension) in headless Debian Firefox ESR: hls.js, Shaka
// and dash.js in every mode and with the whole fleet dying mid-play, and `npm start`'s demo page
// played to its end.
// Firefox ESR offers no loopback ICE candidate, only the default route's interface address: so,
// as firefox.test.js does, this spec makes a network namespace with `lo` and one private address
// as the default route, and runs the whole scenario (fleet, site, `npm start`, Firefox and the
// puppeteer driver) inside it as an inner mocha run: firefox-netns/players.inner.js. Its own
// namespace name, so that it and firefox.test.js may run side by side.
import path from 'node:path';
import { requireOrSkip } from '@mutp/testkit/require-tool';
import { testStreams } from '@mutp/testkit/e2e/helpers/streams';
import { REPO } from '@mutp/testkit/e2e/helpers/scenario';
import { runInnerMocha, deleteNamespace } from '@mutp/testkit/e2e/helpers/netns-host';

const INNER = path.join(REPO, 'test', 'e2e', 'firefox-netns', 'players.inner.js');
const NS = 'mutp-ffplay'; // not firefox.test.js's mutp-ffe2e nor deploy-tls's mutp-tlse2e
const INNER_TIMEOUT_MS = 720_000; // a wedged browser must not hang CI; a normal run takes ~4 min
const INNER_TEST_TIMEOUT_MS = 150_000; // per inner test or hook: a bundle build, a browser start, 24 s of demo video on a busy 2-core box

describe('player plugins e2e: headless Firefox ESR without the extension (in its own network namespace)', function () {
  this.timeout(INNER_TIMEOUT_MS + 30_000);

  before(async function () {
    requireOrSkip(this, { commands: ['firefox-esr', 'ffmpeg', 'ip'], root: true });
    await testStreams(); // made (and cached) out here: the inner run finds them ready
  });

  after(() => deleteNamespace(NS)); // also after a crash of the inner run

  it('hls.js, Shaka and dash.js play through the fleet in every mode and on after it dies, and the demo page plays to its end', async () => {
    await runInnerMocha(INNER, { ns: NS, timeoutMs: INNER_TIMEOUT_MS, testTimeoutMs: INNER_TEST_TIMEOUT_MS });
  });
});
