// What every extension bench does around its phases: its options (--help prints its usage),
// progress lines on stderr, closers run last-first on exit or on a signal, and puppeteer's own
// signal handlers kept out of the way.
import { parseArgs } from 'node:util';

/**
 * The bench's options. `--help` prints `usage` and exits 0; an unknown option or a missing value
 * prints the error and the usage and exits 2, not a stack trace.
 * @template {import('node:util').ParseArgsConfig['options']} O
 * @param {O} options @param {string} usage
 */
export function benchOptions(options, usage) {
  try {
    const { values } = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h', default: false } } });
    if (/** @type {Record<string, unknown>} */ (values).help) {
      process.stdout.write(`${usage}\n`);
      process.exit(0);
    }
    return values;
  } catch (e) {
    process.stderr.write(`${/** @type {Error} */ (e).message}\n\n${usage}\n`);
    process.exit(2);
  }
}

/** @param {string} line */
export const progress = (line) => process.stderr.write(`${line}\n`);

/** @type {(() => Promise<unknown>)[]} closers, run last-first */
const closers = [];
/** @type {Promise<void> | null} */
let closing = null;

/** @param {() => Promise<unknown>} fn */
export const onShutdown = (fn) => { closers.push(fn); };

export function shutdown() {
  closing ??= (async () => {
    for (const c of closers.splice(0).reverse()) await c().catch((err) => progress(`shutdown: ${err?.message ?? err}`));
  })();
  return closing;
}

const SIGNALS = /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP']);
for (const sig of SIGNALS) {
  process.once(sig, () => { progress(`${sig}: shutting down`); shutdown().finally(() => process.exit(130)); });
}

/**
 * puppeteer.launch adds its own signal handlers that kill the browser and exit at once, so our
 * shutdown (fleet, temp folders, the browser profile) would never finish. Drop the handlers
 * that `fn` adds; ours closes the browser too.
 * @template T @param {() => Promise<T>} fn @returns {Promise<T>}
 */
export async function withoutForeignSignalHandlers(fn) {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  try {
    return await fn();
  } finally {
    for (const s of SIGNALS) for (const l of process.listeners(s)) if (!before.get(s).has(l)) process.removeListener(s, l);
  }
}

/**
 * Run the bench's main, print its result, always shut down, exit (socket.io clients and the
 * browser's pipes may hold the loop open after close).
 * @param {() => Promise<unknown>} main @param {(result: any) => string} format
 */
export async function runBench(main, format) {
  let code = 0;
  try {
    process.stdout.write(format(await main()));
  } catch (err) {
    if (closing) {
      progress('interrupted'); // a signal closed the browser under a running phase
      code = 130;
    } else {
      progress(`bench failed: ${err?.code ?? 'ERR_BENCH'}: ${err?.message ?? err}`);
      code = 1;
    }
  } finally {
    progress('phase: shutdown');
    await shutdown();
  }
  process.exit(code);
}
