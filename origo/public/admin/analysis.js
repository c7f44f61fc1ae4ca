// Analysis: grouped boxplots (paper FIGURES 11–15), one box per mode at each x tick; the statistics
// (quartiles, 1.5·IQR whiskers, capped outliers) come from the database via /admin/api/boxplot.
import { byId, echarts, esc, filterQuery, fixed, getJson, initPage } from './common.js';

/** Mode colours, the same on every chart. */
const MODE_COLORS = { 'parallel-http': '#ee6666', uncoded: '#5470c6', coded: '#3ba272', 'range-http': '#fac858' };
/** Width of the group of boxes at one tick, as ECharts lays them out (boxplotLayout: 80% of the band). */
const BAND_FILL = 0.8;
/** Gap between boxes, fraction of one box slot (boxplotLayout). */
const BOX_GAP = 0.3;
const METRIC_LABEL = { throughput: 'throughput (KB/s)', goodput: 'goodput (KB/s)', normalizedGoodput: 'normalized goodput' };
/** Rates are shown in KB/s of 1,024 bytes, as in the paper. */
const KIB = 1024;

initPage();
const form = /** @type {HTMLFormElement} */ (byId('filters'));
const chart = echarts().init(byId('boxplot'));
window.addEventListener('resize', () => chart.resize());

/** Human label of an x-axis key. @param {string} groupBy @param {string} key */
function groupLabel(groupBy, key) {
  if (key === 'none') return 'n/a';
  if (groupBy === 'n') return `N=${key}`;
  if (groupBy === 'nRate') {
    const [n, mix] = key.split('|');
    return `N=${n}\n${mix.replaceAll('x', '×').replaceAll('+', ' + ')}`;
  }
  if (groupBy === 'chunk') {
    const k = Number(key);
    if (k < 0) return '< 1 KB';
    const size = (/** @type {number} */ kib) => (kib >= 1024 ? `${kib / 1024} MB` : `${kib} KB`);
    return `${size(2 ** k)}–${size(2 ** (k + 1))}`;
  }
  if (groupBy === 'loss') return ['0 %', '≤ 0.1 %', '0.1–0.5 %', '0.5–1 %', '1–2 %', '> 2 %'][Number(key)] ?? key;
  return `${groupBy}=${key}`;
}

/**
 * Where ECharts puts box `k` of `m` inside its band, in band units (mirrors its boxplotLayout),
 * so the outlier points sit on their own box.
 * @param {number} k @param {number} m
 */
function boxOffset(k, m) {
  const gap = (BAND_FILL / m) * BOX_GAP;
  const width = (BAND_FILL - gap * (m - 1)) / m;
  return width / 2 - BAND_FILL / 2 + k * (gap + width);
}

async function show() {
  const q = filterQuery(form);
  for (const f of ['csv', 'parquet']) byId(`export-${f}`).setAttribute('href', `/admin/api/export.${f}?${q}`);
  byId('status').textContent = 'querying…';
  const t0 = performance.now();
  const body = await getJson(`/admin/api/boxplot?${q}`);
  const ms = performance.now() - t0;
  const metric = /** @type {keyof typeof METRIC_LABEL} */ (body.metric);
  const scale = metric === 'normalizedGoodput' ? 1 : 1 / KIB;
  /** @type {any[]} */
  const boxes = body.boxes;
  const groups = [...new Map(boxes.map((b) => [b.group, b.order])).entries()].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)).map(([g]) => g);
  const modes = Object.keys(MODE_COLORS).filter((m) => boxes.some((b) => b.mode === m));
  const at = (/** @type {string} */ mode, /** @type {string} */ group) => boxes.find((b) => b.mode === mode && b.group === group);
  const sv = (/** @type {number} */ v) => v * scale;

  const series = [];
  modes.forEach((mode, k) => {
    const color = MODE_COLORS[/** @type {keyof typeof MODE_COLORS} */ (mode)];
    series.push({
      name: mode, type: 'boxplot', itemStyle: { color: `${color}33`, borderColor: color },
      data: groups.map((g) => {
        const b = at(mode, g);
        return b ? { value: [sv(b.whiskerLow), sv(b.q1), sv(b.median), sv(b.q3), sv(b.whiskerHigh)], count: b.count } : '-';
      }),
    });
    series.push({
      name: mode, type: 'scatter', xAxisIndex: 1, symbolSize: 5, itemStyle: { color: 'transparent', borderColor: color, borderWidth: 1 },
      data: groups.flatMap((g, i) => (at(mode, g)?.outliers ?? []).map((/** @type {number} */ v) => [i + boxOffset(k, modes.length), sv(v)])),
    });
  });
  chart.setOption({
    animation: false,
    legend: { top: 4, data: modes },
    tooltip: { trigger: 'item' },
    grid: { left: 70, right: 30, top: 40, bottom: body.groupBy === 'nRate' ? 70 : 50 },
    xAxis: [
      { type: 'category', data: groups.map((g) => groupLabel(body.groupBy, g)), axisLabel: { interval: 0 } },
      { type: 'value', min: -0.5, max: groups.length - 0.5, show: false },
    ],
    // onZero off: otherwise the y axis would sit at 0 of the hidden outlier axis, i.e. on the first tick.
    yAxis: { type: 'value', name: METRIC_LABEL[metric], scale: true, axisLine: { show: true, onZero: false } },
    series,
  }, { notMerge: true });

  const few = boxes.filter((b) => b.count < body.minCount).length;
  byId('status').innerHTML = `${fixed(boxes.reduce((s, b) => s + b.count, 0))} records in ${boxes.length} boxes; whiskers at ${body.whiskerIqr}·IQR; `
    + `query ${fixed(ms)} ms${few ? ` · <span class="warn">${few} box${few > 1 ? 'es have' : ' has'} fewer than ${body.minCount} records (the paper's minimum)</span>` : ''}`;
  const thead = byId('counts').querySelector('thead');
  thead.innerHTML = `<tr><th>Group</th>${modes.map((m) => `<th class="num">${esc(m)}</th>`).join('')}</tr>`;
  byId('counts').querySelector('tbody').innerHTML = groups.map((g) => `<tr data-group="${esc(g)}"><td>${esc(groupLabel(body.groupBy, g).replace('\n', ' '))}</td>${modes.map((m) => {
    const b = at(m, g);
    if (!b) return '<td class="num muted">–</td>';
    const warn = b.count < body.minCount;
    return `<td class="num${warn ? ' warn' : ''}" data-mode="${esc(m)}" title="median ${fixed(sv(b.median), 3)}, ${b.outlierCount} outliers">${fixed(b.count)}${warn ? ' ⚠ < ' + body.minCount : ''}</td>`;
  }).join('')}</tr>`).join('');
}

form.addEventListener('submit', (e) => {
  e.preventDefault();
  show().catch((err) => { byId('status').textContent = `error: ${err.message}`; });
});
show().catch((err) => { byId('status').textContent = `error: ${err.message}`; });
