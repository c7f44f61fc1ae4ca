// FIGURE 15 alone: the loss preset's boxes and how they run, the goodput-versus-loss curves,
// their table, and the claim's verdict computed from them.
import assert from 'node:assert/strict';
import { mkdtempSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRESETS, MIX, MODES, planConditions, planDownloads, seededRandom, runsAlone, condition, conditionKey } from '../src/campaign-plan.js';
import { feasibleCompositions, runCampaign } from '../src/campaign-run.js';
import { parseRates } from '../src/rates.js';
import { lossCurves, lossTable, codedKeepsVerdict } from '../src/fig15-loss.js';
import { writeReport } from '../src/report.js';
import { sctpSender } from '../src/rtc-build.js';

const KIB = 1024;
const kib = (/** @type {number} */ bps) => `${Math.round(bps / KIB)} KiB/s`;
const paperFleet = feasibleCompositions(parseRates('14x896KiB,4x1792KiB').map((r) => ({ rateBps: r.bps })));

/**
 * Rows of the mix's loss boxes: per mode, per loss rate, the given median goodput (KiB/s) ± 10.
 * @param {Record<string, Record<number, number>>} medians  mode → loss % → KiB/s
 */
function lossRows(medians) {
  /** @type {any[]} */
  const rows = [];
  for (const [mode, byLoss] of Object.entries(medians)) {
    for (const [loss, kibps] of Object.entries(byLoss)) {
      const c = condition({ composition: MIX, mode: /** @type {any} */ (mode), lossPct: Number(loss) });
      for (const d of [-10, 0, 10]) {
        rows.push({ key: conditionKey(c), ...c, sizeKiB: 1536, ok: true, error: null, goodputBps: (kibps + d) * KIB, throughputBps: (kibps + d) * KIB, normalizedGoodput: 1,
          grossBytes: 1, netBytes: 1, proxyCpuMax: 0.1, proxyCpuMean: 0.1, clientCpu: 0.1, concurrent: 1, alone: true, loadavg1: 1, lossEstimate: null, proxyIds: ['f1'], startedAt: null, durationMs: 500 });
      }
    }
  }
  return rows;
}

describe('testbed: the loss preset (FIGURE 15 alone)', () => {
  it('plans the mix\'s loss boxes only: every mode at 0, 1, 2 and 5%, FIGURE 15\'s w, g and chunk bin, 12–20 per box', () => {
    const conditions = planConditions({ ...PRESETS.loss, compositions: paperFleet });
    assert.equal(conditions.length, 16);
    for (const c of conditions) {
      assert.equal(c.composition, MIX);
      assert.deepEqual([c.window, c.generationSize, c.sizeBin], [240, 24, '1-2MB']);
    }
    for (const mode of MODES) assert.deepEqual(conditions.filter((c) => c.mode === mode).map((c) => c.lossPct).sort((a, b) => a - b), [0, 1, 2, 5]);
    assert.ok(PRESETS.loss.perBox >= 12 && PRESETS.loss.perBox <= 20);
    assert.equal(PRESETS.loss.concurrency, 1);
  });

  it('its boxes run alone, the un-injected one as FIGURE 11\'s; other presets keep lossy boxes shared', () => {
    const rule = { lossAlone: PRESETS.loss.lossAlone };
    for (const c of planConditions({ ...PRESETS.loss, compositions: paperFleet })) assert.ok(runsAlone(c, rule), `${conditionKey(c)} runs alone`);
    assert.ok(!runsAlone(condition({ composition: MIX, mode: 'coded', lossPct: 2 })), 'without the rule a lossy box shares the machine');
    assert.ok(!runsAlone(condition({ composition: MIX, mode: 'coded', lossPct: 2, window: 480 }), rule), 'only FIGURE 15\'s own w, g and chunk bin');
  });

  it('the scheduler runs each of its downloads alone, after the logs reached Origo', async () => {
    const proxies = [...Array.from({ length: 6 }, (_, i) => ({ id: `s${i}`, rateBps: 896 * KIB, pid: 0 })), ...Array.from({ length: 2 }, (_, i) => ({ id: `f${i}`, rateBps: 1792 * KIB, pid: 0 }))];
    let running = 0;
    let most = 0;
    let flushes = 0;
    const testbed = /** @type {any} */ ({
      proxies, delay: null, cpuSeconds: () => 0, objectUrl: (/** @type {number} */ k) => `http://o/${k}`, flushLogs: async () => { flushes++; },
      preconnect: async (/** @type {any[]} */ list) => list.map(() => ({ ok: true, reused: true })), setLoss() {},
      async download() {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 1));
        running--;
        return { stats: { netBytes: 1, grossBytes: 1, durationMs: 1 }, clientCpuSeconds: 0, connections: { reused: 0, opened: 0 } };
      },
    });
    const items = planDownloads(planConditions({ ...PRESETS.loss, compositions: feasibleCompositions(proxies) }), 2, seededRandom(3));
    // concurrency 3 on purpose: the rule, not the preset's concurrency, keeps them apart
    const rows = await runCampaign({ testbed, items, concurrency: 3, resultsFile: join(mkdtempSync(join(tmpdir(), 'mtb-loss-')), 'r.jsonl'), random: seededRandom(4), settleMs: 0,
      isAlone: (c) => runsAlone(c, { lossAlone: true }) });
    assert.equal(rows.length, 32);
    assert.equal(most, 1, 'no two downloads overlapped');
    assert.ok(rows.every((r) => /** @type {any} */ (r).alone));
    assert.equal(flushes, 32);
  });
});

describe('testbed: FIGURE 15 as goodput-versus-loss curves', () => {
  const before = { coded: { 0: 2829, 1: 1029, 2: 738, 5: 440 }, 'range-http': { 0: 2510, 1: 2341, 2: 1500, 5: 580 }, uncoded: { 0: 2600, 2: 700 }, 'parallel-http': { 0: 1400, 1: 1200 } };
  const after = { ...before, coded: { 0: 2800, 1: 2780, 2: 2700, 5: 2500 } };

  it('per mode: median and interquartile range at each loss, × the mode\'s lossless median; other boxes left out', () => {
    const rows = [...lossRows(after), ...lossRows({ coded: { 1: 100 } }).map((r) => ({ ...r, window: 480 })), { ...lossRows({ coded: { 1: 5 } })[0], ok: false }];
    const curves = lossCurves(rows);
    assert.deepEqual(curves.losses, [0, 1, 2, 5]);
    assert.deepEqual(curves.modes.map((m) => m.mode), ['parallel-http', 'range-http', 'uncoded', 'coded']);
    const coded = /** @type {any} */ (curves.modes.find((m) => m.mode === 'coded'));
    assert.deepEqual(coded.points.map((/** @type {any} */ p) => [p.lossPct, p.n, p.median / KIB]), [[0, 3, 2800], [1, 3, 2780], [2, 3, 2700], [5, 3, 2500]]);
    assert.equal(coded.points[1].q1 / KIB, 2775);
    assert.equal(coded.points[1].q3 / KIB, 2785);
    assert.ok(Math.abs(coded.points[3].ratio - 2500 / 2800) < 1e-12);
    const uncoded = /** @type {any} */ (curves.modes.find((m) => m.mode === 'uncoded'));
    assert.equal(uncoded.points[1].n, 0, 'no downloads at 1%: no point');
    const table = lossTable(curves, (m) => m, kib);
    assert.match(table, /^\| mode \| 0% loss \| 1% loss \| 2% loss \| 5% loss \|$/m);
    assert.match(table, /^\| coded \| 2800 KiB\/s \(×1\.00, n 3\) \| 2780 KiB\/s \(×0\.99, n 3\) \| 2700 KiB\/s \(×0\.96, n 3\) \| 2500 KiB\/s \(×0\.89, n 3\) \|$/m);
    assert.match(table, /^\| uncoded \| 2600 KiB\/s \(×1\.00, n 3\) \| n\/a \| 700 KiB\/s \(×0\.27, n 3\) \| n\/a \|$/m);
  });

  it('the claim holds when Coded keeps ≥ 0.9 of lossless at 1–2% and beats Range-split there, else not; no data, no verdict', () => {
    const holds = codedKeepsVerdict(lossCurves(lossRows(after)), kib);
    assert.equal(holds.ok, true);
    assert.equal(holds.text, 'at 1%: Coded 2780 KiB/s (×0.99 of lossless), Range-split 2341 KiB/s; at 2%: Coded 2700 KiB/s (×0.96 of lossless), Range-split 1500 KiB/s');
    assert.equal(codedKeepsVerdict(lossCurves(lossRows(before)), kib).ok, false, 'the usrsctp sender\'s numbers');
    const keepsButSlower = { ...after, 'range-http': { 0: 3000, 1: 2900, 2: 2800 } };
    assert.equal(codedKeepsVerdict(lossCurves(lossRows(keepsButSlower)), kib).ok, false, 'keeps its goodput but Range-split is faster');
    const fasterButDrops = { ...after, coded: { 0: 2800, 1: 2700, 2: 2400 } };
    assert.equal(codedKeepsVerdict(lossCurves(lossRows(fasterButDrops)), kib).ok, false, 'beats Range-split but keeps only 0.86 at 2%');
    const onlyAt5 = { coded: { 0: 2800, 5: 2700 }, 'range-http': { 0: 2500, 5: 600 } };
    assert.equal(codedKeepsVerdict(lossCurves(lossRows(onlyAt5)), kib).ok, null, '5% is shown, not judged');
    assert.equal(codedKeepsVerdict(lossCurves(lossRows({ coded: after.coded })), kib).ok, null, 'no Range-split to compare with');
  });

  it('the report draws the curves, prints the table, judges the claim from the data and states the SCTP sender', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mtb-loss-report-'));
    const meta = { preset: 'loss', fleet: '1x1792KiB,3x896KiB', concurrency: 1, cores: 2, commit: 'x', origoUrl: 'http://o', elapsedMin: 1, delayMs: 25, sctpSender: 'loss-tolerant' };
    const { markdown, claims } = writeReport({ rows: lossRows(after), dir, meta });
    assert.ok(existsSync(join(dir, 'fig15-loss-curves.svg')));
    const svg = readFileSync(join(dir, 'fig15-loss-curves.svg'), 'utf8');
    assert.match(svg, /^<svg/);
    for (const name of ['Coded MUTP', 'Range-split HTTP', 'Uncoded MUTP', 'Parallel HTTP']) assert.ok(svg.includes(name), `${name} in the legend`);
    assert.match(markdown, /!\[FIGURE 15 — median goodput against injected loss.*\]\(fig15-loss-curves\.svg\)/);
    assert.match(markdown, /^\| Coded MUTP \| 2800 KiB\/s \(×1\.00, n 3\) \| 2780 KiB\/s \(×0\.99, n 3\) \|/m);
    assert.match(claims, /^\| Coded MUTP keeps its goodput under random loss \(FIG\. 15\).*\| RTT 50 ms, SCTP sender loss-tolerant; Coded lossless 2800 KiB\/s; at 1%: Coded 2780 KiB\/s .* \| holds \|$/m);
    assert.match(markdown, /\*\*Proxies' SCTP sender:\*\* loss-tolerant/);
    const old = writeReport({ rows: lossRows(before), dir, meta: { ...meta, sctpSender: undefined } });
    assert.match(old.claims, /^\| Coded MUTP keeps its goodput under random loss .*SCTP sender not recorded; .*at 2%: Coded 738 KiB\/s \(×0\.26 of lossless\), Range-split 1500 KiB\/s \| does not hold \|$/m);
    assert.match(old.markdown, /\*\*Proxies' SCTP sender:\*\* not recorded/);
  });

  it('one word for the proxies\' SCTP sender', () => {
    assert.equal(sctpSender([{ sender: 'loss-tolerant' }, { sender: 'loss-tolerant' }]), 'loss-tolerant');
    assert.equal(sctpSender([{ sender: 'usrsctp' }]), 'usrsctp');
    assert.equal(sctpSender([{ sender: 'usrsctp' }, { sender: 'loss-tolerant' }]), 'mixed');
    assert.equal(sctpSender([{ sender: 'usrsctp' }, null]), 'mixed');
    assert.equal(sctpSender([null, {}]), null);
    assert.equal(sctpSender([]), null);
  });
});
