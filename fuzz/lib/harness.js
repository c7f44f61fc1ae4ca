// Runs one fuzz target: mutated seed-corpus inputs, each with a time limit; records crashes
// (thrown checks, uncaught exceptions, unhandled rejections), hangs, and RSS growth over the burst.
import { readdirSync, readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createRng } from './prng.js';
import { codedError } from '@mutp/common/errors';

export const CORPUS_DIR = new URL('../corpus/', import.meta.url);
const WARMUP_FRACTION = 0.2; // first 20% of iterations warm caches and JIT before RSS is sampled
const MAX_MUTATIONS_PER_INPUT = 4; // stacked mutations reach deeper than single ones
const ALIVE_CHECK_EVERY = 50; // iterations between "is the server still up" probes
const MAX_FAILURES_KEPT = 20; // a broken target must not fill memory with reports

setFlagsFromString('--expose-gc');
const gc = /** @type {() => void} */ (runInNewContext('gc'));

/**
 * @typedef {object} FuzzTarget
 * @property {string} name
 * @property {string} what                    one line: the parser/handler under test
 * @property {number} ciIterations            iterations inside `npm test`
 * @property {number} timeoutMs               per input: longer is a hang
 * @property {() => Promise<any>} setup
 * @property {(seed: Buffer, rng: import('./prng.js').Rng, corpus: Buffer[]) => Buffer} mutate
 * @property {(ctx: any, input: Buffer, rng: import('./prng.js').Rng) => Promise<void>} run  throws when a check fails
 * @property {(ctx: any) => Promise<void>} alive  throws when the process under test is gone
 * @property {(ctx: any) => Promise<void>} teardown
 */

/** @param {string} name @returns {Buffer[]} */
export function loadCorpus(name) {
  const dir = new URL(`${name}/`, CORPUS_DIR);
  const files = readdirSync(dir).sort();
  if (files.length === 0) throw codedError('ERR_FUZZ_NO_CORPUS', `empty seed corpus for ${name}`);
  return files.map((f) => readFileSync(new URL(f, dir)));
}

/** @param {Promise<void>} p @param {number} ms */
function withTimeout(p, ms) {
  let t;
  const timeout = new Promise((_, reject) => { t = setTimeout(() => reject(codedError('ERR_FUZZ_HANG', `no answer within ${ms} ms`)), ms); });
  return Promise.race([p, timeout]).finally(() => clearTimeout(t));
}

/**
 * @param {FuzzTarget} target
 * @param {{iterations?: number, seed?: number, onProgress?: (i: number) => void}} [o]
 */
export async function runTarget(target, { iterations = target.ciIterations, seed = 1, onProgress } = {}) {
  const corpus = loadCorpus(target.name);
  const rng = createRng(seed);
  /** @type {{iteration: number, code: string, message: string, input: string}[]} */
  const failures = [];
  let current = -1;
  /** @type {Buffer} */ let currentInput = Buffer.alloc(0);
  const fail = (/** @type {number} */ iteration, /** @type {any} */ err, /** @type {Buffer} */ input) => {
    if (failures.length < MAX_FAILURES_KEPT) failures.push({ iteration, code: err?.code ?? 'ERR_FUZZ_CHECK', message: String(err?.message ?? err).slice(0, 300), input: input.subarray(0, 512).toString('base64') });
  };
  const onCrash = (/** @type {any} */ err) => fail(current, Object.assign(err instanceof Error ? err : new Error(String(err)), { code: `ERR_FUZZ_UNCAUGHT:${err?.code ?? ''}` }), currentInput);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  const ctx = await target.setup();
  let rssBefore = 0;
  const warmup = Math.floor(iterations * WARMUP_FRACTION);
  const t0 = performance.now();
  try {
    for (let i = 0; i < iterations; i++) {
      if (i === warmup) { gc(); rssBefore = process.memoryUsage().rss; }
      current = i;
      // Every input comes from a seed; a few seeds go through unchanged (the known-good path stays exercised).
      /** @type {Buffer} */ let input = corpus[i % corpus.length];
      if (i >= corpus.length) for (let m = 1 + rng.int(MAX_MUTATIONS_PER_INPUT); m > 0; m--) input = target.mutate(input, rng, corpus);
      currentInput = input;
      try {
        await withTimeout(target.run(ctx, input, rng), target.timeoutMs);
      } catch (err) {
        fail(i, err, input);
      }
      if (i % ALIVE_CHECK_EVERY === ALIVE_CHECK_EVERY - 1) await target.alive(ctx).catch((err) => fail(i, Object.assign(err, { code: 'ERR_FUZZ_DEAD' }), input));
      onProgress?.(i + 1);
    }
    await target.alive(ctx).catch((err) => fail(iterations, Object.assign(err, { code: 'ERR_FUZZ_DEAD' }), Buffer.alloc(0)));
    gc();
    const rssAfter = process.memoryUsage().rss;
    return { target: target.name, iterations, seed, ms: Math.round(performance.now() - t0), failures, rssBeforeMB: rssBefore / 2 ** 20, rssAfterMB: rssAfter / 2 ** 20, rssGrowthMB: (rssAfter - rssBefore) / 2 ** 20 };
  } finally {
    await target.teardown(ctx);
    // A crash of a torn-down server may surface a moment later; keep listening briefly.
    await new Promise((r) => setTimeout(r, 20));
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
  }
}
