// The `mutp` CLI: `mutp get URL …` and `mutp proxies`. Returns the exit status; never calls process.exit.
import { writeFile } from 'node:fs/promises';
import { createClient } from '../client.js';
import { errorInfo } from '../errors.js';
import { parseCli, USAGE, UsageError } from './args.js';
import { formatProxies, formatStats } from './format.js';
import { createProgress } from './progress.js';

const LOG_FLUSH_TIMEOUT_MS = 3000; // a one-shot CLI waits this long for Origo to take its record, then gives up

/**
 * @param {string[]} argv
 * @param {{stdout: NodeJS.WriteStream, stderr: NodeJS.WriteStream, env: Record<string, string | undefined>}} io
 * @returns {Promise<number>}
 */
export async function main(argv, { stdout, stderr, env }) {
  let args;
  try {
    args = parseCli(argv, env);
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
  const client = createClient({ origo: args.origo, logger });
  try {
    if (args.command === 'proxies') return await listProxies(client, args, stdout, stderr);
    return await get(client, /** @type {any} */ (args), stdout, stderr);
  } finally {
    client.close();
  }
}

/**
 * @param {ReturnType<typeof createClient>} client
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
 * @param {ReturnType<typeof createClient>} client
 * @param {any} args
 * @param {NodeJS.WriteStream} stdout
 * @param {NodeJS.WriteStream} stderr
 */
async function get(client, args, stdout, stderr) {
  const progress = createProgress(stderr);
  const ctrl = new AbortController();
  const onSigint = () => ctrl.abort();
  process.once('SIGINT', onSigint);
  let stats;
  let data = null;
  let failure = null;
  try {
    ({ data, stats } = await client.download(args.url, {
      mode: args.mode, proxies: args.proxies, range: args.range, window: args.window,
      generationSize: args.generationSize, feedbackEvery: args.feedbackEvery, lat: args.lat, lon: args.lon,
      signal: ctrl.signal, log: args.log, onProgress: (p) => progress.update(p),
    }));
  } catch (err) {
    failure = errorInfo(err);
    stats = /** @type {any} */ (err)?.stats ?? { mode: args.mode, n: args.proxies, netBytes: 0, grossBytes: 0, durationMs: 0, goodputBps: 0, throughputBps: 0, normalizedGoodput: 0, error: failure };
  } finally {
    progress.stop();
    process.removeListener('SIGINT', onSigint);
  }
  if (data && args.output) {
    try {
      if (args.output === '-') await new Promise((resolve, reject) => stdout.write(data, (e) => (e ? reject(e) : resolve(undefined))));
      else await writeFile(args.output, data);
    } catch (err) {
      failure = { code: 'ERR_WRITE_OUTPUT', message: `cannot write ${args.output}: ${/** @type {Error} */ (err).message}` };
      stats = { ...stats, error: failure };
    }
  }
  const info = args.output === '-' ? stderr : stdout;
  if (args.json) stdout.write(JSON.stringify(stats) + '\n');
  else info.write(formatStats(stats) + (data && !args.output ? '\n(no -o FILE given: data not saved)' : '') + '\n');
  if (failure) stderr.write(`mutp: ${failure.code}: ${failure.message}\n`);
  if (args.log && !(await client.flushLogs(LOG_FLUSH_TIMEOUT_MS))) {
    stderr.write(`mutp: warning: Origo did not take the stats record within ${LOG_FLUSH_TIMEOUT_MS} ms; it was not logged\n`);
  }
  return failure ? 1 : 0;
}
