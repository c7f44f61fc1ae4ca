// Download detail: the packet arrival timeline of one record (paper FIGURES 8 and 9).
import { byId, bytes, echarts, esc, fixed, getJson, initPage, millis, rate } from './common.js';

/** Most feedback lines drawn: beyond this the lines merge into a grey band anyway. */
const MAX_FEEDBACK_LINES = 2000;
/** One colour per source index (ECharts' default palette order). */
const PALETTE = ['#5470c6', '#91cc75', '#fac858', '#ee6666', '#73c0de', '#3ba272', '#fc8452', '#9a60b4', '#ea7ccc'];
/** A cross for duplicates (SVG path), so they stand out from useful packets in every colour. */
const CROSS = 'path://M0,0 L10,10 M10,0 L0,10 M0,0 L1,0 L10,9 L10,10 L9,10 L0,1 Z M9,0 L10,0 L10,1 L1,10 L0,10 L0,9 Z';

/**
 * The time breakdown's parts in the order they happen, as the record's timeBreakdown names them
 * (docs/log-record.md, "Time breakdown"; protocol/src/time-breakdown.js TIME_BREAKDOWN_PARTS).
 */
const BREAKDOWN_PARTS = [
  ['connectMs', 'connect', '#597ef7'], ['requestMs', 'request', '#8c8c8c'], ['originMs', 'origin fetch', '#2f54eb'],
  ['prepareMs', 'hashing', '#722ed1'], ['voteMs', 'vote', '#a0d911'], ['sourceStartMs', 'late sources', '#b37feb'], ['rampMs', 'ramp', '#fa8c16'],
  ['inflightHeldMs', 'in-flight held', '#eb2f96'], ['stallMs', 'stall', '#f5222d'], ['nonUsefulMs', 'non-useful', '#faad14'],
  ['tailMs', 'tail', '#13c2c2'], ['transferMs', 'transfer', '#52c41a'],
];

initPage();
const id = new URLSearchParams(location.search).get('id') ?? '';

/** @param {string} k @param {string} v */
const card = (k, v) => `<div class="card"><div class="k">${esc(k)}</div><div class="v">${esc(v)}</div></div>`;

async function show() {
  const { record: r } = await getJson(`/admin/api/downloads/${encodeURIComponent(id)}`);
  byId('title').textContent = `Download ${r.id.slice(0, 8)} · ${r.mode}, N=${r.n}`;
  const log = /** @type {[number, number, number, number | null][]} */ (r.packetLog ?? []);
  const feedback = /** @type {number[]} */ (r.feedbackLog ?? []);
  const dups = log.filter((p) => p[2] === 0).length;
  byId('cards').innerHTML = [
    card('size', bytes(r.objectBytes)), card('gross', bytes(r.grossBytes)), card('duration', millis(r.durationMs)),
    card('first packet', millis(r.firstPacketMs)), card('server fetch', millis(r.serverFetchMs)),
    card('throughput', rate(r.throughputBps)), card('goodput', rate(r.goodputBps)), card('normalized goodput', fixed(r.normalizedGoodput, 3)),
    card('packets', fixed(log.length)), card('duplicates', fixed(dups)), card('feedback sent', fixed(feedback.length)),
    card('params', `w=${r.params?.window ?? '–'} g=${r.params?.generationSize ?? '–'} fb=${r.params?.feedbackEvery ?? '–'}`),
    ...(r.error ? [card('error', r.error.code)] : []),
  ].join('');
  const proxies = /** @type {any[]} */ (r.perProxy ?? []);
  byId('per-proxy').querySelector('tbody').innerHTML = proxies.map((p, i) => `<tr><td class="num">${i}</td><td>${esc(p.proxyId)}</td>
    <td class="num">${bytes(p.bytes)}</td><td class="num">${fixed(p.packets)}</td><td class="num">${fixed(p.duplicates)}</td>
    <td class="num">${rate(p.uploadRateBps)}</td><td class="err">${esc(p.error?.code ?? '')}</td></tr>`).join('');

  showBreakdown(r.timeBreakdown, r.requestSteps);

  const sources = Math.max(r.n, ...log.map((p) => p[1] + 1));
  // y: the DoF after the packet when the client logged it, else the running count of useful packets.
  let useful = 0;
  const points = log.map(([t, source, isUseful, dof]) => {
    useful += isUseful ? 1 : 0;
    return { t, source, isUseful, y: dof ?? useful };
  });
  const nameOf = (/** @type {number} */ s) => `#${s} ${proxies[s]?.proxyId ?? ''}`.trim();
  const series = [];
  for (let s = 0; s < sources; s++) {
    const color = PALETTE[s % PALETTE.length];
    series.push({ name: nameOf(s), type: 'scatter', symbolSize: 4, itemStyle: { color }, large: true,
      data: points.filter((p) => p.source === s && p.isUseful).map((p) => [p.t, p.y]) });
    series.push({ name: `${nameOf(s)} duplicate`, type: 'scatter', symbol: CROSS, symbolSize: 7, itemStyle: { color, borderColor: color, borderWidth: 1 },
      data: points.filter((p) => p.source === s && !p.isUseful).map((p) => [p.t, p.y]) });
  }
  series.push({ name: 'feedback (ACK)', type: 'line', data: [], itemStyle: { color: '#888' },
    markLine: { silent: true, symbol: 'none', label: { show: false }, lineStyle: { color: '#999', type: 'dashed', width: 0.6 },
      data: feedback.slice(0, MAX_FEEDBACK_LINES).map((t) => ({ xAxis: t })) } });
  const chart = echarts().init(byId('timeline'));
  chart.setOption({
    animation: false,
    legend: { type: 'scroll', top: 4 },
    grid: { left: 60, right: 30, top: 70, bottom: 60 },
    tooltip: { trigger: 'item' },
    xAxis: { type: 'value', name: 'time since request (ms)', nameLocation: 'middle', nameGap: 28 },
    yAxis: { type: 'value', name: 'packet index / DoF' },
    dataZoom: [{ type: 'inside' }, { type: 'slider', height: 14, bottom: 6 }],
    series,
  });
  if (log.length === 0) byId('legend-note').textContent = 'This record carries no packet log (HTTP modes, or the client did not send one).';
  window.addEventListener('resize', () => chart.resize());
}
/**
 * One horizontal bar, a segment per part (ms).
 * @param {Record<string, any> | null} tb @param {Record<string, any> | null | undefined} steps  the record's requestSteps
 */
function showBreakdown(tb, steps) {
  if (!tb) {
    byId('breakdown').style.display = 'none';
    byId('breakdown-note').textContent = 'This record carries no time breakdown (a client from before it existed).';
    return;
  }
  const parts = BREAKDOWN_PARTS.filter(([key]) => typeof tb[key] === 'number');
  const chart = echarts().init(byId('breakdown'));
  chart.setOption({
    animation: false,
    legend: { top: 4 },
    grid: { left: 20, right: 30, top: 36, bottom: 30 },
    tooltip: { trigger: 'item', valueFormatter: (/** @type {number} */ v) => `${v.toFixed(1)} ms` },
    xAxis: { type: 'value', name: 'ms', nameLocation: 'end' },
    yAxis: { type: 'category', data: [tb.method === 'packets' ? 'packet log' : 'bytes only'], show: false },
    series: parts.map(([key, name, color]) => ({ name, type: 'bar', stack: 'time', itemStyle: { color }, data: [tb[key]] })),
  });
  byId('breakdown-note').textContent += tb.method === 'packets'
    ? ` Tail from ${millis(tb.tailStartMs)}; summed steady rate ${rate(tb.steadyRateBps)}.${tb.inflightHeldMs === null ? ' In-flight holds are in the proxies\' records, not in this one: they count as stall.' : ''}`
    : ' HTTP: no packet log, so the time after the first byte is split by useful and non-useful bytes.';
  if (typeof steps?.lookupMs === 'number') byId('breakdown-note').textContent += ` Before the request: ${millis(steps.lookupMs)} for Origo's proxy list and tickets (not in the duration).`;
  if (typeof tb.originMs !== 'number') byId('breakdown-note').textContent += ' The proxies did not report their origin fetch and hashing: they are in "request".';
  window.addEventListener('resize', () => chart.resize());
}

show().catch((err) => { byId('title').textContent = `Download: ${err.message}`; });
