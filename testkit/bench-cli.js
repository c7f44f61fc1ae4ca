// A bench's command line: its options parsed, -h/--help printing the usage (exit 0), and
// a refused option printed as `<bench>: ERR_BAD_OPTION: why` with the usage (exit 2).
import { parseArgs } from 'node:util';

/**
 * @template {import('node:util').ParseArgsConfig['options']} O
 * @param {{ name: string, usage: string, options: O }} o  name: as the user types it (bench:cost)
 * @returns {{ values: any, usageError: (msg: string) => never }}
 */
export function benchCli({ name, usage, options }) {
  /** @param {string} msg @returns {never} */
  const usageError = (msg) => {
    process.stderr.write(`${name}: ERR_BAD_OPTION: ${msg}\n\n${usage}\n`);
    process.exit(2);
  };
  /** @type {Record<string, any>} */
  let values = {};
  try {
    ({ values } = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h' } } }));
  } catch (err) {
    usageError(/** @type {Error} */ (err).message);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return { values, usageError };
}
