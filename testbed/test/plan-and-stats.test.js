// Pure parts of the testbed: rate parsing, the campaign plan, boxplot statistics, the report.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRate, parseRates } from '../src/rates.js';
import { planConditions, planDownloads, seededRandom, PRESETS, conditionKey, MIX, SIZE_BINS } from '../src/campaign-plan.js';
import { boxStats, quantile } from '../src/stats.js';
import { planTopology } from '../src/topology.js';
import { feasibleCompositions } from '../src/campaign-run.js';
import { writeReport } from '../src/report.js';

describe('testbed: rates', () => {
  it('reads the paper\'s KiB rates and bit rates', () => {
    assert.equal(parseRate('896KiB'), 917504);
    assert.equal(parseRate('1792KiB/s'), 1835008);
    assert.equal(parseRate('7Mbit'), 875000);
    const fleet = parseRates('14x896KiB,4x1792KiB');
    assert.equal(fleet.length, 18);
    assert.equal(fleet.filter((r) => r.bps === 1835008).length, 4);
  });
  it('refuses bad rates with a code', () => {
    for (const bad of ['', '4xfoo', '0x896KiB', '896', '1B', '65x1MiB']) assert.throws(() => parseRates(bad), { code: 'ERR_BAD_RATE' });
  });
});

describe('testbed: topology plan', () => {
  it('names namespaces with the fixed prefix and addresses them in one private /24', () => {
    const t = planTopology({ tag: 'x1', subnet: '10.219.3', proxyCount: 18 });
    assert.equal(t.proxies[17].ns, 'mtb-x1-p18');
    assert.equal(t.proxies[17].ip, '10.219.3.28');
    assert.equal(t.client.ip, '10.219.3.4');
  });
  it('refuses public subnets and bad tags', () => {
    assert.throws(() => planTopology({ tag: 'x', subnet: '8.8.8', proxyCount: 1 }), { code: 'ERR_BAD_OPTION' });
    assert.throws(() => planTopology({ tag: 'Bad-Tag', subnet: '10.0.0', proxyCount: 1 }), { code: 'ERR_BAD_OPTION' });
  });
});

describe('testbed: campaign plan', () => {
  it('quick: every box gets exactly perBox downloads, sizes inside their bin, in shuffled order', () => {
    const conditions = planConditions(PRESETS.quick);
    const items = planDownloads(conditions, PRESETS.quick.perBox, seededRandom(1));
    const perKey = new Map();
    for (const it of items) {
      perKey.set(conditionKey(it.condition), (perKey.get(conditionKey(it.condition)) ?? 0) + 1);
      const [lo, hi] = SIZE_BINS[it.condition.sizeBin];
      assert.ok(it.sizeKiB >= lo && it.sizeKiB < hi);
    }
    assert.equal(perKey.size, conditions.length);
    for (const n of perKey.values()) assert.equal(n, 30);
    assert.notDeepEqual(items.slice(0, 10).map((i) => i.condition.mode), items.slice(0, 10).map(() => items[0].condition.mode));
    // FIGURE 11's 6 proxy sets × 4 modes, and the grids on the mix
    assert.equal(conditions.filter((c) => c.sizeBin === '1-2MB' && c.lossPct === 0 && c.window === 240 && c.generationSize === 24).length, 24);
    assert.ok(conditions.some((c) => c.composition === MIX && c.mode === 'coded' && c.generationSize === 12));
    assert.ok(conditions.some((c) => c.composition === MIX && c.mode === 'uncoded' && c.window === 480));
    assert.ok(conditions.some((c) => c.composition === MIX && c.mode === 'parallel-http' && c.lossPct === 1));
  });
  it('paper preset has at least 100 per box; the same seed gives the same plan', () => {
    assert.ok(PRESETS.paper.perBox >= 100);
    const a = planDownloads(planConditions(PRESETS.paper), 3, seededRandom(9));
    const b = planDownloads(planConditions(PRESETS.paper), 3, seededRandom(9));
    assert.deepEqual(a, b);
  });
  it('a small fleet only gets the proxy sets it can serve', () => {
    assert.deepEqual(feasibleCompositions(parseRates('2x896KiB').map((r) => ({ rateBps: r.bps }))), ['1x896', '2x896']);
  });
});

describe('testbed: boxplot statistics', () => {
  it('quartiles interpolate like quantile_cont, whiskers stop at 1.5 IQR', () => {
    assert.equal(quantile([1, 2, 3, 4], 0.5), 2.5);
    const s = boxStats([1, 2, 3, 4, 5, 6, 7, 8, 100]);
    assert.equal(s.median, 5);
    assert.equal(s.q1, 3);
    assert.equal(s.q3, 7);
    assert.equal(s.max, 8);
    assert.deepEqual(s.outliers, [100]);
    assert.equal(boxStats([NaN]), null);
  });
});

describe('testbed: report', () => {
  it('writes README.md with the claims and targets tables and an SVG per figure', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mtb-report-'));
    /** @type {any[]} */
    const rows = [];
    const KIB = 1024;
    for (const [composition, good] of /** @type {[string, Record<string, number>][]} */ ([['4x896', { 'parallel-http': 850, 'range-http': 3000, uncoded: 2000, coded: 3000 }], ['2x896', { 'parallel-http': 850, 'range-http': 1600, uncoded: 900, coded: 1000 }]])) {
      for (const [mode, kib] of Object.entries(good)) {
        for (let i = 0; i < 5; i++) {
          const goodputBps = (kib + i) * KIB;
          const normalizedGoodput = mode === 'parallel-http' ? 0.3 : 0.95;
          rows.push({ key: `${composition}|${mode}`, composition, mode, window: 240, generationSize: 24, lossPct: 0, sizeBin: '1-2MB', sizeKiB: 1536, ok: true, error: null,
            goodputBps, throughputBps: goodputBps / normalizedGoodput, normalizedGoodput, grossBytes: 100 / normalizedGoodput, netBytes: 100, proxyCpuMax: 0.2, proxyCpuMean: 0.1, clientCpu: 0.3, concurrent: 1, loadavg1: 1, lossEstimate: 0 });
        }
      }
    }
    const { markdown, targets } = writeReport({ rows, dir, meta: { preset: 'test', fleet: '4x896KiB', concurrency: 1, cores: 2, commit: 'x', origoUrl: 'http://10.0.0.2:8080', elapsedMin: 1 } });
    assert.match(markdown, /\| MUTP goodput > Parallel HTTP at N ≥ 4 \(4×896\) .*\| holds \|/);
    assert.deepEqual(targets.map((t) => t.ok), [true, true, true, null]);
    assert.ok(existsSync(join(dir, 'fig11-goodput.svg')));
    assert.match(readFileSync(join(dir, 'fig11-goodput.svg'), 'utf8'), /^<svg/);
    assert.match(readFileSync(join(dir, 'README.md'), 'utf8'), /## Targets/);
    assert.match(markdown, /\*\*Delay:\*\* none emulated/); // old results (no delayMs in meta) say so
    const withDelay = writeReport({ rows, dir, meta: { preset: 'test', fleet: '4x896KiB', concurrency: 1, cores: 2, commit: 'x', origoUrl: 'http://10.0.0.2:8080', elapsedMin: 1, delayMs: 25, delayMethod: 'shaping/delayline (NFQUEUE)', tcpCongestion: 'cubic' } });
    assert.match(withDelay.markdown, /^# .*, RTT 50 ms$/m);
    assert.match(withDelay.markdown, /\*\*Delay:\*\* 25 ms one way .* RTT of 50 ms .*emulated by shaping\/delayline \(NFQUEUE\)/);
    assert.match(withDelay.markdown, /\*\*TCP congestion control:\*\* cubic on every host/);
  });
});
