// Expand a base configuration and sweep axes into the list of configurations to run
// (cross product, first axis outermost), and turn each into a SimConfig.

import { MODES } from './simulate.js';
import { badInput } from './units.js';

/**
 * @param {Record<string, any>} base   parsed CLI values (see cli-options.js)
 * @param {Array<{axis: string, values: any[]}>} axes
 * @returns {Array<Record<string, any>>} flat option sets, one per configuration
 */
export function expandSweep(base, axes) {
  /** @type {Array<Record<string, any>>} */
  let sets = [{ ...base }];
  for (const { axis, values } of axes) {
    const next = [];
    for (const s of sets) for (const v of values) next.push({ ...s, [axis]: v });
    sets = next;
  }
  // --mode all (outside a mode sweep) runs every mode for each configuration.
  const out = [];
  for (const s of sets) {
    if (s.mode === 'all') for (const m of MODES) out.push({ ...s, mode: m });
    else out.push(s);
  }
  return out;
}

/**
 * @param {Record<string, any>} o  one option set
 * @returns {import('./simulate.js').SimConfig}
 */
export function toSimConfig(o) {
  let rates = o.rates;
  if (o.n !== null && o.n !== undefined) rates = Array.from({ length: o.n }, (_, i) => o.rates[i % o.rates.length]);
  for (const [name, v] of [['delay-ms', o.delayMs], ['loss', o.loss], ['start-delay-ms', o.startDelayMs]]) {
    if (Array.isArray(v) && v.length !== rates.length) {
      throw badInput(`--${name} lists ${v.length} values but there are ${rates.length} sources`);
    }
  }
  return {
    mode: o.mode,
    rates,
    delayMs: o.delayMs,
    loss: o.loss,
    startDelayMs: o.startDelayMs,
    downCapBps: o.downCapBps,
    size: o.size,
    params: {
      window: o.window,
      generationSize: o.generation,
      feedbackEvery: o.feedbackEvery,
      payloadSize: o.payload,
      surplus: o.surplus,
      scheduler: o.scheduler,
    },
    seeds: o.seeds,
    firstSeed: o.firstSeed,
    overheadBytes: o.overheadBytes,
    maxBurst: o.maxBurst,
    sctpSender: o.sctpSender,
    tcpCc: o.tcpCc,
    kept: o.kept,
    startCwnd: o.startCwnd,
    newTcp: o.newTcp,
    keptLists: o.keptLists,
    queueMs: o.queueMs,
    codec: o.codec,
  };
}
