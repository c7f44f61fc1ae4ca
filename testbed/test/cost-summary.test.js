// Pure parts of `npm run bench:cost`: a download's row from its CPU samples, the medians per mode
// over the verified downloads, the ratios to Range-split HTTP, the targets, the round order, the table.
import assert from 'node:assert/strict';
import { costRow, exclusion, summarize, evaluateTargets, roundOrder, medianOf, MODES, TARGET_LIMITS } from '../src/cost/summary.js';
import { formatReport, formatProgress } from '../src/cost/table.js';

const SHA = 'a'.repeat(64);
const MB = 1e6;

/**
 * A raw download: `mb` MB in `ms` ms, the proxies and the client using the given CPU seconds.
 * @param {object} o
 */
function raw({ mode = 'coded', phase = 'measured', round = 1, mb = 10, ms = 100, proxyS = [0.1, 0.1, 0.1, 0.1], agentS = 0.5, callS = 0.45, hashS = 0.05,
  origoS = 0.02, originS = 0, gross = null, verified = null, sha = SHA, error = null }) {
  const netBytes = mb * MB;
  const grossBytes = gross ?? netBytes;
  return /** @type {import('../src/cost/summary.js').RawDownload} */ ({
    phase, round, slot: 0, mode, expectedSha256: SHA, loadavg1: 1.5, busyCores: 1.2,
    result: error
      ? { error: { code: error, message: 'x' }, stats: { netBytes: 0, grossBytes, durationMs: ms }, clientCpuSeconds: callS, wallMs: ms }
      : { stats: { netBytes, grossBytes, durationMs: ms, normalizedGoodput: netBytes / grossBytes, verified }, sha256: sha, clientCpuSeconds: callS, hashCpuSeconds: hashS, wallMs: ms + 5 },
    cpu0: { proxies: [1, 2, 3, 4], agent: 10, origo: 20, origin: 30 },
    cpu1: { proxies: proxyS.map((s, i) => i + 1 + s), agent: 10 + agentS, origo: 20 + origoS, origin: 30 + originS },
  });
}
const close = (/** @type {number | null} */ a, /** @type {number} */ b, eps = 1e-6) => assert.ok(a !== null && Math.abs(a - b) < eps, `${a} ≉ ${b}`);

describe('bench:cost: one download\'s row', () => {
  it('gives goodput in MB/s (10^6 B) and CPU ms per MB from the processes\' deltas, the proxies summed', () => {
    const r = costRow(raw({ mb: 10, ms: 200, proxyS: [0.1, 0.2, 0.3, 0.4], agentS: 0.55, callS: 0.5, hashS: 0.05, origoS: 0.02 }));
    assert.equal(r.verified, true);
    close(r.goodputMBps, 50); // 10 MB in 0.2 s
    close(r.proxyCpuS, 1.0);
    close(r.proxyCpuMsPerMB, 100); // 1000 ms over 10 MB
    assert.deepEqual(r.proxyCpuEachS.map((v) => Math.round(v * 10) / 10), [0.1, 0.2, 0.3, 0.4]);
    close(r.origoCpuMsPerMB, 2);
    close(r.originCpuMsPerMB, 0);
  });
  it('leaves the agent\'s sha256 of the body out of the client\'s CPU, measured from outside and in the call', () => {
    const r = costRow(raw({ mb: 10, agentS: 0.55, callS: 0.5, hashS: 0.05 }));
    close(r.clientCpuS, 0.5);
    close(r.clientCpuMsPerMB, 50);
    close(r.clientCallCpuS, 0.45);
    close(r.clientCallCpuMsPerMB, 45);
  });
  it('gives null, never NaN, for a process that is gone', () => {
    const d = raw({});
    d.cpu1.proxies[2] = null;
    d.cpu1.agent = null;
    const r = costRow(d);
    assert.equal(r.proxyCpuS, null);
    assert.equal(r.proxyCpuMsPerMB, null);
    assert.equal(r.clientCpuMsPerMB, null);
    assert.ok(r.clientCallCpuMsPerMB !== null);
  });
  it('says why a download does not count: failed, wrong bytes, integrity not verified', () => {
    assert.equal(exclusion(raw({ error: 'ERR_ALL_PROXIES_FAILED' }).result, SHA), 'failed: ERR_ALL_PROXIES_FAILED');
    assert.equal(exclusion(raw({ sha: 'b'.repeat(64) }).result, SHA), 'wrong bytes');
    assert.equal(exclusion(raw({ verified: false }).result, SHA), 'integrity not verified');
    assert.equal(exclusion({}, SHA), 'failed: no stats record');
    assert.equal(exclusion(raw({ verified: true }).result, SHA), null);
    assert.equal(exclusion(raw({ verified: null }).result, SHA), null); // MUTP: the record does not report it
    const r = costRow(raw({ sha: 'b'.repeat(64) }));
    assert.equal(r.verified, false);
    assert.equal(r.goodputMBps, null);
    assert.equal(r.proxyCpuMsPerMB, null); // no MB delivered: no cost per MB
  });
});

describe('bench:cost: summary', () => {
  it('takes the medians over the verified measured downloads only, and lists the others with their round', () => {
    const rows = [
      raw({ mode: 'coded', phase: 'warmup', round: 0, ms: 1000 }), // 10 MB/s: warm-up, left out
      raw({ mode: 'coded', round: 1, ms: 100 }), // 100 MB/s
      raw({ mode: 'coded', round: 2, ms: 250 }), // 40 MB/s
      raw({ mode: 'coded', round: 3, error: 'ERR_TIMEOUT' }),
      raw({ mode: 'coded', round: 4, sha: 'c'.repeat(64), ms: 10 }), // 1000 MB/s of wrong bytes: left out
      raw({ mode: 'range-http', round: 1, ms: 200 }),
    ].map(costRow);
    const s = summarize(rows, { modes: ['range-http', 'coded'] });
    const coded = s.perMode.find((m) => m.mode === 'coded');
    assert.equal(coded?.downloads, 4);
    assert.equal(coded?.verified, 2);
    close(coded?.median.goodputMBps ?? null, 70); // median of 100 and 40
    close(coded?.median.wallMs ?? null, 180); // of 105 and 255 ms: the failed and the wrong ones' times left out too
    assert.deepEqual(coded?.excluded, [{ round: 3, why: 'failed: ERR_TIMEOUT' }, { round: 4, why: 'wrong bytes' }]);
  });
  it('gives goodput and CPU per MB as ratios to Range-split HTTP\'s medians (its own is 1)', () => {
    const rows = [
      raw({ mode: 'range-http', round: 1, ms: 100, proxyS: [0.05, 0.05, 0.05, 0.05], agentS: 0.25, hashS: 0.05 }), // proxies 20, client 20 ms/MB
      raw({ mode: 'range-http', round: 2, ms: 100, proxyS: [0.05, 0.05, 0.05, 0.05], agentS: 0.25, hashS: 0.05 }),
      raw({ mode: 'coded', round: 1, ms: 200, proxyS: [0.1, 0.1, 0.1, 0.1], agentS: 0.35, hashS: 0.05 }), // proxies 40, client 30 ms/MB
      raw({ mode: 'coded', round: 2, ms: 200, proxyS: [0.1, 0.1, 0.1, 0.1], agentS: 0.35, hashS: 0.05 }),
    ].map(costRow);
    const s = summarize(rows, { modes: ['range-http', 'coded'] });
    const [rs, coded] = s.perMode;
    close(rs.ratio.goodput, 1);
    close(rs.ratio.proxyCpu, 1);
    close(coded.ratio.goodput, 0.5);
    close(coded.ratio.proxyCpu, 2);
    close(coded.ratio.clientCpu, 1.5);
    assert.deepEqual(s.targets.map((t) => t.verdict), ['met', 'met', 'missed']); // exactly at the limits: met; 50 MB/s < 60
  });
  it('gives no ratios and "no data" when Range-split HTTP was not run or never verified', () => {
    const onlyCoded = summarize([costRow(raw({ mode: 'coded' }))], { modes: ['coded'] });
    assert.equal(onlyCoded.perMode[0].ratio.proxyCpu, null);
    assert.deepEqual(onlyCoded.targets.map((t) => t.verdict), ['no data', 'no data', 'met']); // 100 MB/s at 1.0
    const rsFailed = summarize([raw({ mode: 'range-http', error: 'ERR_X' }), raw({ mode: 'coded' })].map(costRow));
    assert.equal(rsFailed.perMode.find((m) => m.mode === 'coded')?.ratio.clientCpu, null);
    assert.equal(rsFailed.perMode.find((m) => m.mode === 'range-http')?.median.goodputMBps, null);
  });
  it('reports the load average and busy cores over the measured downloads', () => {
    const rows = [raw({}), raw({}), raw({ phase: 'warmup', round: 0 })].map(costRow);
    rows[1].loadavg1 = 3;
    const s = summarize(rows);
    close(s.machine.loadavg1.median, 2.25);
    close(s.machine.loadavg1.max, 3);
    close(s.machine.busyCores.median, 1.2);
  });
  it('takes the median of an even count as the mean of the middle two, and ignores non-numbers', () => {
    assert.equal(medianOf([4, 1, 3, 2]), 2.5);
    assert.equal(medianOf([null, 5, NaN]), 5);
    assert.equal(medianOf([null]), null);
  });
});

describe('bench:cost: targets', () => {
  /** @param {number} proxyCpu @param {number} clientCpu @param {number} goodputMBps @param {number} normalizedGoodput */
  const coded = (proxyCpu, clientCpu, goodputMBps, normalizedGoodput) => ({ ratio: { proxyCpu, clientCpu }, median: { goodputMBps, normalizedGoodput } });
  const verdicts = (/** @type {ReturnType<typeof coded> | null} */ c) => evaluateTargets(c).map((t) => t.verdict);
  it('holds each at its limit and misses it just beyond', () => {
    const L = TARGET_LIMITS;
    assert.deepEqual(verdicts(coded(L.proxyCpuRatio, L.clientCpuRatio, L.goodputMBps, L.normalizedGoodput)), ['met', 'met', 'met']);
    assert.deepEqual(verdicts(coded(L.proxyCpuRatio + 0.01, L.clientCpuRatio + 0.01, L.goodputMBps - 0.1, 1)), ['missed', 'missed', 'missed']);
    assert.deepEqual(verdicts(coded(1, 1, 100, L.normalizedGoodput - 0.01)), ['met', 'met', 'missed']); // fast, but wasteful
    assert.deepEqual(verdicts(null), ['no data', 'no data', 'no data']);
  });
  it('are the issue\'s: 2× and 1.5× Range-split HTTP\'s CPU per MB, 60 MB/s at 0.95', () => {
    assert.deepEqual({ ...TARGET_LIMITS }, { proxyCpuRatio: 2, clientCpuRatio: 1.5, goodputMBps: 60, normalizedGoodput: 0.95 });
  });
});

describe('bench:cost: round order', () => {
  it('rotates the modes by one per round, so each runs first once in as many rounds as modes', () => {
    const firsts = [0, 1, 2, 3].map((r) => roundOrder(MODES, r)[0]);
    assert.deepEqual([...firsts].sort(), [...MODES].sort());
    for (let r = 0; r < 5; r++) assert.deepEqual([...roundOrder(MODES, r)].sort(), [...MODES].sort());
    assert.deepEqual(roundOrder(['a', 'b', 'c'], 4), ['b', 'c', 'a']);
  });
});

describe('bench:cost: printed table', () => {
  it('shows each mode\'s medians with their ratio, the excluded downloads and the targets\' verdicts', () => {
    const rows = [raw({ mode: 'range-http' }), raw({ mode: 'coded', proxyS: [0.3, 0.3, 0.3, 0.3] }), raw({ mode: 'coded', round: 2, error: 'ERR_TIMEOUT' })].map(costRow);
    const text = formatReport(summarize(rows, { modes: ['range-http', 'coded'] }), { sizeBytes: 10 * MB, proxies: 4, runs: 2, trailMs: 400, rtcBuild: 'stock', proxyBuilds: ['stock'], cores: 2 });
    assert.match(text, /Range-split HTTP\s+1\/1\s+100\.0 ×1\.00/);
    assert.match(text, /Coded MUTP\s+1\/2\s+100\.0 ×1\.00\s+1\.000\s+120\.00 ×3\.00/);
    assert.match(text, /excluded: Coded MUTP, round 2: failed: ERR_TIMEOUT/);
    assert.match(text, /proxies' CPU\/MB ≤ 2× Range-split HTTP's\s+×3\.00\s+missed/);
    assert.match(text, /1 MB = 10\^6 bytes/);
    assert.match(formatProgress(rows[2], 3, 3), /EXCLUDED \(failed: ERR_TIMEOUT\)/);
  });

  it('on the testbed: says where it ran and gives no verdicts of the loopback targets', () => {
    const rows = [raw({ mode: 'range-http' }), raw({ mode: 'coded', proxyS: [0.3, 0.3, 0.3, 0.3] })].map(costRow);
    const meta = { sizeBytes: 10 * MB, proxies: 4, runs: 1, trailMs: 400, rtcBuild: 'auto', proxyBuilds: ['tuned'], cores: 2 };
    const text = formatReport(summarize(rows, { modes: ['range-http', 'coded'] }), { ...meta, where: 'the namespace testbed (4x896KiB, RTT 50 ms)', targets: false });
    assert.match(text, /client on the namespace testbed \(4x896KiB, RTT 50 ms\)/);
    assert.match(text, /Coded MUTP\s+1\/1/);
    assert.match(text, /targets: on loopback only/);
    assert.doesNotMatch(text, /met|missed/);
    assert.match(formatReport(summarize(rows, { modes: ['range-http', 'coded'] }), meta), /client on 127\.0\.0\.1/);
  });
});
