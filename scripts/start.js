#!/usr/bin/env node
// `npm start`: a whole local system on embedded defaults: Origo (127.0.0.1:8080, ORIGO_PORT
// overrides), 4 proxies and the demo origin, which also serves a demo page that plays a stream
// through the fleet with the hls.js plugin (/player/). Prints the URLs and one example `mutp get`
// command that works as printed. Ctrl-C (SIGINT) or SIGTERM stops everything and exits 0.
// `--rtc-bind ADDR` (or MUTP_RTC_BIND): the address the proxies' WebRTC binds to. Default: the
// address of the default route's interface, which Chromium and Firefox both reach (Firefox
// offers no loopback ICE candidate); 127.0.0.1 when the machine has no default route.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import os from 'node:os';
import { startOrigo, proxyToken, createLogger } from '@mutp/origo';
import { startProxy } from '@mutp/proxy';
import { startDemoOrigin } from '@mutp/demo/origin';
import { PLAYER_PATH } from '@mutp/demo/player-site';
import { buildTempBundle } from '@mutp/players/bundle';
import { codedError } from '@mutp/common/errors';

const HOST = '127.0.0.1'; // the local fleet is loopback only
const DEFAULT_ORIGO_PORT = 8080; // the CLI's default --origo
const PROXY_COUNT = 4; // paper V: N = 4 is where MUTP beats Parallel HTTP
const FLEET_READY_TIMEOUT_MS = 15_000; // proxies register over socket.io; wait before printing a command that needs them
const READY_POLL_MS = 100;
const STATUS_EVERY_MS = 2000; // proxy status period for the local fleet (a few seconds, as the paper's proxies)

/** @param {string | undefined} text @param {string} name @param {number} fallback */
function portFrom(text, name, fallback) {
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    process.stderr.write(`start: ${name} must be a port number 0..65535, got "${text}"\n`);
    process.exit(2);
  }
  return n;
}

const origoPort = portFrom(process.env.ORIGO_PORT, 'ORIGO_PORT', DEFAULT_ORIGO_PORT);
const demoPort = portFrom(process.env.DEMO_PORT, 'DEMO_PORT', origoPort === 0 ? 0 : origoPort + 1); // next to Origo, so the README's example works as printed
const extraHosts = (process.env.MUTP_ALLOWED_HOSTS ?? '').split(',').map((h) => h.trim()).filter(Boolean);
const verbose = process.env.MUTP_VERBOSE === '1';
const rtcBind = rtcBindAddress();

/** --rtc-bind ADDR, else MUTP_RTC_BIND, else the default route's IPv4 address, else loopback. */
function rtcBindAddress() {
  const at = process.argv.indexOf('--rtc-bind');
  const given = at >= 0 ? process.argv[at + 1] : process.env.MUTP_RTC_BIND;
  if (given !== undefined && given !== '') {
    if (!isIP(given)) {
      process.stderr.write(`start: --rtc-bind/MUTP_RTC_BIND must be an IP address, got "${given}"\n`);
      process.exit(2);
    }
    return { address: given, why: at >= 0 ? '--rtc-bind' : 'MUTP_RTC_BIND' };
  }
  const route = defaultRouteAddress();
  return route ? { address: route, why: 'the default route\'s interface: Chromium and Firefox both reach it' } : { address: HOST, why: 'no default route: loopback (Firefox cannot use the MUTP modes)' };
}

/** @returns {string | null} the IPv4 address of the interface that holds the default route (Linux) */
function defaultRouteAddress() {
  let iface = null;
  try {
    // /proc/net/route: Iface Destination Gateway …; destination 00000000 is the default route
    iface = readFileSync('/proc/net/route', 'utf8').split('\n').slice(1).map((l) => l.trim().split(/\s+/)).find((f) => f[1] === '00000000')?.[0] ?? null;
  } catch {
    return null; // not Linux
  }
  const addr = iface ? os.networkInterfaces()[iface]?.find((a) => a.family === 'IPv4' && !a.internal) : null;
  return addr ? addr.address : null;
}

// Info lines of five servers drown the banner; warnings and errors always show.
/**
 * @template {{info: (msg: string, fields?: object) => void, warn: (msg: string, fields?: object) => void, error: (msg: string, fields?: object) => void}} L
 * @param {L} l
 * @returns {L}
 */
const quietUnlessVerbose = (l) => (verbose ? l : /** @type {L} */ ({ ...l, info() {} }));

/** @type {(() => Promise<void>)[]} */
const closers = [];
let stopping = false;

async function stop(code) {
  if (stopping) return;
  stopping = true;
  process.stdout.write('\nstopping…\n');
  for (const close of closers.reverse()) {
    try {
      await close();
    } catch (err) {
      process.stderr.write(`start: error while stopping: ${err?.message ?? err}\n`);
    }
  }
  process.exit(code);
}
process.on('SIGINT', () => (stopping ? process.exit(1) : stop(0))); // a second Ctrl-C forces the exit
process.on('SIGTERM', () => stop(0));

try {
  const secret = randomBytes(32).toString('hex'); // per run: tokens from an earlier run are worthless
  const plugins = await buildTempBundle();
  closers.push(() => plugins.remove());
  /** @type {string | null} */
  let origoUrl = null; // the demo page's Origo, once it runs
  const origin = await startDemoOrigin({ host: HOST, port: demoPort, player: { pluginFile: plugins.file, origo: () => origoUrl } });
  closers.push(() => origin.close());
  // The admin dashboard: ORIGO_ADMIN_PASSWORD if set; otherwise local-only insecure dev mode with password "admin"
  // (Origo logs a loud warning; the banner below says so). Origo binds to loopback here.
  const adminPassword = process.env.ORIGO_ADMIN_PASSWORD ?? '';
  const insecureDev = adminPassword === '';
  const origo = await startOrigo({
    proxySecret: secret, host: HOST, port: origoPort, db: process.env.ORIGO_DB ?? ':memory:', logger: quietUnlessVerbose(createLogger({ name: 'origo' })),
    adminPassword, insecureDev,
    allowPrivateProxyUrls: true, // the proxies below advertise loopback URLs
  });
  closers.push(() => origo.close());
  origoUrl = origo.url;
  const allowedHosts = [`${HOST}:${origin.port}`, ...extraHosts];
  for (let i = 1; i <= PROXY_COUNT; i++) {
    const id = `local-${i}`;
    const proxy = await startProxy({
      id, token: proxyToken(secret, id), host: HOST, port: 0, origoUrl: origo.url,
      allowedHosts, allowPrivate: true, // the demo origin and MUTP_ALLOWED_HOSTS live on this machine
      requireTickets: true, // as in production: only clients Origo handed a ticket may use the proxies
      rtcBindAddress: rtcBind.address,
      statusEveryMs: STATUS_EVERY_MS, logger: quietUnlessVerbose(createLogger({ name: id })),
    });
    closers.push(() => proxy.close());
  }
  await waitForFleet(origo.url, PROXY_COUNT);

  const example = `${origin.url}/media/demo-5MB.bin`;
  process.stdout.write([
    'MUTP local system is up.',
    `  Origo:        ${origo.url}   (GET /api/proxies, POST /api/logs)`,
    `  admin:        ${origo.adminUrl}   ${insecureDev ? '(INSECURE DEV MODE: password "admin"; set ORIGO_ADMIN_PASSWORD to choose one)' : '(password: ORIGO_ADMIN_PASSWORD)'}`,
    `  proxies:      ${PROXY_COUNT}, registered with Origo (list: npx mutp proxies --origo ${origo.url})`,
    `  WebRTC bind:  ${rtcBind.address} (${rtcBind.why}; --rtc-bind ADDR or MUTP_RTC_BIND changes it)`,
    `  demo origin:  ${origin.url}/media/demo-1MB.bin, ${example}`,
    `  demo player:  ${origin.url}${PLAYER_PATH}   (hls.js through the fleet with the player plugin, no extension)`,
    extraHosts.length ? `  extra allowed origin hosts: ${extraHosts.join(', ')}` : '  extra origin hosts: set MUTP_ALLOWED_HOSTS=host:port,…',
    '',
    'Try (in another terminal, from the repository root):',
    `  npx mutp get ${example} --mode coded --proxies ${PROXY_COUNT} --origo ${origo.url} -o demo-5MB.bin`,
    '',
    'Ctrl-C stops everything.',
    '',
  ].join('\n'));
} catch (err) {
  process.stderr.write(`start: ${err?.code ?? 'ERR_START'}: ${err?.message ?? err}\n`);
  await stop(1);
}

/**
 * Poll Origo until `count` proxies are live, so the printed command works right away.
 * @param {string} origoUrl
 * @param {number} count
 */
async function waitForFleet(origoUrl, count) {
  const deadline = Date.now() + FLEET_READY_TIMEOUT_MS;
  for (;;) {
    try {
      const res = await fetch(`${origoUrl}/api/proxies?n=${count}`);
      const body = await res.json();
      if (Array.isArray(body?.proxies) && body.proxies.length >= count) return;
    } catch {
      // Origo not answering yet: retry
    }
    if (Date.now() > deadline) throw codedError('ERR_FLEET_NOT_READY', `only some of the ${count} proxies registered with Origo within ${FLEET_READY_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, READY_POLL_MS));
  }
}
