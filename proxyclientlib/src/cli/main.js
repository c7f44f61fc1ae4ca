// The `mutp` CLI: `mutp get URL …` and `mutp proxies`. Returns the exit status; never calls process.exit.
// A `get` asks Origo for its proxies first and loads the client (its transfer modes, the log
// record, fetch's implementation) during that lookup's round trips. Origo's requests go over
// node:http (kept-fetch.js), which needs nothing loaded before the lookup's first packet; so do
// the requests to the proxies Origo listed last time (known-proxies.js), connected to meanwhile.
// A get soon after another needs no lookup first: it takes that one's listing (kept-listing.js)
// and asks Origo only for the next get. Its stats records go to Origo as it exits, unanswered
// (record-handoff.js).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { proxiesToList } from '../download-options.js';
import { errorInfo } from '../errors.js';
import { fetchProxyList } from '../origo-api.js';
import { parseCli, parseUrlList, USAGE, UsageError } from './args.js';
import { outputNames, summarize } from './batch.js';
import { formatProxies, formatStats, formatStatsLine, formatSummary } from './format.js';
import { progressBars } from './progress.js';
import { createKeptFetch } from './kept-fetch.js';
import { keepListing, takeKeptListing } from './kept-listing.js';
import { cacheDir, readKnownProxies, rememberProxies } from './known-proxies.js';

/** @typedef {ReturnType<typeof import('../client.js').createClient>} Client */

/**
 * @param {string[]} argv
 * @param {{stdout: NodeJS.WriteStream, stderr: NodeJS.WriteStream, env: Record<string, string | undefined>, stdin?: () => NodeJS.ReadableStream}} io
 *   stdin: opened only for `-i -`
 * @returns {Promise<number>}
 */
export async function main(argv, { stdout, stderr, env, stdin }) {
  /** @type {any} */
  let args;
  try {
    args = parseCli(argv, env);
    if (args.command === 'get' && args.input !== null) args.urls = [...args.urls, ...parseUrlList(await readInput(args.input, stdin), args.input)];
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    stderr.write(`mutp: ${err.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (args.command === 'help') {
    stdout.write(USAGE + '\n');
    return 0;
  }
  const logger = { warn: (/** @type {unknown[]} */ ...a) => stderr.write(`mutp: warning: ${a.join(' ')}\n`) };
  const origo = args.origo && URL.canParse(args.origo) ? createKeptFetch(args.origo) : null;
  const fetch = origo?.fetch ?? globalThis.fetch;
  const dir = cacheDir(env);
  const query = { n: proxiesToList(args.proxies), lat: args.lat ?? null, lon: args.lon ?? null };
  // the last get's proxies and tickets, while young: the download goes to them at once
  const kept = origo && args.command === 'get' ? takeKeptListing(dir, args.origo, query, Date.now()) : null;
  if (kept) for (const p of kept.proxies) origo?.preconnect(p.url); // first: the download waits for these
  const clientId = kept?.clientId ?? globalThis.crypto.randomUUID(); // Origo binds the listing's tickets to it
  const lookup = args.command === 'get' ? earlyListing(args, clientId, logger, fetch) : null; // with a kept listing, for the next get
  const listing = kept ? { startedAt: Infinity, list: Promise.resolve(kept.proxies) } : lookup; // kept: no lookup in the download's time
  if (origo && lookup) preconnectKnown(origo, lookup, { origoUrl: args.origo, dir, query, clientId }, logger);
  // loaded while the lookup is on the wire (as the client is, which the record's way shares)
  const [{ createClient }, { createRecordHandoff }] = await Promise.all([import('../client.js'), import('./record-handoff.js')]);
  const records = origo && args.command === 'get' && args.log ? createRecordHandoff({ dir, origo: args.origo, fetch, handOff: origo.handOff, logger }) : null;
  const client = createClient({ origo: args.origo, logger, clientId, fetch, logSender: records?.senderOptions ?? {} });
  void globalThis.Response; // loads fetch's implementation now, not when the proxies are first asked
  // the records earlier gets kept go once the lookup is answered, which the download waits for
  if (records) void (lookup?.list ?? Promise.resolve()).catch(() => {}).then(() => records.sendKept());
  try {
    if (args.command === 'proxies') return await listProxies(client, args, stdout, stderr);
    const logsTo = { records, stderr };
    if (args.urls.length === 1 && args.input === null) return await get(client, args, stdout, stderr, listing, logsTo);
    return await getMany(client, args, stdout, stderr, listing, logsTo);
  } finally {
    client.close();
    origo?.close();
    // the process ends here: an MUTP download's WebRTC threads must not keep it (HTTP modes never load them)
    if (args.command === 'get' && (args.mode === 'coded' || args.mode === 'uncoded')) (await import('#rtc')).releaseRtc();
  }
}

/**
 * The text of a `-i` list ("-": stdin); an unreadable file is a usage error (exit status 2).
 * @param {string} name @param {(() => NodeJS.ReadableStream) | undefined} stdin
 */
async function readInput(name, stdin) {
  try {
    if (name !== '-') return await readFile(name, 'utf8');
    if (!stdin) throw new Error('no stdin');
    let text = '';
    for await (const chunk of stdin()) text += chunk;
    return text;
  } catch (err) {
    throw new UsageError(`cannot read ${name}: ${/** @type {Error} */ (err).message}`);
  }
}

/**
 * @param {Client} client
 * @param {any} args
 * @param {NodeJS.WriteStream} stdout
 * @param {NodeJS.WriteStream} stderr
 */
async function listProxies(client, args, stdout, stderr) {
  try {
    const list = await client.proxies({ n: args.n, lat: args.lat, lon: args.lon });
    stdout.write((args.json ? JSON.stringify({ proxies: list }) : formatProxies(list)) + '\n');
    return 0;
  } catch (err) {
    const e = errorInfo(err);
    if (args.json) stdout.write(JSON.stringify({ error: e }) + '\n');
    stderr.write(`mutp: ${e.code}: ${e.message}\n`);
    return 1;
  }
}

/**
 * @param {Client} client
 * @param {any} args
 * @param {NodeJS.WriteStream} stdout
 * @param {NodeJS.WriteStream} stderr
 * @param {import('../client.js').ProxyListing | null} listing  Origo's list for the first download, asked already
 * @param {LogsTo} logsTo
 */
async function get(client, args, stdout, stderr, listing, logsTo) {
  const url = args.urls[0];
  const output = args.output ?? (args.outputDir === null ? null : join(args.outputDir, outputNames([url])[0]));
  const newBar = await progressBars(stderr);
  const stop = interruptible();
  const fetched = await fetchOne(client, url, args, { signal: stop.signal, next: null, progress: newBar(), listing });
  stop.done();
  const { data, stats, failure } = await saved(fetched, output, stdout);
  const info = output === '-' ? stderr : stdout;
  if (args.json) stdout.write(JSON.stringify(stats) + '\n');
  else info.write(formatStats(stats) + (data && !output ? '\n(no -o FILE given: data not saved)' : '') + '\n');
  if (failure) stderr.write(`mutp: ${failure.code}: ${failure.message}\n`);
  await flushLogs(client, logsTo);
  return failure ? 1 : 0;
}

/**
 * Several URLs in turn over the same client (its kept proxy connections), each download naming
 * the next object to its proxies; a line per object (JSON or text), then the summary.
 * @param {Client} client
 * @param {any} args
 * @param {NodeJS.WriteStream} stdout
 * @param {NodeJS.WriteStream} stderr
 * @param {import('../client.js').ProxyListing | null} listing  Origo's list for the first download, asked already
 * @param {LogsTo} logsTo
 */
async function getMany(client, args, stdout, stderr, listing, logsTo) {
  /** @type {string[]} */
  const urls = args.urls;
  const names = args.outputDir === null ? null : outputNames(urls);
  if (args.outputDir !== null) {
    try {
      await mkdir(args.outputDir, { recursive: true });
    } catch (err) {
      stderr.write(`mutp: ERR_WRITE_OUTPUT: cannot make ${args.outputDir}: ${/** @type {Error} */ (err).message}\n`);
      return 1;
    }
  }
  const newBar = await progressBars(stderr);
  const stop = interruptible();
  const c0 = client.connectionCounters();
  const t0 = performance.now();
  /** @type {Array<{stats: any, failed: boolean}>} */
  const results = [];
  for (let k = 0; k < urls.length && !stop.signal.aborted; k++) {
    const label = `[${k + 1}/${urls.length}]`;
    const fetched = await fetchOne(client, urls[k], args, { signal: stop.signal, next: urls[k + 1] ?? null, progress: newBar(label), listing: k === 0 ? listing : null });
    const { data, stats, failure } = await saved(fetched, names && join(args.outputDir, names[k]), stdout);
    results.push({ stats, failed: failure !== null });
    if (args.json) stdout.write(JSON.stringify(stats) + '\n');
    else stdout.write(`${label} ${stats.url ?? urls[k]}: ${formatStatsLine(stats)}${names && data ? ` -> ${join(args.outputDir, names[k])}` : ''}\n`);
    if (failure) stderr.write(`mutp: ${label} ${failure.code}: ${failure.message}\n`);
  }
  const wallMs = performance.now() - t0;
  stop.done();
  const c1 = client.connectionCounters();
  const connections = c0 && c1 && c1.connects + c1.reuses > c0.connects + c0.reuses ? { opened: c1.connects - c0.connects, reused: c1.reuses - c0.reuses } : null;
  const summary = summarize(urls.length, results, wallMs, connections);
  if (args.json) stdout.write(JSON.stringify({ summary }) + '\n');
  else stdout.write(formatSummary(summary) + (names ? '' : '\n(no --output-dir DIR given: data not saved)') + '\n');
  await flushLogs(client, logsTo);
  return summary.ok === urls.length ? 0 : 1;
}

/**
 * While Origo's lookup is on the wire, connect to the proxies it listed last time, and keep what
 * it lists now for the next process: the addresses, and the listing itself while it is young.
 * @param {ReturnType<typeof createKeptFetch>} origo @param {import('../client.js').ProxyListing} lookup
 * @param {{origoUrl: string, dir: string | null, query: import('./kept-listing.js').ListingQuery, clientId: string}} o
 * @param {{warn: (...a: unknown[]) => void}} logger
 */
function preconnectKnown(origo, lookup, { origoUrl, dir, query, clientId }, logger) {
  if (dir === null) return;
  // after the lookup's own connection is under way: it is what the download waits for first
  setImmediate(() => { for (const url of readKnownProxies(dir, origoUrl, Date.now())) origo.preconnect(url); });
  lookup.list.then(async (list) => {
    const now = Date.now();
    await rememberProxies(dir, origoUrl, list.map((p) => p.url), now, logger);
    await keepListing(dir, origoUrl, query, clientId, list, now, logger);
  }, () => {});
}

/**
 * Origo's proxy list for the first download, asked now (null: not by Origo, or no valid Origo URL;
 * the client then says why). Its failure is the download's, when that awaits it.
 * @param {any} args @param {string} clientId @param {{warn: (...a: unknown[]) => void}} logger @param {typeof fetch} fetch
 * @returns {import('../client.js').ProxyListing | null}
 */
function earlyListing(args, clientId, logger, fetch) {
  if (!args.origo || !URL.canParse(args.origo)) return null;
  const startedAt = performance.now();
  const list = fetchProxyList({ origo: args.origo, fetch, logger, clientId, n: proxiesToList(args.proxies), lat: args.lat, lon: args.lon });
  list.catch(() => {}); // not a rejection nobody handles when the download stops before it looks
  return { startedAt, list };
}

/**
 * One download: its stats record, its bytes (null when it failed) and its error.
 * @param {Client} client
 * @param {string} url
 * @param {any} args
 * @param {{signal: AbortSignal, next: string | null, progress: import('./progress.js').Progress,
 *   listing: import('../client.js').ProxyListing | null}} o  listing: Origo's list for this download, asked already
 * @returns {Promise<{stats: any, data: Uint8Array | null, failure: {code: string, message: string} | null}>}
 */
async function fetchOne(client, url, args, { signal, next, progress, listing }) {
  try {
    const { data, stats } = await client.download(url, {
      mode: args.mode, proxies: args.proxies, range: args.range, window: args.window,
      generationSize: args.generationSize, feedbackEvery: args.feedbackEvery, lat: args.lat, lon: args.lon,
      signal, next, log: args.log, onProgress: (p) => progress.update(p), ...(listing ? { listing } : {}),
    });
    return { stats, data, failure: null };
  } catch (err) {
    const failure = errorInfo(err);
    const stats = /** @type {any} */ (err)?.stats ?? { mode: args.mode, n: args.proxies, netBytes: 0, grossBytes: 0, durationMs: 0, goodputBps: 0, throughputBps: 0, normalizedGoodput: 0, error: failure };
    return { stats, data: null, failure };
  } finally {
    progress.stop();
  }
}

/** Ctrl-C aborts the download under way (and, for several, the rest). */
function interruptible() {
  const ctrl = new AbortController();
  const onSigint = () => ctrl.abort();
  process.once('SIGINT', onSigint);
  return { signal: ctrl.signal, done: () => process.removeListener('SIGINT', onSigint) };
}

/**
 * A download's outcome once its bytes are written to `output` (a file, or "-": stdout; null: not
 * saved): a write that fails becomes the outcome's failure, in its stats too.
 * @template {{stats: any, data: Uint8Array | null, failure: {code: string, message: string} | null}} T
 * @param {T} fetched @param {string | null} output @param {NodeJS.WriteStream} stdout
 * @returns {Promise<T>}
 */
async function saved(fetched, output, stdout) {
  const { data } = fetched;
  if (!data || !output) return fetched;
  try {
    if (output === '-') await new Promise((resolve, reject) => stdout.write(data, (e) => (e ? reject(e) : resolve(undefined))));
    else await writeFile(output, data);
    return fetched;
  } catch (err) {
    const failure = { code: 'ERR_WRITE_OUTPUT', message: `cannot write ${output}: ${/** @type {Error} */ (err).message}` };
    return { ...fetched, failure, stats: { ...fetched.stats, error: failure } };
  }
}

/**
 * @typedef {{ records: ReturnType<typeof import('./record-handoff.js').createRecordHandoff> | null, stderr: NodeJS.WriteStream }} LogsTo
 *   records: how the stats records go to Origo (null: not logged)
 */

/**
 * The stats records, with those earlier gets kept, on their way to Origo before the exit (record-handoff.js).
 * @param {Client} client @param {LogsTo} logsTo
 */
async function flushLogs(client, { records, stderr }) {
  const warning = records ? await records.finish(client) : null;
  if (warning) stderr.write(`mutp: warning: ${warning}\n`);
}
