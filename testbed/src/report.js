// The campaign report: Markdown + SVG boxplots reproducing the paper's FIGURES 11–15, the
// paper-vs-ours claims table, the targets with measured values, and CPU figures that
// explain misses. Built only from the result rows, so it can be re-made from results.jsonl.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { boxplotSvg, lineChartSvg, modeName } from './charts.js';
import { median } from './stats.js';
import { MODES, MUTP_MODES, COMPOSITIONS, MIX, MAIN_BIN, SIZE_BINS, DEFAULT_WINDOW, DEFAULT_GENERATION, SLOW_BPS } from './campaign-plan.js';
import { inferLoss, lossBin, LOSS_BINS, INFER_WINDOW_MS } from './fig15-paper.js';
import { lossCurves, lossTable, codedKeepsVerdict, KEEPS_SHARE, CLAIM_LOSS_RANGE_PCT } from './fig15-loss.js';
import { breakdownTable } from './time-report.js';
import { TIME_BREAKDOWN_PARTS } from '@mutp/protocol';

const KIB = 1024;
const HTTP_MODES = ['parallel-http', 'range-http'];
const PAPER_MODES = ['parallel-http', 'uncoded', 'coded']; // the three the paper compared
const APPROX_BAND = 0.2; // "≈" in the claims table: within ±20%
const NO_EFFECT_SPREAD = 0.1; // "no significant effect": medians within 10% of each other
const CPU_BOUND_FRACTION = 0.8; // a process above 80% of one core is CPU-bound
const TARGET_SHARE = 0.8; // target: goodput ≥ 0.8 × the shaped links' sum

/**
 * @typedef {{key: string, composition: string, mode: string, window: number, generationSize: number, lossPct: number, sizeBin: string, sizeKiB: number,
 *   ok: boolean, error: string | null, goodputBps: number | null, throughputBps: number | null, normalizedGoodput: number | null,
 *   grossBytes: number, netBytes: number, proxyCpuMax: number, proxyCpuMean: number, clientCpu: number, concurrent: number, loadavg1: number, lossEstimate: number | null,
 *   proxyIds: string[], startedAt: string | null, durationMs: number | null, alone?: boolean, loadavg1Start?: number, busyCores?: number | null, stolen?: number | null, delaylineCpu?: number | null,
 *   timeBreakdown?: ReturnType<typeof import('@mutp/protocol').computeTimeBreakdown> | null}} Row
 */

/**
 * @param {Row[]} rows
 * @param {Partial<Row>} where
 */
function select(rows, where) {
  return rows.filter((r) => r.ok && Object.entries(where).every(([k, v]) => /** @type {any} */ (r)[k] === v));
}
const base = (/** @type {string} */ composition, /** @type {string} */ mode) => ({ composition, mode, window: DEFAULT_WINDOW, generationSize: DEFAULT_GENERATION, lossPct: 0, sizeBin: MAIN_BIN });
/** @param {Row[]} rows @param {Partial<Row>} where @param {keyof Row} metric */
const med = (rows, where, metric) => {
  const v = select(rows, where).map((r) => /** @type {number} */ (r[metric])).filter(Number.isFinite);
  return v.length ? median(v) : NaN;
};
const kib = (/** @type {number} */ bps) => (Number.isFinite(bps) ? `${Math.round(bps / KIB)} KiB/s` : 'n/a');
const pct = (/** @type {number} */ x) => (Number.isFinite(x) ? `${(x * 100).toFixed(0)}%` : 'n/a');
const num = (/** @type {number} */ x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const ratio = (/** @type {number} */ a, /** @type {number} */ b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : NaN);
const verdict = (/** @type {boolean | null} */ ok) => (ok === null ? 'no data' : ok ? 'holds' : 'does not hold');

/**
 * The load the boxes that run alone (FIGURE 11's; with the loss preset FIGURE 15's too) ran at, and the delay line's cost there.
 * @param {Row[]} rows @param {number} cores
 */
function loadLine(rows, cores) {
  const alone = rows.filter((r) => r.alone);
  if (!alone.length) return '';
  const loads = alone.map((r) => r.loadavg1).filter(Number.isFinite);
  const dl = alone.filter((r) => r.composition === '4x896' && r.mode === 'coded').map((r) => r.delaylineCpu).filter((v) => Number.isFinite(v));
  return `Of the downloads, ${alone.length} ran alone; 1-min load average at their ends: median ${num(median(loads), 1)}, max ${num(Math.max(...loads), 1)} on ${cores} cores (the machine is shared; the average lags a minute behind), busy cores during them: median ${num(median(alone.map((r) => /** @type {number} */ (r.busyCores)).filter(Number.isFinite)), 1)}.` +
    stolenLine(alone) +
    (dl.length ? ` The delay line used ${pct(median(/** @type {number[]} */ (dl)))} of a core (median, max ${pct(Math.max(.../** @type {number[]} */ (dl)))}) during the Coded 4×896 downloads.` : '');
}

/**
 * The CPU time the machine's host took while the downloads ran (a virtual machine's steal): a
 * download then ran slower than the machine it was measured on. Rows from before it was recorded
 * have none, and say nothing.
 * @param {Row[]} rows
 */
function stolenLine(rows) {
  const stolen = /** @type {number[]} */ (rows.map((r) => r.stolen).filter((v) => typeof v === 'number' && Number.isFinite(v)));
  if (!stolen.length) return '';
  return ` The host took ${pct(median(stolen))} of the machine's CPU time during them (steal: median, max ${pct(Math.max(...stolen))}).`;
}

/** What SCTP sender the proxies' data channels ran (FIGURE 15 depends on it), from their GET /rtc/build. @param {Record<string, any>} meta */
function senderLine(meta) {
  const what = /** @type {Record<string, string>} */ ({
    'loss-tolerant': 'loss-tolerant (the tuned build\'s: random loss does not cut its congestion window)',
    usrsctp: 'usrsctp\'s (every loss halves its congestion window, as TCP Reno\'s)',
    mixed: `mixed: ${(meta.proxyRtcBuilds ?? []).map((/** @type {{id: string, build: any}} */ p) => `${p.id} ${p.build?.sender ?? 'unknown'}`).join(', ')}`,
  });
  const builds = Array.isArray(meta.rtcBuilds) && meta.rtcBuilds.length ? ` Build: ${meta.rtcBuilds.join(' | ')}.` : '';
  return meta.sctpSender
    ? `**Proxies' SCTP sender:** ${what[meta.sctpSender] ?? meta.sctpSender}, as each proxy's GET /rtc/build reported it.${builds}`
    : `**Proxies' SCTP sender:** not recorded for this run (its meta.json has no sctpSender).${builds}`;
}

/**
 * @param {object} o
 * @param {Row[]} o.rows
 * @param {string} o.dir
 * @param {object} o.meta   {preset, fleet, concurrency, startedAt, finishedAt, cores, commit, calibration?, origoUrl, delayMs?, delayMethod?, sctpSender?, proxyRtcBuilds?, rtcBuilds?}
 * @returns {{markdown: string, claims: string, targets: {name: string, ok: boolean | null}[]}}
 */
export function writeReport({ rows, dir, meta }) {
  const delayMs = Number(meta.delayMs ?? 0); // reports made before --delay-ms existed had none
  const sender = meta.sctpSender ?? null; // runs before the proxies reported their sender have none
  const rttText = delayMs > 0 ? `RTT ${2 * delayMs} ms` : 'RTT ≈ 0.1 ms';
  const figures = [];
  const fig = (/** @type {string} */ file, /** @type {string} */ caption, /** @type {Parameters<typeof boxplotSvg>[0]} */ spec) => {
    const hasData = spec.ticks.some((t) => spec.modes.some((m) => spec.values(t, m).length > 0));
    if (!hasData) return;
    writeFileSync(join(dir, file), boxplotSvg(spec));
    figures.push(`### ${caption}\n\n![${caption}](${file})\n`);
  };
  const comps = Object.keys(COMPOSITIONS).filter((c) => MODES.some((m) => select(rows, base(c, m)).length));
  const metricOf = (/** @type {keyof Row} */ k) => (/** @type {Partial<Row>} */ where) => select(rows, where).map((r) => /** @type {number} */ (r[k]));

  // FIGURE 11: goodput, throughput and normalized goodput over N and the proxies' rates.
  for (const [metric, label, scale, file] of /** @type {const} */ ([['goodputBps', 'goodput (KiB/s)', KIB, 'fig11-goodput.svg'], ['throughputBps', 'throughput (KiB/s)', KIB, 'fig11-throughput.svg'], ['normalizedGoodput', 'normalized goodput', 1, 'fig11-normalized.svg']])) {
    fig(file, `FIGURE 11 — ${label}, 1–2 MB chunks, w=240, g=24, by proxies used`, {
      title: `FIGURE 11: ${label} by proxy set (1–2 MB chunks, w=240, g=24)`, yName: label, ticks: comps, modes: [...MODES], scale,
      values: (t, m) => metricOf(metric)(base(t, m)),
      lines: metric === 'goodputBps' ? [{ value: (TARGET_SHARE * 4 * SLOW_BPS) / KIB, label: 'target N=4: 0.8×4×896' }, { value: (TARGET_SHARE * 5 * SLOW_BPS) / KIB, label: 'target mix: 0.8×4480' }] : metric === 'normalizedGoodput' ? [{ value: 0.9, label: 'target 0.9' }] : [],
    });
  }
  // FIGURE 12: normalized goodput by chunk size on the mix.
  const bins = Object.keys(SIZE_BINS).filter((b) => MODES.some((m) => select(rows, { ...base(MIX, m), sizeBin: b }).length));
  fig('fig12-size.svg', 'FIGURE 12 — normalized goodput by chunk size, 1×1792 + 3×896 KiB/s', {
    title: 'FIGURE 12: normalized goodput by chunk size (1×1792 + 3×896 KiB/s)', yName: 'normalized goodput', ticks: bins, modes: [...MODES],
    values: (t, m) => metricOf('normalizedGoodput')({ ...base(MIX, m), sizeBin: t }),
  });
  // FIGURE 13: generation size (Coded only varies; the others are the g-independent baseline).
  const gs = [...new Set(select(rows, { composition: MIX, mode: 'coded', window: DEFAULT_WINDOW, lossPct: 0, sizeBin: MAIN_BIN }).map((r) => r.generationSize))].sort((a, b) => a - b);
  fig('fig13-generation.svg', 'FIGURE 13 — normalized goodput by generation size g (mix, w=240)', {
    title: 'FIGURE 13: normalized goodput by g (1×1792 + 3×896, w=240)', yName: 'normalized goodput', ticks: gs.map((g) => `g=${g}`), modes: PAPER_MODES,
    values: (t, m) => metricOf('normalizedGoodput')(m === 'coded' ? { ...base(MIX, m), generationSize: Number(t.slice(2)) } : base(MIX, m)),
  });
  // FIGURE 14: window size (MUTP only varies).
  const ws = [...new Set(select(rows, { composition: MIX, mode: 'uncoded', lossPct: 0, sizeBin: MAIN_BIN }).map((r) => r.window))].sort((a, b) => a - b);
  fig('fig14-window.svg', 'FIGURE 14 — normalized goodput by window size w (mix, g=24)', {
    title: 'FIGURE 14: normalized goodput by w (1×1792 + 3×896, g=24)', yName: 'normalized goodput', ticks: ws.map((w) => `w=${w}`), modes: PAPER_MODES,
    values: (t, m) => metricOf('normalizedGoodput')(m === 'parallel-http' ? base(MIX, m) : { ...base(MIX, m), window: Number(t.slice(2)) }),
  });
  // FIGURE 15: loss.
  const losses = [...new Set(select(rows, { composition: MIX, mode: 'parallel-http', sizeBin: MAIN_BIN }).map((r) => r.lossPct))].sort((a, b) => a - b);
  for (const [metric, label, scale, file] of /** @type {const} */ ([['goodputBps', 'goodput (KiB/s)', KIB, 'fig15-loss-goodput.svg'], ['normalizedGoodput', 'normalized goodput', 1, 'fig15-loss-normalized.svg']])) {
    fig(file, `FIGURE 15 — ${label} by loss rate (mix, w=240, g=24)`, {
      title: `FIGURE 15: ${label} by loss (1×1792 + 3×896)`, yName: label, ticks: losses.map((l) => `${l}%`), modes: [...MODES], scale,
      values: (t, m) => metricOf(metric)({ ...base(MIX, m), lossPct: Number(t.slice(0, -1)) }),
    });
  }
  // FIGURE 15 as curves: every mode's median goodput against the injected loss, and its ratio to lossless.
  const curves = lossCurves(rows);
  if (curves.losses.length) {
    writeFileSync(join(dir, 'fig15-loss-curves.svg'), lineChartSvg({
      title: 'FIGURE 15: median goodput by injected loss (1×1792 + 3×896 KiB/s)', xName: 'injected loss (%)', yName: 'goodput (KiB/s)', scale: KIB,
      series: curves.modes.map((m) => ({ mode: m.mode, points: m.points.map((p) => ({ x: p.lossPct, median: p.median, q1: p.q1, q3: p.q3 })) })),
    }));
    const caption = 'FIGURE 15 — median goodput against injected loss, every mode (mix, w=240, g=24; bars: interquartile range)';
    figures.push(`### ${caption}\n\n![${caption}](fig15-loss-curves.svg)\n\nMedian goodput at each injected loss rate, × that mode's own lossless median, and downloads:\n\n${lossTable(curves, modeName, kib)}\n`);
  }
  // FIGURE 15 the paper's way: no injected loss; MUTP loss measured on the wire, HTTP loss inferred (paper V.e).
  const fig15Rows = inferLoss(rows.filter((r) => r.lossPct === 0 && r.composition === MIX && r.window === DEFAULT_WINDOW && r.generationSize === DEFAULT_GENERATION && r.sizeBin === MAIN_BIN));
  const fig15Ok = fig15Rows.filter((r) => r.ok);
  const fig15Bins = LOSS_BINS.map((b) => b.label).filter((l) => fig15Ok.some((r) => lossBin(r.lossPctOnWire) === l));
  fig('fig15-paper-goodput.svg', 'FIGURE 15, the paper\'s way — goodput by loss measured on the wire (no injected loss; mix, w=240, g=24)', {
    title: 'FIGURE 15 (paper\'s way): goodput by measured loss (1×1792 + 3×896, no injected loss)', yName: 'goodput (KiB/s)', ticks: fig15Bins, modes: [...MODES], scale: KIB,
    values: (t, m) => fig15Ok.filter((r) => r.mode === m && lossBin(r.lossPctOnWire) === t).map((r) => /** @type {number} */ (r.goodputBps)),
  });
  const fig15Count = (/** @type {string} */ how) => fig15Rows.filter((r) => HTTP_MODES.includes(r.mode) && r.lossHow === how).length;
  const fig15Text = fig15Rows.length
    ? `FIGURE 15 appears twice. **Injected** (\`fig15-loss-*.svg\`): random loss added with iptables on the download's links, one box per injected rate — it shows how each protocol reacts to a known loss rate. **The paper's way** (\`fig15-paper-goodput.svg\`): ${fig15Rows.length} downloads of the un-injected mix box, binned by the loss they met on the wire — MUTP's own sequence-gap loss estimate; an HTTP download's loss inferred as the mean of the MUTP downloads by the same client within ±${INFER_WINDOW_MS / 1000} s with the same proxies (${fig15Count('same-proxies')} HTTP downloads), or else sharing at least one proxy, weighted by proxies shared (${fig15Count('shared-proxy')}; our fleet picks each download's proxies at random, so an identical set is rare), none for ${fig15Count(null)}. It shows what the paper's FIGURE 15 showed: goodput against the loss that happened, which here is only the shaping queues' own drops (bins: ${LOSS_BINS.map((b) => `${b.label} ${fig15Ok.filter((r) => lossBin(r.lossPctOnWire) === b.label).length}`).join(', ')} downloads). Medians by bin: ${fig15Bins.map((l) => `${l}: ${MODES.map((m) => `${modeName(m)} ${kib(median(fig15Ok.filter((r) => r.mode === m && lossBin(r.lossPctOnWire) === l).map((r) => /** @type {number} */ (r.goodputBps))))}`).join(', ')}`).join('; ')}.`
    : '';

  // CPU: to explain misses (2 shared cores).
  for (const [metric, label, file] of /** @type {const} */ ([['proxyCpuMax', 'busiest proxy CPU (fraction of a core)', 'cpu-proxy.svg'], ['clientCpu', 'client CPU (fraction of a core)', 'cpu-client.svg']])) {
    fig(file, `CPU — ${label}, FIGURE 11 conditions`, {
      title: `${label}`, yName: 'cores', ticks: comps, modes: [...MODES], values: (t, m) => metricOf(metric)(base(t, m)),
    });
  }

  // ---- claims: the paper's vs our medians ----
  const g = (/** @type {string} */ c, /** @type {string} */ m, /** @type {Partial<Row>} */ extra = {}) => med(rows, { ...base(c, m), ...extra }, 'goodputBps');
  const ng = (/** @type {string} */ c, /** @type {string} */ m, /** @type {Partial<Row>} */ extra = {}) => med(rows, { ...base(c, m), ...extra }, 'normalizedGoodput');
  const claimRows = [];
  const claim = (/** @type {string} */ paper, /** @type {string} */ ours, /** @type {boolean | null} */ ok) => claimRows.push(`| ${paper} | ${ours} | ${verdict(ok)} |`);
  const near = (/** @type {number} */ r) => (Number.isFinite(r) ? Math.abs(r - 1) <= APPROX_BAND || r > 1 : null);
  {
    const ru = ratio(g('2x896', 'uncoded'), g('2x896', 'parallel-http'));
    const rc = ratio(g('2x896', 'coded'), g('2x896', 'parallel-http'));
    claim('MUTP goodput ≈ Parallel HTTP at N=2 (FIG. 11)', `2×896: Uncoded ${kib(g('2x896', 'uncoded'))}, Coded ${kib(g('2x896', 'coded'))}, Parallel HTTP ${kib(g('2x896', 'parallel-http'))} (×${num(ru)}, ×${num(rc)})`, Number.isFinite(ru) && Number.isFinite(rc) ? Boolean(near(ru) && near(rc)) : null);
  }
  for (const c of ['4x896', '6x896']) {
    const ru = ratio(g(c, 'uncoded'), g(c, 'parallel-http'));
    const rc = ratio(g(c, 'coded'), g(c, 'parallel-http'));
    claim(`MUTP goodput > Parallel HTTP at N ≥ 4 (${c.replace('x', '×')})`, `Uncoded ${kib(g(c, 'uncoded'))} (×${num(ru)}), Coded ${kib(g(c, 'coded'))} (×${num(rc)}), Parallel HTTP ${kib(g(c, 'parallel-http'))}`, Number.isFinite(ru) && Number.isFinite(rc) ? ru > 1 && rc > 1 : null);
  }
  {
    const best = (/** @type {string} */ m) => {
      let top = { r: NaN, c: '' };
      for (const c of comps) {
        const r = ratio(ng(c, m), ng(c, 'parallel-http'));
        if (Number.isFinite(r) && !(r <= top.r)) top = { r, c };
      }
      return top;
    };
    const u = best('uncoded');
    const c = best('coded');
    claim('Normalized goodput: Uncoded up to 2× Parallel HTTP (FIG. 11)', `up to ×${num(u.r)} (${u.c})`, Number.isFinite(u.r) ? u.r >= 2 * (1 - APPROX_BAND) : null);
    claim('Normalized goodput: Coded up to 3× Parallel HTTP (FIG. 11)', `up to ×${num(c.r)} (${c.c})`, Number.isFinite(c.r) ? c.r >= 3 * (1 - APPROX_BAND) : null);
  }
  {
    const r = ratio(ng(MIX, 'uncoded', { window: 480 }), ng(MIX, 'parallel-http'));
    claim('w=480: Uncoded normalized goodput +40% over HTTP (FIG. 14)', `Uncoded ${num(ng(MIX, 'uncoded', { window: 480 }))} vs Parallel HTTP ${num(ng(MIX, 'parallel-http'))}: ${Number.isFinite(r) ? `${r >= 1 ? '+' : ''}${((r - 1) * 100).toFixed(0)}%` : 'n/a'}`, Number.isFinite(r) ? r >= 1.4 * (1 - APPROX_BAND / 2) : null);
  }
  {
    const vals = gs.map((x) => ng(MIX, 'coded', { generationSize: x })).filter(Number.isFinite);
    const spread = vals.length > 1 ? Math.max(...vals) / Math.min(...vals) - 1 : NaN;
    claim('Generation size g has no significant effect (FIG. 13)', `Coded normalized goodput ${gs.map((x) => `g=${x}: ${num(ng(MIX, 'coded', { generationSize: x }))}`).join(', ')} (spread ${pct(spread)})`, Number.isFinite(spread) ? spread <= NO_EFFECT_SPREAD : null);
  }
  {
    const drop = (/** @type {string} */ m) => 1 - ratio(g(MIX, m, { lossPct: 1 }), g(MIX, m));
    const change = (/** @type {number} */ d) => (Number.isFinite(d) ? `${d > 0 ? '−' : '+'}${pct(Math.abs(d))}` : 'n/a');
    const dh = drop('parallel-http');
    const du = drop('uncoded');
    const dc = drop('coded');
    const holds = [dh, du, dc].every(Number.isFinite) ? dh > du && dh > dc : null;
    // why it can fail here: usrsctp's sender halves its window on loss even on unreliable channels (not the loss-tolerant one)
    const sctp = holds === false && delayMs > 0 && sender !== 'loss-tolerant' ? ' — WebRTC data channels run SCTP\'s loss-based (Reno) congestion control even when unreliable, so random loss caps each MUTP path about as it caps a TCP Reno flow (≈ MSS/RTT × 1.22/√p), and below cubic\'s TCP' : '';
    claim('At 1% loss Parallel HTTP drops while MUTP holds (FIG. 15)', `${rttText}; goodput change at 1% vs 0%: Parallel HTTP ${change(dh)}, Range-split ${change(drop('range-http'))}, Uncoded ${change(du)}, Coded ${change(dc)}${sctp}`, holds);
  }
  {
    const v = codedKeepsVerdict(curves, kib);
    const [lo, hi] = CLAIM_LOSS_RANGE_PCT;
    claim(`Coded MUTP keeps its goodput under random loss (FIG. 15): ≥ ${KEEPS_SHARE} of its lossless median at ${lo}–${hi}% injected loss, and above Range-split HTTP there`,
      `${rttText}, SCTP sender ${sender ?? 'not recorded'}; Coded lossless ${kib(g(MIX, 'coded'))}; ${v.text}`, v.ok);
  }
  const claims = ['| paper claim | our medians | verdict |', '|---|---|---|', ...claimRows].join('\n');

  // ---- targets ----
  /** @type {{name: string, ok: boolean | null}[]} */
  const targets = [];
  const targetRows = [];
  /** Load average per core above which every process waits for a CPU (1 = exactly busy; noise around it is not starvation). */
  const OVERSUBSCRIBED_LOAD_PER_CORE = 1.5;
  /** The largest parts of a box's time breakdown besides the transfer itself: where its time went. @param {typeof rows} s */
  const lostText = (s) => {
    const withTb = s.filter((r) => r.ok && r.timeBreakdown);
    if (!withTb.length) return '';
    const parts = TIME_BREAKDOWN_PARTS.filter((p) => p !== 'transferMs')
      .map((p) => ({ p, ms: median(withTb.map((r) => /** @type {any} */ (r.timeBreakdown)[p]).filter((v) => typeof v === 'number')) }))
      .filter((x) => x.ms > 0).sort((a, b) => b.ms - a.ms).slice(0, 3);
    return parts.length ? `; the median download lost most to ${parts.map((x) => `${x.p.replace(/Ms$/, '')} ${num(x.ms, 0)} ms`).join(', ')} (see "Where the time goes")` : '';
  };
  const why = (/** @type {string} */ c, /** @type {string} */ m) => {
    const s = select(rows, base(c, m));
    if (!s.length) return '';
    const pc = median(s.map((r) => r.proxyCpuMax));
    const cc = median(s.map((r) => r.clientCpu));
    const la = median(s.map((r) => r.loadavg1));
    const dup = median(s.map((r) => (r.grossBytes > 0 ? 1 - r.netBytes / r.grossBytes : NaN)).filter(Number.isFinite));
    const bound = [pc > CPU_BOUND_FRACTION ? `the busiest proxy used ${pct(pc)} of a core` : '', cc > CPU_BOUND_FRACTION ? `the client used ${pct(cc)} of a core` : ''].filter(Boolean);
    const starved = la > OVERSUBSCRIBED_LOAD_PER_CORE * (meta.cores ?? 2);
    // the request's round trip alone bounds goodput: size / (size / Σ link rates + RTT)
    const bytes = median(s.map((r) => r.netBytes));
    const comp = COMPOSITIONS[/** @type {keyof typeof COMPOSITIONS} */ (c)];
    const links = comp ? (comp.slow + 2 * comp.fast) * SLOW_BPS : NaN; // a fast proxy is 2 × 896 KiB/s
    const ceiling = delayMs > 0 && links > 0 ? bytes / (bytes / links + (2 * delayMs) / 1000) : NaN;
    const measured = median(s.filter((r) => r.ok).map((r) => r.goodputBps));
    const rttPart = Number.isFinite(ceiling)
      ? `at ${rttText} a ${num(bytes / 1e6, 2)} MB chunk cannot beat ${kib(ceiling)} (${pct(ceiling / links)} of the links: one request round trip, before any ramp-up); the median is ${pct(measured / ceiling)} of that. `
      : '';
    return `${rttPart}busiest proxy CPU ${pct(pc)}, client CPU ${pct(cc)} of a core, load average ${num(la, 1)} on ${meta.cores} cores; ${pct(dup)} of the received bytes were not useful` +
      (bound.length ? ` → CPU-bound: ${bound.join(', ')}` : starved
        ? ' → the machine was oversubscribed (load > cores): every process waits for a CPU, so feedback reaches the proxies late and they keep sending packets the client no longer needs (the non-useful share above); the processes\' own CPU shares are low because they were waiting, not idle'
        : ` → not CPU-bound: the shortfall is in the transport and protocol${lostText(s)}`);
  };
  const target = (/** @type {string} */ name, /** @type {number} */ value, /** @type {number} */ goal, /** @type {string} */ shown, /** @type {string} */ c) => {
    const ok = Number.isFinite(value) ? value >= goal : null;
    targets.push({ name, ok });
    targetRows.push(`| ${name} | ${shown} | ${ok === null ? 'no data' : ok ? 'met' : 'MISSED'} | ${ok === false ? why(c, 'coded') : ''} |`);
  };
  const linkSum4 = 4 * SLOW_BPS;
  target('Coded goodput at N=4 (4×896) ≥ 0.8 × 4 × 896 KiB/s = 2867 KiB/s', g('4x896', 'coded'), TARGET_SHARE * linkSum4, `${kib(g('4x896', 'coded'))} (${pct(g('4x896', 'coded') / linkSum4)} of the links)`, '4x896');
  target('Coded normalized goodput ≥ 0.9 (4×896)', ng('4x896', 'coded'), 0.9, `${num(ng('4x896', 'coded'))} (all FIG. 11 sets: ${comps.map((c) => `${c} ${num(ng(c, 'coded'))}`).join(', ')})`, '4x896');
  target('Coded goodput at N=4 ≥ 3 × Parallel HTTP\'s', ratio(g('4x896', 'coded'), g('4x896', 'parallel-http')), 3, `×${num(ratio(g('4x896', 'coded'), g('4x896', 'parallel-http')))} (${kib(g('4x896', 'coded'))} vs ${kib(g('4x896', 'parallel-http'))})`, '4x896');
  const mixSum = 5 * SLOW_BPS;
  target('Mix 1×1792 + 3×896: Coded goodput ≥ 0.8 × 4480 KiB/s = 3584 KiB/s', g(MIX, 'coded'), TARGET_SHARE * mixSum, `${kib(g(MIX, 'coded'))} (${pct(g(MIX, 'coded') / mixSum)} of the links)`, MIX);

  // ---- per-box table ----
  const keys = [...new Set(rows.map((r) => r.key))];
  const boxRows = keys.map((k) => {
    const all = rows.filter((r) => r.key === k);
    const ok = all.filter((r) => r.ok);
    const r0 = all[0];
    const m = (/** @type {keyof Row} */ f) => median(ok.map((r) => /** @type {number} */ (r[f])).filter(Number.isFinite));
    const loads = all.map((r) => r.loadavg1).filter(Number.isFinite);
    const alone = all.every((r) => r.alone) ? 'alone' : `${Math.max(...all.map((r) => r.concurrent))} at most`;
    return `| ${r0.composition} | ${modeName(r0.mode)} | ${HTTP_MODES.includes(r0.mode) ? '–' : r0.window} | ${r0.mode === 'coded' ? r0.generationSize : '–'} | ${r0.lossPct}% | ${r0.sizeBin} | ${ok.length}/${all.length} | ${kib(m('goodputBps'))} | ${kib(m('throughputBps'))} | ${num(m('normalizedGoodput'))} | ${pct(m('proxyCpuMax'))} | ${pct(m('clientCpu'))} | ${alone} | ${num(median(loads), 1)} / ${num(Math.max(...loads), 1)} | ${num(m('busyCores'), 1)} | ${pct(m('delaylineCpu'))} |`;
  });
  const failures = rows.filter((r) => !r.ok);
  const failureCodes = Object.entries(failures.reduce((a, r) => ({ ...a, [r.error ?? 'unknown']: (a[r.error ?? 'unknown'] ?? 0) + 1 }), /** @type {Record<string, number>} */ ({})));
  const perBox = keys.map((k) => rows.filter((r) => r.key === k && r.ok).length);

  const markdown = [
    `# MUTP testbed campaign — preset \`${meta.preset}\`, ${rttText}`,
    '',
    `Run ${meta.startedAt} → ${meta.finishedAt} (${num(meta.elapsedMin, 1)} min) on ${meta.cores} cores, commit \`${meta.commit}\`. Fleet \`${meta.fleet}\` (KiB = 1024 B; the paper's "896 KB/s" is 896 KiB/s), ` +
      `up to ${meta.concurrency} downloads at a time, each on its own proxies. ${rows.length} downloads, ${failures.length} failed${failureCodes.length ? ` (${failureCodes.map(([c, n]) => `${c}: ${n}`).join(', ')})` : ''}; ` +
      `successful downloads per box: min ${Math.min(...perBox)}, median ${median(perBox)}. Logs went to Origo (${meta.origoUrl}, DuckDB \`origo.duckdb\` in this folder: open it with the dashboard).`,
    '',
    'Chunks are 1–2 MB (uniform on a 32 KiB grid) except in FIGURE 12. Each proxy\'s upload is shaped with `shaping/shape` (htb on its veth); loss is dropped at each receiver\'s INPUT chain, on both directions of the links a download uses. ' +
      'The machine is shared (2 cores, other jobs running): numbers are noisy, and CPU columns say how busy the proxies and the client were.',
    '',
    delayMs > 0
      ? `**Delay:** ${delayMs} ms one way on every packet to or from the client, both directions, so every client↔proxy path has an RTT of ${2 * delayMs} ms (+ the bridge's ~0.1 ms); emulated by ${meta.delayMethod ?? 'the testbed'}. ` +
        'Constant per packet: no jitter, no reordering; the proxies↔origin and proxies↔Origo paths are not delayed. Goodput includes the request\'s round trip and every ramp-up at this RTT.'
      : '**Delay:** none emulated: the bridge\'s RTT is ≈ 0.1 ms, so feedback arrives at once, which flatters window-limited protocols and hides the effect of loss on TCP (FIGURE 15).',
    '',
    meta.tcpCongestion
      ? `**TCP congestion control:** ${meta.tcpCongestion} on every host (the paper's 2018 servers ran Linux's default, cubic; bbr, this machine's default, ignores random loss and would hide FIGURE 15's effect on HTTP).`
      : '**TCP congestion control:** the machine\'s default (not recorded; bbr here, which ignores random loss).',
    '',
    senderLine(meta),
    '',
    meta.calibration ? `**Shaping check:** ${meta.calibration}\n` : '',
    '## Paper claims vs our medians',
    '',
    claims,
    '',
    '## Targets',
    '',
    '| target | measured (median) | result | why (if missed) |',
    '|---|---|---|---|',
    ...targetRows,
    '',
    '## Where the time goes',
    '',
    breakdownTable(rows, { delayMs, loadText: loadLine(rows, meta.cores) }),
    '',
    '## Figures',
    '',
    ...figures,
    fig15Text,
    '',
    '## Every box',
    '',
    `Load: the 1-min load average when each download ended (median / max over the box), on ${meta.cores} cores; busy cores: the whole machine's CPU use during the download (/proc/stat), which, unlike the 1-min average, does not lag behind. "alone": the box's downloads ran one at a time (FIGURE 11's boxes: every composition and mode at w=240, g=24, no loss, 1–2 MB; with the loss preset, FIGURE 15's loss boxes too). Delay line: its CPU per download (a fraction of one core; shared by whatever ran at the same time).`,
    '',
    '| proxies | mode | w | g | loss | chunk | ok/all | goodput | throughput | normalized | busiest proxy CPU | client CPU | downloads at once | load median / max | busy cores | delay line CPU |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...boxRows,
    '',
    `Goodput = bytes delivered / duration; throughput = bytes received (duplicates and aborted parallel responses included) / duration; normalized goodput = goodput / throughput (paper, eq. 2). Duration runs from the chunk request to the last byte. Modes: ${MODES.map(modeName).join(', ')}; ${MUTP_MODES.map(modeName).join(' and ')} run over WebRTC data channels (node-datachannel).`,
    '',
  ].join('\n');
  writeFileSync(join(dir, 'README.md'), markdown);
  return { markdown, claims, targets };
}
