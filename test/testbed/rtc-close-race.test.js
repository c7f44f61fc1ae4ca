// The tuned WebRTC build (proxy/native) survives a connection closed from JavaScript while
// libdatachannel's worker thread is delivering the close of the other end. libdatachannel calls
// the "closed" state and ICE callbacks outside its callback lock; the stock node-datachannel
// wrapper reads its callback pointer there, and close() resets it, so the worker can call into a
// freed thread-safe function (the process dies: SIGSEGV, or SIGABRT in uv_mutex_lock). The window
// is a few instructions, so the build's fault hook (MUTP_RTC_FAULT_CLOSED_CALLBACK_DELAY_MS) widens
// it: with the stock wrapper's code and the hook, the child died in each of 3 runs of 40 rounds.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { skipOrFail } from '@mutp/testkit/require-tool';
import { tunedBuildPresent, TUNED_DIR } from '@mutp/proxy/wrtc';

const CHILD = fileURLToPath(new URL('./rtc-close-race-child.js', import.meta.url));
const ROUNDS = 40;
/** The hook's wait (ms): far longer than the shutdown round trip on loopback, so the race is hit every few rounds. */
const FAULT_DELAY_MS = 20;

describe('tuned WebRTC build: both ends of a connection closed at once', function () {
  it('the process survives a close() while libdatachannel delivers the remote end\'s close (callbacks held by their own reference)', async function () {
    if (!tunedBuildPresent()) skipOrFail(this, `no tuned WebRTC build in ${TUNED_DIR} (npm run build:rtc)`);
    const env = { ...process.env, MUTP_RTC_BUILD: 'tuned', MUTP_RTC_FAULT_CLOSED_CALLBACK_DELAY_MS: String(FAULT_DELAY_MS) };
    const result = await new Promise((resolve) => {
      execFile(process.execPath, [CHILD, String(ROUNDS)], { env, timeout: 50_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? /** @type {any} */ (err).code ?? null : 0, signal: err ? /** @type {any} */ (err).signal ?? null : null, stdout, stderr });
      });
    });
    assert.deepEqual([result.code, result.signal], [0, null], `the child ended ${result.signal ?? `with ${result.code}`}: ${result.stderr.slice(-500)}`);
    assert.deepEqual(JSON.parse(result.stdout), { rounds: ROUNDS, build: 'tuned' });
  });
});
