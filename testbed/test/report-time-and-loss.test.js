// The report's new parts: FIGURE 15 the paper's way (loss measured on the wire, HTTP's inferred),
// the time-breakdown section, the load columns, and which boxes run alone.
import assert from 'node:assert/strict';
import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inferLoss, lossBin, INFER_WINDOW_MS } from '../src/fig15-paper.js';
import { writeReport } from '../src/report.js';
import { condition, conditionKey, runsAlone, MIX } from '../src/campaign-plan.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
/** @param {object} o */
const row = (o) => ({ ok: true, durationMs: 500, lossEstimate: null, ...o, startedAt: new Date(T0 + (/** @type {any} */ (o).atMs ?? 0)).toISOString() });

describe('testbed: FIGURE 15 the paper\'s way', () => {
  it('MUTP loss is measured; HTTP loss is the mean over MUTP downloads with the same proxies within ±30 s', () => {
    const rows = [
      row({ mode: 'coded', proxyIds: ['a', 'b'], lossEstimate: 0.01, atMs: 0 }),
      row({ mode: 'uncoded', proxyIds: ['b', 'a'], lossEstimate: 0.03, atMs: 20_000 }),
      row({ mode: 'coded', proxyIds: ['a', 'b'], lossEstimate: 0.5, atMs: 20_000 + INFER_WINDOW_MS + 1000 }), // too late
      row({ mode: 'coded', proxyIds: ['a', 'c'], lossEstimate: 0.9, atMs: 1000 }), // other proxies
      row({ mode: 'parallel-http', proxyIds: ['a', 'b'], atMs: 10_000 }),
      row({ mode: 'range-http', proxyIds: ['c', 'd'], atMs: 1000 }), // only shares c with one MUTP download
      row({ mode: 'parallel-http', proxyIds: ['x', 'y'], atMs: 1000 }), // nobody stands in
    ];
    const out = inferLoss(rows);
    assert.deepEqual(out.map((r) => r.lossHow), ['measured', 'measured', 'measured', 'measured', 'same-proxies', 'shared-proxy', null]);
    assert.equal(out[0].lossPctOnWire, 1);
    assert.ok(Math.abs(/** @type {number} */ (out[4].lossPctOnWire) - 2) < 1e-9, `mean of 1% and 3%: ${out[4].lossPctOnWire}`);
    assert.ok(Math.abs(/** @type {number} */ (out[5].lossPctOnWire) - 90) < 1e-9);
    assert.equal(out[6].lossPctOnWire, null);
  });

  it('bins by loss in percent', () => {
    assert.deepEqual([0, 0.05, 0.1, 0.49, 0.5, 1, 1.99, 2, 7, null].map(lossBin), ['<0.1%', '<0.1%', '0.1–0.5%', '0.1–0.5%', '0.5–1%', '1–2%', '1–2%', '≥2%', '≥2%', null]);
  });
});

describe('testbed: FIGURE 11\'s boxes run alone', () => {
  it('FIGURE 11\'s base conditions, every composition and mode; nothing else', () => {
    assert.ok(runsAlone(condition({ composition: '4x896', mode: 'coded' })));
    assert.ok(runsAlone(condition({ composition: MIX, mode: 'parallel-http' })));
    assert.ok(runsAlone(condition({ composition: '2x896', mode: 'coded' })), 'every FIGURE 11 box');
    assert.ok(!runsAlone(condition({ composition: MIX, mode: 'coded', lossPct: 1 })));
    assert.ok(!runsAlone(condition({ composition: MIX, mode: 'coded', window: 480 })));
    assert.ok(!runsAlone(condition({ composition: '6x896', mode: 'uncoded', sizeBin: '256-512KB' })));
  });
});

describe('testbed: report with time breakdowns, load and the paper\'s FIGURE 15', () => {
  it('prints per-box medians of each part, the load, the delay line\'s CPU and both FIGURE 15s', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mtb-report-'));
    const tb = (/** @type {number} */ ramp) => ({ method: 'packets', connectMs: 7, requestMs: 60, originMs: 9, prepareMs: 4, voteMs: 1, sourceStartMs: 2, rampMs: ramp, inflightHeldMs: 5, stallMs: 3, nonUsefulMs: 20, tailMs: 30, transferMs: 400,
      tailStartMs: 500, steadyRateBps: 3.5e6, perSource: null });
    /** @type {any[]} */
    const rows = [];
    let at = 0;
    for (const mode of ['coded', 'uncoded', 'parallel-http', 'range-http']) {
      for (const [i, ramp] of [90, 100, 110].entries()) {
        const c = condition({ composition: MIX, mode: /** @type {any} */ (mode) });
        rows.push(row({ key: conditionKey(c), ...c, sizeKiB: 1024, proxyIds: ['f1', 's1', 's2', 's3'], atMs: (at += 1000), goodputBps: 2e6 + i, throughputBps: 2.2e6,
          normalizedGoodput: 0.9, grossBytes: 1.1e6, netBytes: 1e6, lossEstimate: mode.endsWith('http') ? null : 0.002 * (i + 1), proxyCpuMax: 0.2, proxyCpuMean: 0.1, clientCpu: 0.3,
          concurrent: 1, alone: true, loadavg1: 1 + i, busyCores: 0.8, stolen: 0.02 * (i + 1), delaylineCpu: 0.05, timeBreakdown: mode.endsWith('http') ? null : tb(ramp) }));
      }
    }
    const { markdown } = writeReport({ rows, dir, meta: { preset: 'test', fleet: '1x1792KiB,3x896KiB', concurrency: 3, cores: 2, commit: 'x', origoUrl: 'http://o', elapsedMin: 1, delayMs: 25 } });
    assert.match(markdown, /## Where the time goes/);
    // the Coded mix box: n = 3, median ramp 100 of 90/100/110
    assert.match(markdown, /\| 1x1792\+3x896 \| Coded MUTP \| 240 \| 24 \| 0% \| 1-2MB \| 3 \| 500 \| 7 \| 60 \| 9 \| 4 \| 1 \| 2 \| 100 \| 5 \| 3 \| 20 \| 30 \| 400 \|/);
    // a missed target names the box's largest parts besides the transfer
    assert.match(markdown, /lost most to ramp 100 ms, request 60 ms, tail 30 ms/);
    assert.match(markdown, /ran alone; 1-min load average at their ends: median 2\.0, max 3\.0 on 2 cores/);
    assert.match(markdown, /The host took 4% of the machine's CPU time during them \(steal: median, max 6%\)/);
    assert.match(markdown, /\| alone \| 2\.0 \/ 3\.0 \| 0\.8 \| 5% \|/);
    assert.ok(existsSync(join(dir, 'fig15-paper-goodput.svg')));
    assert.match(markdown, /FIGURE 15 appears twice\. \*\*Injected\*\*.*\*\*The paper's way\*\*/);
    assert.match(markdown, /same proxies \(6 HTTP downloads\)/);
  });
});

describe('testbed: the scheduler runs FIGURE 11\'s boxes alone', () => {
  it('no FIGURE 11 download overlaps another; the rest (here: with loss, small chunks) run up to the concurrency', async () => {
    const { runCampaign } = await import('../src/campaign-run.js');
    const { planDownloads, planConditions, PRESETS } = await import('../src/campaign-plan.js');
    const { mkdtempSync: mk } = await import('node:fs');
    const proxies = [...Array.from({ length: 10 }, (_, i) => ({ id: `s${i}`, rateBps: 896 * 1024, pid: 0 })), ...Array.from({ length: 2 }, (_, i) => ({ id: `f${i}`, rateBps: 1792 * 1024, pid: 0 }))];
    /** @type {{start: number, end: number, lossy: boolean, small: boolean}[]} */
    const spans = [];
    let clock = 0;
    let flushes = 0;
    let preconnects = 0;
    const warm = new Set();
    /** proxies whose links have loss set now */
    const lossy = new Set();
    const testbed = /** @type {any} */ ({
      proxies, delay: null, cpuSeconds: () => 0, objectUrl: (/** @type {number} */ kib) => `http://o/${kib}`, flushLogs: async () => { flushes++; },
      // a proxy's first preconnect opens its connection, later ones find it kept
      preconnect: async (/** @type {any[]} */ list) => { preconnects++; return list.map((p) => ({ ok: true, reused: warm.has(p.id) || !warm.add(p.id) })); },
      setLoss(/** @type {number} */ pct, /** @type {any[]} */ ps) { for (const p of ps) (pct > 0 ? lossy.add(p.id) : lossy.delete(p.id)); },
      async download(/** @type {any} */ req) {
        const span = { start: clock++, end: Infinity, lossy: req.proxies.some((/** @type {any} */ p) => lossy.has(p.id)), small: Number(req.url.split('/').pop()) < 1000 };
        spans.push(span);
        await new Promise((r) => setTimeout(r, 2));
        span.end = clock++;
        const mutp = req.mode === 'coded' || req.mode === 'uncoded';
        return { stats: { netBytes: 1, grossBytes: 1, durationMs: 1 }, clientCpuSeconds: 0, connections: { reused: mutp ? req.proxies.length : 0, opened: 0 } };
      },
    });
    const items = planDownloads(planConditions({ ...PRESETS.smoke, loss: [1, 2], sizeBins: ['256-512KB'], compositions: ['2x896', '4x896', MIX] }), 3, seededRandomFor());
    const rows = await runCampaign({ testbed, items, concurrency: 3, resultsFile: join(mk(join(tmpdir(), 'mtb-run-')), 'r.jsonl'), random: seededRandomFor(), settleMs: 0 });
    assert.equal(rows.length, items.length);
    assert.equal(rows.filter((r) => /** @type {any} */ (r).alone).length, 36, 'every base download (3 compositions × 4 modes × 3) is marked alone');
    assert.equal(flushes, 36, 'each alone download starts once the logs reached Origo');
    assert.equal(preconnects, 18, '…and its MUTP ones on warm connections');
    const mutpAlone = rows.filter((/** @type {any} */ r) => r.alone && (r.mode === 'coded' || r.mode === 'uncoded'));
    assert.equal(mutpAlone.reduce((a, /** @type {any} */ r) => a + r.connectionsOpened, 0), warm.size, 'a connection the preconnect opened counts as new, not as kept');
    for (const r of /** @type {any[]} */ (mutpAlone)) assert.equal(r.connectionsOpened + r.connectionsReused, r.proxyIds.length);
    assert.ok(spans.some((s) => s.lossy) && spans.some((s) => s.small), 'some downloads ran with loss, some with small chunks');
    for (const s of spans) {
      if (s.lossy || s.small) continue; // the rest: FIGURE 11's boxes here
      const overlapping = spans.filter((o) => o !== s && o.start < s.end && s.start < o.end);
      assert.deepEqual(overlapping, [], 'a FIGURE 11 download ran with another');
    }
    assert.ok(Math.max(...rows.map((r) => /** @type {any} */ (r).concurrent)) > 1, 'the other boxes still overlap');
  });
});

function seededRandomFor() {
  let s = 1;
  return () => ((s = (s * 16807) % 2147483647) / 2147483647);
}
