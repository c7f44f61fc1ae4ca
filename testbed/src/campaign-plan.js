// The paper's measurement design (Braun, Médard, Ekler 2019, section V) as a list of
// "conditions" (one boxplot each) and a shuffled, balanced list of downloads over them.
// Every download draws its condition — N, the proxies' rates, the mode, w, g, loss — at random
// order from this list, so each box gets exactly `perBox` downloads.
import { createRng } from '@mutp/protocol';

export const MODES = /** @type {const} */ (['parallel-http', 'range-http', 'uncoded', 'coded']);
export const MUTP_MODES = /** @type {const} */ (['uncoded', 'coded']);
const KIB = 1024;
export const SLOW_BPS = 896 * KIB; // paper: 14 proxies at "896 KB/s" (KB = 1024 B)
export const FAST_BPS = 1792 * KIB; // paper: 4 proxies at "1,792 KB/s"
export const PAPER_FLEET = '14x896KiB,4x1792KiB';
export const DEFAULT_WINDOW = 240; // paper FIGURE 11: w = 240
export const DEFAULT_GENERATION = 24; // paper FIGURE 11: g = 24
// One-way delay on the client's links (RTT = 2×): the paper's extension only used proxies
// within 3,000 km of the user (section IV) in AWS Virginia, Ohio, Oregon, Frankfurt and Paris.
// 3,000 km of fibre is ~15 ms one way at 200 km/ms; routes are longer than great circles and
// the access network adds more, so 25 ms one way (RTT 50 ms) is a mid-range user, e.g. a
// central-European home user to Frankfurt or a US East-coast user to Virginia/Ohio.
export const DEFAULT_DELAY_MS = 25;

/** Proxy sets of FIGURE 11's x-axis (and the heterogeneous mix the paper could not exploit). */
export const COMPOSITIONS = /** @type {const} */ ({
  '1x896': { slow: 1, fast: 0 },
  '1x1792': { slow: 0, fast: 1 },
  '2x896': { slow: 2, fast: 0 },
  '4x896': { slow: 4, fast: 0 },
  '1x1792+3x896': { slow: 3, fast: 1 },
  '6x896': { slow: 6, fast: 0 },
});
export const MIX = '1x1792+3x896'; // FIGURES 12–15 use one 1,792 and three 896 KB/s proxies

/** Chunk-size bins in KiB [lo, hi), drawn on a 32 KiB grid so proxies' caches warm quickly. */
export const SIZE_BINS = /** @type {const} */ ({
  '256-512KB': [256, 512],
  '512KB-1MB': [512, 1024],
  '1-2MB': [1024, 2048],
  '2-4MB': [2048, 4096],
});
const SIZE_STEP_KIB = 32;
export const MAIN_BIN = '1-2MB'; // paper FIGURE 10: most YouTube chunks are 1–2 MB

/**
 * @typedef {{composition: keyof typeof COMPOSITIONS, mode: typeof MODES[number], window: number, generationSize: number, lossPct: number, sizeBin: keyof typeof SIZE_BINS}} Condition
 */

/** @param {Condition} c */
export function conditionKey(c) {
  return `${c.composition}|${c.mode}|w${c.window}|g${c.generationSize}|loss${c.lossPct}|${c.sizeBin}`;
}

/** @param {Partial<Condition> & {composition: keyof typeof COMPOSITIONS, mode: typeof MODES[number]}} c @returns {Condition} */
export function condition(c) {
  return { window: DEFAULT_WINDOW, generationSize: DEFAULT_GENERATION, lossPct: 0, sizeBin: MAIN_BIN, ...c };
}

/** Is this one of FIGURE 15's injected-loss boxes (the mix at the default w, g and 1–2 MB, any loss)? @param {Condition} c */
export function isLossBox(c) {
  return conditionKey(c) === conditionKey(condition({ composition: MIX, mode: c.mode, lossPct: c.lossPct }));
}

/**
 * Does this box run one download at a time? FIGURE 11's boxes do (every composition and mode at the default
 * w, g, no loss, 1–2 MB): the targets are measured on them and the simulator is compared with them
 * (sim:compare), so they must measure the protocol, not the machine: concurrent downloads share the client's
 * delay line and the CPU. With `lossAlone` (the loss preset) FIGURE 15's loss boxes do too.
 * @param {Condition} c
 * @param {{lossAlone?: boolean}} [rule]
 */
export function runsAlone(c, rule = {}) {
  if (rule.lossAlone && isLossBox(c)) return true;
  return conditionKey(c) === conditionKey(condition({ composition: c.composition, mode: c.mode }));
}

/** Injected loss rates (%) of the loss preset: the paper's 0–2% and 5%, where cubic's TCP collapses. */
export const LOSS_PRESET_PCT = /** @type {const} */ ([1, 2, 5]);
/**
 * Downloads per box of the loss preset. Duration, estimated from the paper campaign's mix boxes at
 * RTT 50 ms (mean download 0.7–1.1 s lossless, 0.9–1.8 s at 1%, 1.1–2.7 s at 2%) and 5% projected
 * from 4×896 KiB/s (Coded 3.5 s with usrsctp's sender, Range-split 2.6 s, Parallel and Uncoded ~5 s),
 * ~34 s for one download of each of the 16 boxes, plus ~0.65 s per download of flush, preconnect and
 * settling before each one that runs alone (campaign-fig11-*: 1.9 s per download for 1.25 s of
 * download): 16 × (34 + 16 × 0.65) s ≈ 12 min, + ~0.5 min start-up. A check with one download per box
 * (loss-tolerant sender, load average ~4) took 27 s of downloads, Parallel HTTP at 5% 8.6 s of them: ~10 min.
 */
const LOSS_PRESET_PER_BOX = 16;

export const PRESETS = /** @type {const} */ ({
  // < 10 min on 2 cores: every box of FIGURE 11, and the grids' extremes.
  // quick leaves out the 2–4 MB bin and 2% loss (the longest downloads) to stay under 10 minutes at RTT 50 ms
  quick: { perBox: 30, concurrency: 3, g: [12, 20], w: [120, 480], loss: [1], sizeBins: /** @type {(keyof typeof SIZE_BINS)[]} */ (['256-512KB']) },
  // the paper's design: at least 100 downloads per box, all grid points.
  paper: { perBox: 100, concurrency: 3, g: [12, 20], w: [120, 360, 480], loss: [0.5, 1, 2], sizeBins: /** @type {(keyof typeof SIZE_BINS)[]} */ (['256-512KB', '512KB-1MB', '2-4MB']) },
  // FIGURE 15 alone: the mix's loss boxes, every mode, each download alone (~12 min at RTT 50 ms)
  loss: { perBox: LOSS_PRESET_PER_BOX, concurrency: 1, g: [], w: [], loss: LOSS_PRESET_PCT, sizeBins: [], only: /** @type {(keyof typeof COMPOSITIONS)[]} */ ([MIX]), lossAlone: true },
  // CI smoke: two proxies, a handful of downloads.
  smoke: { perBox: 2, concurrency: 1, g: [], w: [], loss: [], sizeBins: [] },
});

/**
 * Every condition the campaign measures. FIGURE 11's grid, then the grids of FIGURES 12–15 on
 * the mix (the baseline mix condition is shared: g=24, w=240, loss 0, 1–2 MB).
 * @param {{g: readonly number[], w: readonly number[], loss: readonly number[], sizeBins: readonly (keyof typeof SIZE_BINS)[], compositions?: (keyof typeof COMPOSITIONS)[], only?: readonly (keyof typeof COMPOSITIONS)[]}} grid
 *   compositions: those the fleet can serve; only: the preset's own (the loss preset: the mix)
 * @returns {Condition[]}
 */
export function planConditions(grid) {
  const comps = (grid.compositions ?? /** @type {(keyof typeof COMPOSITIONS)[]} */ (Object.keys(COMPOSITIONS))).filter((c) => !grid.only || grid.only.includes(c));
  /** @type {Map<string, Condition>} */
  const all = new Map();
  const add = (/** @type {Condition} */ c) => all.set(conditionKey(c), c);
  for (const composition of comps) for (const mode of MODES) add(condition({ composition, mode }));
  if (comps.includes(MIX)) {
    for (const generationSize of grid.g) add(condition({ composition: MIX, mode: 'coded', generationSize })); // g matters to Coded MUTP only
    for (const window of grid.w) for (const mode of MUTP_MODES) add(condition({ composition: MIX, mode, window })); // w matters to MUTP only
    for (const lossPct of grid.loss) for (const mode of MODES) add(condition({ composition: MIX, mode, lossPct }));
    for (const sizeBin of grid.sizeBins) for (const mode of MODES) add(condition({ composition: MIX, mode, sizeBin }));
  }
  return [...all.values()];
}

/**
 * A shuffled list of downloads, `perBox` per condition, each with its chunk size.
 * @param {Condition[]} conditions
 * @param {number} perBox
 * @param {() => number} random  uniform [0, 1)
 * @returns {{condition: Condition, sizeKiB: number}[]}
 */
export function planDownloads(conditions, perBox, random) {
  const items = [];
  for (const c of conditions) {
    const [lo, hi] = SIZE_BINS[c.sizeBin];
    const steps = (hi - lo) / SIZE_STEP_KIB;
    for (let i = 0; i < perBox; i++) items.push({ condition: c, sizeKiB: lo + Math.floor(random() * steps) * SIZE_STEP_KIB });
  }
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** The protocol's seeded PRNG (mulberry32), so a campaign's plan can be replayed. */
export const seededRandom = createRng;
