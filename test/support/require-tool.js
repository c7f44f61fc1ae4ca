// Tests that need a system tool or root call requireOrSkip(); under CI=true a missing
// prerequisite fails the suite instead of skipping it silently.
import { execFileSync } from 'node:child_process';

/** @param {string} cmd */
export function hasCommand(cmd) {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * Skip the current mocha suite (or fail it under CI=true) when a prerequisite is missing.
 * @param {Mocha.Context} ctx  `this` of a before() hook
 * @param {{commands?: string[], root?: boolean}} needs
 */
export function requireOrSkip(ctx, { commands = [], root = false }) {
  const missing = commands.filter((c) => !hasCommand(c));
  if (root && !isRoot()) missing.push('root');
  if (missing.length === 0) return;
  const why = `missing prerequisite(s): ${missing.join(', ')}`;
  if (process.env.CI === 'true') throw new Error(`${why} (CI=true: failing instead of skipping)`);
  console.warn(`skipping: ${why}`);
  ctx.skip();
}
