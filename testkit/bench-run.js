// Runs a bench script the way its smoke tests do: in a fresh temporary folder, with `--json FILE`
// and `--dir <folder>/logs` after the given arguments. Gives its printed table and its JSON.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * @param {string} script  the bench's entry point (absolute path)
 * @param {string[]} args
 * @param {{ timeoutMs: number, prefix: string }} o  prefix: the temporary folder's name prefix
 * @returns {Promise<{ table: string, out: any, cleanup: () => void }>}  cleanup removes the folder
 */
export async function runBenchJson(script, args, { timeoutMs, prefix }) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    const json = join(dir, 'bench.json');
    const { stdout } = await promisify(execFile)(process.execPath, [script, ...args, '--json', json, '--dir', join(dir, 'logs')], { timeout: timeoutMs, maxBuffer: 1 << 20 });
    return { table: stdout, out: JSON.parse(readFileSync(json, 'utf8')), cleanup };
  } catch (err) {
    cleanup();
    throw err;
  }
}
