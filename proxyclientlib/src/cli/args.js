// `mutp` command-line parsing (node:util parseArgs). Bad input → a UsageError (exit status 2).
import { parseArgs } from 'node:util';
import { MODES, DEFAULT_PROXIES, parseRange } from '../download-options.js';
import { MAX_PROXIES } from '../limits.js';

export const DEFAULT_ORIGO = 'http://127.0.0.1:8080'; // where `npm start` puts Origo

export const USAGE = `Usage:
  mutp get URL [--mode MODE] [--proxies N] [--origo URL] [-o FILE] [--json]
  mutp get URL... | -i FILE [--output-dir DIR] [options]
  mutp proxies [--origo URL] [--n N] [--lat LAT --lon LON] [--json]

Download URL through N proxies of the fleet managed by Origo. Several URLs (or a file of
them) are downloaded in turn over the same proxy connections, each proxy told the next one.

Options for get:
  --mode MODE           coded | uncoded | parallel-http | range-http (default coded)
  --proxies N           how many proxies to use (default ${DEFAULT_PROXIES})
  --origo URL           Origo base URL (default $MUTP_ORIGO or ${DEFAULT_ORIGO})
  -o, --output FILE     write the downloaded bytes to FILE ("-" = stdout); one URL only
  -i, --input FILE      also download the URLs in FILE, one a line (lines starting with "#"
                        are comments; "-" = stdin)
  -O, --output-dir DIR  write each object to DIR, named after its URL's last path segment
  --json                print the stats record as one JSON object on stdout (several URLs:
                        one line each, then a line {"summary": ...})
  --range START-END     download only these bytes (inclusive)
  --window W            MUTP window, packets
  --generation-size G   Coded MUTP generation size, packets
  --feedback-every K    MUTP: feedback every K packets
  --lat LAT --lon LON   your location (Origo picks proxies within 3,000 km)
  --no-log              do not post the stats record to Origo
  -h, --help            this help

A get keeps the addresses of the proxies Origo listed in $MUTP_CACHE_DIR (default
$XDG_CACHE_HOME/mutp or ~/.cache/mutp; empty: keep nothing), and the next get connects to
them while it asks Origo, so its first request to them waits no handshake. For 90 s it keeps
Origo's whole answer too (with the proxies' tickets, in a file only you can read): the next get
then goes to those proxies at once, and asks Origo for the one after it. Its stats records
are kept there too, until a later get sees Origo take them: a get hands them to Origo as it
exits, without waiting for the answer (with nowhere to keep them, it waits up to 3 s).

Exit status: 0 success, 1 download failed, 2 bad usage.`;

export class UsageError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.code = 'ERR_USAGE';
  }
}

/**
 * @param {string[]} argv  arguments after the program name
 * @param {Record<string, string | undefined>} env
 */
export function parseCli(argv, env) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        mode: { type: 'string' },
        proxies: { type: 'string' },
        origo: { type: 'string' },
        output: { type: 'string', short: 'o' },
        input: { type: 'string', short: 'i' },
        'output-dir': { type: 'string', short: 'O' },
        json: { type: 'boolean' },
        range: { type: 'string' },
        window: { type: 'string' },
        'generation-size': { type: 'string' },
        'feedback-every': { type: 'string' },
        lat: { type: 'string' },
        lon: { type: 'string' },
        n: { type: 'string' },
        'no-log': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError(/** @type {Error} */ (err).message);
  }
  const { values: v, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (v.help || command === 'help') return { command: 'help' };
  if (command !== 'get' && command !== 'proxies') {
    throw new UsageError(command ? `unknown command "${command}"` : 'missing command (get or proxies)');
  }
  const origo = v.origo ?? env.MUTP_ORIGO ?? DEFAULT_ORIGO;
  try {
    new URL(origo);
  } catch {
    throw new UsageError(`--origo is not a URL: ${origo}`);
  }
  const lat = optNumber(v.lat, '--lat', -90, 90, false);
  const lon = optNumber(v.lon, '--lon', -180, 180, false);
  if ((lat === undefined) !== (lon === undefined)) throw new UsageError('--lat and --lon go together');
  const json = v.json === true;

  if (command === 'proxies') {
    if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
    return { command, origo, json, lat, lon, n: optNumber(v.n, '--n', 1, MAX_PROXIES, true) };
  }

  const input = v.input ?? null;
  if (rest.length === 0 && input === null) throw new UsageError('missing URL');
  const urls = rest.map((url) => checkUrl(url, ''));
  const outputDir = v['output-dir'] ?? null;
  if (v.output !== undefined && (urls.length > 1 || input !== null)) throw new UsageError('-o takes one URL; for several give --output-dir DIR');
  if (v.output !== undefined && outputDir !== null) throw new UsageError('-o and --output-dir go apart');
  const mode = v.mode ?? 'coded';
  if (!(/** @type {readonly string[]} */ (MODES)).includes(mode)) throw new UsageError(`--mode must be one of ${MODES.join(', ')}`);
  let range = null;
  if (v.range !== undefined) {
    try {
      range = parseRange(v.range);
    } catch (err) {
      throw new UsageError(/** @type {Error} */ (err).message);
    }
  }
  if (v.output === '-' && json) throw new UsageError('-o - and --json both want stdout');
  return {
    command, origo, json, lat, lon, urls, input, mode, range,
    output: v.output ?? null,
    outputDir,
    proxies: optNumber(v.proxies, '--proxies', 1, MAX_PROXIES, true) ?? DEFAULT_PROXIES,
    window: optNumber(v.window, '--window', 1, 1 << 20, true),
    generationSize: optNumber(v['generation-size'], '--generation-size', 1, 255, true),
    feedbackEvery: optNumber(v['feedback-every'], '--feedback-every', 1, 1 << 20, true),
    log: v['no-log'] !== true,
  };
}

/**
 * An http(s) URL as given, or a UsageError naming where it came from.
 * @param {string} url @param {string} where  e.g. "list.txt:3: " ('' for the command line)
 */
function checkUrl(url, where) {
  let u;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`${where}not a URL: ${url}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`${where}only http(s) URLs: ${url}`);
  return url;
}

/**
 * The URLs of a `-i FILE` list: one a line; blank lines and lines starting with "#" skipped.
 * @param {string} text  the file's content
 * @param {string} name  the file's name, for messages
 * @returns {string[]}
 */
export function parseUrlList(text, name) {
  /** @type {string[]} */
  const urls = [];
  text.split(/\r?\n/).forEach((line, k) => {
    const t = line.trim();
    if (t !== '' && !t.startsWith('#')) urls.push(checkUrl(t, `${name}:${k + 1}: `));
  });
  if (urls.length === 0) throw new UsageError(`${name}: no URLs`);
  return urls;
}

/**
 * @param {string | undefined} text
 * @param {string} name
 * @param {number} min
 * @param {number} max
 * @param {boolean} integer
 */
function optNumber(text, name, min, max, integer) {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    throw new UsageError(`${name} must be ${integer ? 'an integer' : 'a number'} in ${min}..${max}, got "${text}"`);
  }
  return n;
}
