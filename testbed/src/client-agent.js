#!/usr/bin/env node
// Runs inside the client namespace: one long-lived ProxyClientLib client, driven by JSON lines
// on stdin ({seq, cmd, ...}) and answering JSON lines on stdout ({seq, ok, result | error}).
// One process for the whole campaign: Node start-up and codec loading are paid once, not per download.
import { createInterface } from 'node:readline';
import diagnostics from 'node:diagnostics_channel';
import { createHash } from 'node:crypto';
import { createClient } from '@mutp/proxyclientlib';
import { codedError } from '@mutp/common/errors';

const FLEET_POLL_MS = 200; // Origo registration is a socket.io handshake: a few hundred ms
const LOG_FLUSH_TIMEOUT_MS = 10_000; // at the end, give Origo this long to ack the records
const RTC_BUILD_TIMEOUT_MS = 5_000; // a proxy answers GET /rtc/build from memory: 5 s means it is not serving
const US_PER_S = 1e6; // process.cpuUsage() counts microseconds

const origo = process.argv[2];
// --fresh-digest-lists: each download asks the proxies for its digest lists, as a viewer's client does
// for each new segment, even when the testbed asks for one URL again and again
const keepDigestLists = !process.argv.includes('--fresh-digest-lists');
const client = createClient({ origo, keepDigestLists, logger: { warn: (...a) => process.stderr.write(`agent warn: ${a.map(String).join(' ')}\n`) } });

/** @param {object} msg */
const reply = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);

// New TCP connections to the proxies (HTTP modes; MUTP's signalling), from the HTTP client's own
// events: a download on a connection that sat idle past the keep-alive pays a handshake first.
const origoHost = new URL(origo).host;
let proxyTcpConnects = 0;
diagnostics.subscribe('undici:client:connected', (/** @type {any} */ m) => {
  const p = m?.connectParams;
  if (p && `${p.hostname}:${p.port}` !== origoHost && p.host !== origoHost) proxyTcpConnects++;
});

/** @type {Record<string, (req: any) => Promise<unknown>>} */
const commands = {
  async waitFleet({ count, timeoutMs }) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const list = await client.proxies({ n: count });
        if (list.length >= count) return list;
      } catch {
        // Origo not up yet
      }
      if (Date.now() > deadline) throw codedError('ERR_FLEET_NOT_READY', `fewer than ${count} proxies registered with Origo within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, FLEET_POLL_MS));
    }
  },
  /** cold: close the kept connections first, so this download connects anew (a one-off download). */
  async download({ url, mode, proxies, window, generationSize, feedbackEvery, cold }) {
    if (cold === true) client.closeIdleConnections();
    const cpu0 = process.cpuUsage(); // its own, every thread, to the µs
    const cpuSince = () => { const c = process.cpuUsage(cpu0); return (c.user + c.system) / US_PER_S; };
    const c0 = client.connectionCounters();
    const tcp0 = proxyTcpConnects;
    const t0 = performance.now();
    // the pool's counters moved by this download (exact when it ran alone): kept connections it
    // took, new ones it opened; and the new TCP connections to proxies
    const connections = () => {
      const c1 = client.connectionCounters();
      return c0 && c1 ? { reused: c1.reuses - c0.reuses, opened: c1.connects - c0.connects, tcpOpened: proxyTcpConnects - tcp0 } : null;
    };
    try {
      const { data, stats } = await client.download(url, { mode, proxies, window, generationSize, feedbackEvery });
      // the body's digest: the caller checks it byte-exact against the object it asked for. Its CPU
      // is the check's, not the client's: a caller measuring the client's cost takes it off
      const hash0 = process.cpuUsage();
      const sha256 = createHash('sha256').update(data).digest('hex');
      const hash = process.cpuUsage(hash0);
      return { stats: slim(stats), sha256, clientCpuSeconds: cpuSince(), hashCpuSeconds: (hash.user + hash.system) / US_PER_S, wallMs: performance.now() - t0, connections: connections() };
    } catch (err) {
      return { stats: slim(err.stats ?? null), error: { code: err.code ?? 'ERR_UNKNOWN', message: String(err.message) }, clientCpuSeconds: cpuSince(), wallMs: performance.now() - t0, connections: connections() };
    }
  },
  /** Open (or keep) a WebRTC connection to each of these proxies, as a player about to play does. */
  async preconnect({ proxies }) {
    return client.preconnect(proxies);
  },
  /** Close the kept WebRTC connections to these proxies: their next download connects anew. */
  async closeConnections({ proxies }) {
    client.closeIdleConnections(proxies.map((/** @type {{url: string}} */ p) => p.url));
    return null;
  },
  /** Each proxy's WebRTC build as it serves it (GET /rtc/build), e.g. which SCTP sender its data channels run. */
  async rtcBuilds({ proxies }) {
    return Promise.all(proxies.map(async (/** @type {{id: string, url: string}} */ p) => {
      try {
        const res = await fetch(new URL('/rtc/build', p.url), { signal: AbortSignal.timeout(RTC_BUILD_TIMEOUT_MS) });
        if (!res.ok) throw codedError('ERR_RTC_BUILD_FETCH', `GET /rtc/build: HTTP ${res.status}`);
        return { id: p.id, build: await res.json() };
      } catch (err) {
        return { id: p.id, build: null, error: err.code ?? err.name ?? 'ERR_UNKNOWN' };
      }
    }));
  },
  async flush() {
    return { flushed: await client.flushLogs(LOG_FLUSH_TIMEOUT_MS), counters: client.logCounters(), pending: client.pendingLogs() };
  },
};

/** The per-packet logs go to Origo; the campaign keeps only the summary. @param {any} stats */
function slim(stats) {
  if (!stats) return null;
  const { packetLog: _p, feedbackLog: _f, ...rest } = stats;
  return rest;
}

// Requests run one at a time per lane, but lanes may overlap: handle each line as it comes.
createInterface({ input: process.stdin }).on('line', async (line) => {
  let req;
  try {
    req = JSON.parse(line);
  } catch {
    process.stderr.write('agent: ignoring a line that is not JSON\n');
    return;
  }
  const run = commands[req?.cmd];
  if (!run) return reply({ seq: req?.seq, ok: false, error: { code: 'ERR_BAD_COMMAND', message: `unknown command ${req?.cmd}` } });
  try {
    reply({ seq: req.seq, ok: true, result: await run(req) });
  } catch (err) {
    reply({ seq: req.seq, ok: false, error: { code: err.code ?? 'ERR_UNKNOWN', message: String(err.message) } });
  }
}).on('close', stop);
// a SIGTERM (the cost bench stops its children so) ends the agent as its input closing does, so it
// exits normally: a CPU profile (--cpu-prof) is written only then
process.once('SIGTERM', stop);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await client.flushLogs(LOG_FLUSH_TIMEOUT_MS);
  client.close();
  process.exit(0);
}
