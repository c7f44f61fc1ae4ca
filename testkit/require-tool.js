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
  skipOrFail(ctx, `missing prerequisite(s): ${missing.join(', ')}`);
}

/**
 * Skip the current mocha suite with a warning, or fail it under CI=true.
 * @param {Mocha.Context} ctx
 * @param {string} why
 */
export function skipOrFail(ctx, why) {
  if (process.env.CI === 'true') throw new Error(`${why} (CI=true: failing instead of skipping)`);
  console.warn(`skipping: ${why}`);
  ctx.skip();
}

/**
 * Run a prerequisite step (e.g. building a helper); when it throws, skip the suite or fail under CI=true.
 * @template T
 * @param {Mocha.Context} ctx
 * @param {() => T} step
 * @returns {T}
 */
export function requireStepOrSkip(ctx, step) {
  try {
    return step();
  } catch (err) {
    skipOrFail(ctx, /** @type {Error} */ (err).message);
    throw err; // not reached: skip() throws
  }
}
