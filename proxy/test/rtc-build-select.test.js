// The proxy's WebRTC build selection (src/rtc/wrtc.js): tuned when built, else stock; bad
// settings refused with codes; the running proxy says which build serves it (GET /rtc/build).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectionRttMs, describeRtcBuild, loadWrtc, sctpSettingsFrom, tunedBuildPresent } from '../src/rtc/wrtc.js';
import { SCTP_LOSS_TOLERANT, SCTP_MAX_BURST_PACKETS, SCTP_SEND_BUFFER_BYTES, SCTP_TUNED_INITIAL_CWND_PACKETS } from '../src/rtc/limits.js';
import { startProxy } from '../index.js';
import { captureLogger } from '@mutp/testkit/local-origin';

const EMPTY_DIR = mkdtempSync(join(tmpdir(), 'mutp-no-rtc-build-'));

describe('proxy WebRTC build selection', function () {
  this.timeout(30_000);

  it('takes the SCTP settings from limits.js, or from the measurement overrides', () => {
    assert.deepEqual(sctpSettingsFrom({}),
      { maxBurst: SCTP_MAX_BURST_PACKETS, sendBufferBytes: SCTP_SEND_BUFFER_BYTES, initialCwnd: null, lossTolerant: SCTP_LOSS_TOLERANT });
    assert.deepEqual(sctpSettingsFrom({ MUTP_SCTP_MAX_BURST: '40', MUTP_SCTP_SEND_BUFFER: '65536', MUTP_SCTP_INITIAL_CWND: '32', MUTP_SCTP_LOSS_TOLERANT: '0' }),
      { maxBurst: 40, sendBufferBytes: 65536, initialCwnd: 32, lossTolerant: false });
    assert.equal(sctpSettingsFrom({ MUTP_SCTP_LOSS_TOLERANT: '1' }).lossTolerant, true);
    for (const env of [{ MUTP_SCTP_MAX_BURST: '0' }, { MUTP_SCTP_MAX_BURST: '1.5' }, { MUTP_SCTP_SEND_BUFFER: 'lots' },
      { MUTP_SCTP_SEND_BUFFER: '-1' }, { MUTP_SCTP_INITIAL_CWND: '0' }, { MUTP_SCTP_LOSS_TOLERANT: 'yes' }]) {
      assert.throws(() => sctpSettingsFrom(env), { code: 'ERR_BAD_CONFIG' }, JSON.stringify(env));
    }
  });

  it('refuses an unknown MUTP_RTC_BUILD, and a required tuned build that is not there', async () => {
    await assert.rejects(loadWrtc({ MUTP_RTC_BUILD: 'fast' }, EMPTY_DIR), { code: 'ERR_BAD_CONFIG' });
    await assert.rejects(loadWrtc({ MUTP_RTC_BUILD: 'tuned' }, EMPTY_DIR), { code: 'ERR_RTC_BUILD' });
  });

  it('falls back to the stock build when no tuned one is built (stock keeps max burst 10)', async () => {
    const { RTCPeerConnection, build } = await loadWrtc({}, EMPTY_DIR);
    assert.equal(typeof RTCPeerConnection, 'function');
    assert.equal(build.kind, 'stock');
    assert.equal(build.maxBurst, 10);
    assert.equal(build.fallbackReason, null);
    assert.equal(build.initialCwnd, null, 'libdatachannel\'s own: max burst 10 would cap a larger one');
    assert.equal(build.sender, 'usrsctp', 'the stock build cannot leave random loss out of its congestion response');
    assert.match(describeRtcBuild(build), /^stock \(libdatachannel \d+\.\d+\.\d+, SCTP maxBurst 10, send buffer \d+ B, usrsctp's sender: every loss halves its window\)$/);
  });

  it('loads the tuned build when it is built, with max burst set and the loss-tolerant sender (one setting away from usrsctp\'s)', async function () {
    if (!tunedBuildPresent()) {
      console.warn('skipping: no tuned WebRTC build (npm run build:rtc); test/testbed/rtc-max-burst.test.js fails under CI without it');
      return this.skip();
    }
    const { build } = await loadWrtc({ MUTP_RTC_BUILD: 'auto' });
    assert.equal(build.kind, 'tuned');
    assert.equal(build.maxBurst, SCTP_MAX_BURST_PACKETS);
    assert.equal(build.initialCwnd, SCTP_TUNED_INITIAL_CWND_PACKETS);
    assert.equal(build.sender, SCTP_LOSS_TOLERANT ? 'loss-tolerant' : 'usrsctp');
    assert.match(describeRtcBuild(build), /^tuned \(libdatachannel .*, initial cwnd 40, loss-tolerant sender: random loss does not cut its window\)$/);
  });

  it('reads a connection\'s round trip from its stats (the candidate pair\'s, in ms), or none', async () => {
    /** a connection whose getStats gives these entries @param {object[]} entries */
    const pc = (entries) => /** @type {any} */ ({ getStats: async () => new Map(entries.map((e, i) => [String(i), e])) });
    assert.equal(await connectionRttMs(pc([{ type: 'local-candidate' }, { type: 'candidate-pair', currentRoundTripTime: 51 }])), 51);
    for (const rtt of [0, -1, 5000, NaN, undefined, '50']) {
      assert.equal(await connectionRttMs(pc([{ type: 'candidate-pair', currentRoundTripTime: rtt }])), null, String(rtt));
    }
    assert.equal(await connectionRttMs(pc([])), null, 'no pair selected yet');
  });

  it('the running proxy logs its build at start and answers GET /rtc/build', async () => {
    const cap = captureLogger();
    const proxy = await startProxy({ host: '127.0.0.1', port: 0, logger: cap.logger });
    try {
      const res = await fetch(`${proxy.url}/rtc/build`);
      assert.equal(res.status, 200);
      const build = await res.json();
      const choice = process.env.MUTP_RTC_BUILD || 'stock'; // stock by default
      assert.equal(build.kind, choice === 'tuned' || (choice === 'auto' && tunedBuildPresent()) ? 'tuned' : 'stock');
      assert.equal(build.sender, build.kind === 'tuned' && SCTP_LOSS_TOLERANT ? 'loss-tolerant' : 'usrsctp');
      assert.ok(cap.lines.some((l) => l.msg.startsWith(`webrtc build: ${build.kind} (`)), JSON.stringify(cap.lines));
    } finally {
      await proxy.close();
    }
  });
});
