// Picks the proxy's WebRTC build and sets its SCTP settings, once per process.
// tuned: proxy/native/build/node-datachannel (`npm run build:rtc`), whose setSctpSettings also
// takes maxBurst; stock: the prebuilt node-datachannel from npm, which keeps usrsctp's max burst
// of 10 packets. MUTP_RTC_BUILD=stock (default) | auto (tuned when built) | tuned.
// Stock is the default, so that a plain install runs what its tests ran; the Docker image and the
// testbed ask for the tuned build.
// The tuned build's sender is also loss-tolerant: unordered chunks abandoned under PR-SCTP do not
// cut its congestion window (proxy/native/libdatachannel-loss-tolerant.patch).
// MUTP_SCTP_MAX_BURST / MUTP_SCTP_SEND_BUFFER / MUTP_SCTP_INITIAL_CWND / MUTP_SCTP_LOSS_TOLERANT
// override the limits.js values for measurements (packets / bytes / packets / 0 or 1; the
// initial window applies to both builds, the others to the tuned one).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { codedError } from './http-error.js';
import { SCTP_LOSS_TOLERANT, SCTP_MAX_BURST_PACKETS, SCTP_SEND_BUFFER_BYTES, SCTP_TUNED_INITIAL_CWND_PACKETS } from './limits.js';

/** Where `npm run build:rtc` (proxy/native/build-rtc.js) writes the tuned package. */
export const TUNED_DIR = fileURLToPath(new URL('../../native/build/node-datachannel/', import.meta.url));
const BUILD_CHOICES = ['auto', 'tuned', 'stock'];
/** usrsctp's max burst when setSctpSettings cannot set it (libdatachannel's default, packets). */
const STOCK_MAX_BURST_PACKETS = 10;

/**
 * @typedef {object} RtcBuild
 * @property {'tuned' | 'stock'} kind
 * @property {string} libdatachannel         version the addon reports
 * @property {number} maxBurst               packets; < 0: disabled
 * @property {number} sendBufferBytes
 * @property {number | null} initialCwnd     packets; null: libdatachannel's default (10, the stock build's max burst)
 * @property {'loss-tolerant' | 'usrsctp'} sender  loss-tolerant: random loss does not cut SCTP's window (tuned
 *   build); usrsctp: every abandoned chunk halves it, as the stock build
 * @property {string | null} fallbackReason  why a tuned build present was not used
 */

/**
 * @param {Record<string, string | undefined>} env
 * @param {string} name
 * @param {number | null} fallback
 * @returns {number | null}
 */
function intFromEnv(env, name, fallback) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw codedError('ERR_BAD_CONFIG', `${name} must be an integer, got ${JSON.stringify(raw)}`, 500);
  return n;
}

/**
 * The SCTP settings to apply (limits.js, or the environment's overrides).
 * @param {Record<string, string | undefined>} env
 */
export function sctpSettingsFrom(env) {
  const maxBurst = /** @type {number} */ (intFromEnv(env, 'MUTP_SCTP_MAX_BURST', SCTP_MAX_BURST_PACKETS));
  const sendBufferBytes = /** @type {number} */ (intFromEnv(env, 'MUTP_SCTP_SEND_BUFFER', SCTP_SEND_BUFFER_BYTES));
  const initialCwnd = intFromEnv(env, 'MUTP_SCTP_INITIAL_CWND', null);
  if (maxBurst === 0) throw codedError('ERR_BAD_CONFIG', 'MUTP_SCTP_MAX_BURST: use < 0 to disable, > 0 for packets', 500);
  if (sendBufferBytes <= 0) throw codedError('ERR_BAD_CONFIG', 'MUTP_SCTP_SEND_BUFFER must be > 0', 500);
  if (initialCwnd !== null && initialCwnd <= 0) throw codedError('ERR_BAD_CONFIG', 'MUTP_SCTP_INITIAL_CWND must be > 0', 500);
  const lossTolerantRaw = env.MUTP_SCTP_LOSS_TOLERANT;
  if (lossTolerantRaw !== undefined && lossTolerantRaw !== '' && lossTolerantRaw !== '0' && lossTolerantRaw !== '1') {
    throw codedError('ERR_BAD_CONFIG', `MUTP_SCTP_LOSS_TOLERANT must be 0 or 1, got ${JSON.stringify(lossTolerantRaw)}`, 500);
  }
  const lossTolerant = lossTolerantRaw === undefined || lossTolerantRaw === '' ? SCTP_LOSS_TOLERANT : lossTolerantRaw === '1';
  return { maxBurst, sendBufferBytes, initialCwnd, lossTolerant };
}

/** @param {string} dir */
async function importTuned(dir) {
  const base = pathToFileURL(join(dir, '/')).href;
  const binding = (await import(`${base}dist/esm/lib/node-datachannel.mjs`)).default;
  if (binding.sctpSettingsMaxBurst !== true) throw new Error(`${dir} is not a tuned build (no maxBurst in setSctpSettings)`);
  if (binding.sctpSettingsLossTolerant !== true) throw new Error(`${dir} is an older tuned build (no lossTolerant in setSctpSettings): run npm run build:rtc`);
  return { lib: (await import(`${base}dist/esm/lib/index.mjs`)).default, polyfill: await import(`${base}dist/esm/polyfill/index.mjs`) };
}

async function importStock() {
  return { lib: (await import('node-datachannel')).default, polyfill: await import('node-datachannel/polyfill') };
}

/**
 * Loads the build chosen by MUTP_RTC_BUILD and applies the SCTP settings to it.
 * @param {Record<string, string | undefined>} [env]
 * @param {string} [tunedDir]
 * @returns {Promise<{ RTCPeerConnection: typeof globalThis.RTCPeerConnection, build: RtcBuild }>}
 */
export async function loadWrtc(env = process.env, tunedDir = TUNED_DIR) {
  const choice = env.MUTP_RTC_BUILD || 'stock';
  if (!BUILD_CHOICES.includes(choice)) throw codedError('ERR_BAD_CONFIG', `MUTP_RTC_BUILD must be one of ${BUILD_CHOICES.join(', ')}`, 500);
  const settings = sctpSettingsFrom(env);
  const present = tunedBuildPresent(tunedDir);
  /** @type {string | null} */
  let fallbackReason = null;
  let mod = null;
  if (choice === 'tuned' || (choice === 'auto' && present)) {
    try {
      if (!present) throw new Error(`no tuned build in ${tunedDir} (run npm run build:rtc)`);
      mod = await importTuned(tunedDir);
    } catch (err) {
      if (choice === 'tuned') throw codedError('ERR_RTC_BUILD', /** @type {Error} */ (err).message, 500);
      fallbackReason = /** @type {Error} */ (err).message;
    }
  }
  const kind = mod ? 'tuned' : 'stock';
  mod ??= await importStock();
  // the tuned build's own initial window; the stock build keeps libdatachannel's unless asked
  const initialCwnd = settings.initialCwnd ?? (kind === 'tuned' ? SCTP_TUNED_INITIAL_CWND_PACKETS : null);
  const lossTolerant = kind === 'tuned' && settings.lossTolerant;
  // setSctpSettings resets every field it is not given to libdatachannel's default.
  mod.lib.setSctpSettings({
    sendBufferSize: settings.sendBufferBytes,
    ...(kind === 'tuned' ? { maxBurst: settings.maxBurst, lossTolerant } : {}),
    ...(initialCwnd !== null ? { initialCongestionWindow: initialCwnd } : {}),
  });
  return {
    RTCPeerConnection: mod.polyfill.RTCPeerConnection,
    build: {
      kind,
      libdatachannel: mod.lib.getLibraryVersion(),
      maxBurst: kind === 'tuned' ? settings.maxBurst : STOCK_MAX_BURST_PACKETS,
      sendBufferBytes: settings.sendBufferBytes,
      initialCwnd,
      sender: lossTolerant ? 'loss-tolerant' : 'usrsctp',
      fallbackReason,
    },
  };
}

/** One line for logs and reports. @param {RtcBuild} b */
export function describeRtcBuild(b) {
  const burst = b.maxBurst < 0 ? 'off' : String(b.maxBurst);
  return `${b.kind} (libdatachannel ${b.libdatachannel}, SCTP maxBurst ${burst}, send buffer ${b.sendBufferBytes} B` +
    `${b.initialCwnd !== null ? `, initial cwnd ${b.initialCwnd}` : ''}, ` +
    `${b.sender === 'loss-tolerant' ? 'loss-tolerant sender: random loss does not cut its window' : "usrsctp's sender: every loss halves its window"})` +
    `${b.fallbackReason ? `; tuned build not used: ${b.fallbackReason}` : ''}`;
}

/** Whether `npm run build:rtc` has written a tuned build. @param {string} [tunedDir] */
export function tunedBuildPresent(tunedDir = TUNED_DIR) {
  return existsSync(join(tunedDir, 'mutp-build.json')) && existsSync(join(tunedDir, 'build', 'node_datachannel.node'));
}

/** A round trip above this (ms) is not taken as a hint: a stack that reports another unit, or a path gone bad. */
const MAX_RTT_HINT_MS = 2000;

/**
 * The round trip of a connection of this module's builds, as node-datachannel measured it while
 * connecting (SCTP's smoothed RTT, which its polyfill's getStats gives in ms as the candidate
 * pair's currentRoundTripTime), or null when it has none (yet).
 * @param {RTCPeerConnection} pc
 * @returns {Promise<number | null>}
 */
export async function connectionRttMs(pc) {
  const report = await pc.getStats();
  for (const v of report.values()) {
    const ms = v.type === 'candidate-pair' ? v.currentRoundTripTime : undefined;
    if (typeof ms === 'number' && Number.isFinite(ms) && ms > 0 && ms <= MAX_RTT_HINT_MS) return ms;
  }
  return null;
}
