// Charts as SVG, rendered server-side by ECharts (no browser). Grouped boxplots: one group per x tick,
// one box per mode, outliers as points — the layout of the paper's FIGURES 11–15.
import * as echarts from 'echarts';
import { boxStats } from './stats.js';

const WIDTH_PX = 900;
const HEIGHT_PX = 420;
const MODE_COLORS = /** @type {Record<string, string>} */ ({ 'parallel-http': '#d62728', 'range-http': '#ff7f0e', uncoded: '#1f77b4', coded: '#2ca02c' });
const MODE_NAMES = /** @type {Record<string, string>} */ ({ 'parallel-http': 'Parallel HTTP', 'range-http': 'Range-split HTTP', uncoded: 'Uncoded MUTP', coded: 'Coded MUTP' });
export const modeName = (/** @type {string} */ m) => MODE_NAMES[m] ?? m;

/**
 * @param {object} o
 * @param {string} o.title
 * @param {string} o.yName
 * @param {string[]} o.ticks                 x-axis categories
 * @param {string[]} o.modes                 one box per mode per tick
 * @param {(tick: string, mode: string) => number[]} o.values  the samples of one box (empty: no box)
 * @param {number} [o.scale]                 divide every value by this (e.g. 1024 for KiB/s)
 * @param {{value: number, label: string}[]} [o.lines]  horizontal reference lines (targets)
 * @returns {string} SVG
 */
export function boxplotSvg({ title, yName, ticks, modes, values, scale = 1, lines = [] }) {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH_PX, height: HEIGHT_PX });
  const series = [];
  for (const mode of modes) {
    const boxes = [];
    const outliers = [];
    ticks.forEach((tick, i) => {
      const s = boxStats(values(tick, mode).map((v) => v / scale));
      boxes.push(s ? [s.min, s.q1, s.median, s.q3, s.max] : []);
      if (s) for (const o of s.outliers) outliers.push([i, o]);
    });
    series.push({ name: modeName(mode), type: 'boxplot', data: boxes, itemStyle: { color: '#fff', borderColor: MODE_COLORS[mode] }, boxWidth: [6, 24], animation: false,
      ...(series.length === 0 && lines.length ? { markLine: { symbol: 'none', silent: true, animation: false, lineStyle: { type: 'dashed', color: '#555' }, label: { formatter: '{b}', position: 'insideEndTop' }, data: lines.map((l) => ({ yAxis: l.value, name: l.label })) } } : {}) });
    series.push({ name: modeName(mode), type: 'scatter', data: outliers, symbolSize: 4, itemStyle: { color: MODE_COLORS[mode] }, animation: false });
  }
  chart.setOption({
    animation: false,
    title: { text: title, left: 'center', textStyle: { fontSize: 14 } },
    legend: { top: 24, data: modes.map(modeName) },
    grid: { left: 70, right: 20, top: 60, bottom: 40 },
    xAxis: { type: 'category', data: ticks },
    yAxis: { type: 'value', name: yName, nameLocation: 'middle', nameGap: 50 },
    series,
  });
  const svg = chart.renderToSVGString();
  chart.dispose();
  return svg;
}

const IQR_BAR_SPREAD_PX = 5; // modes' interquartile bars side by side at one x, so they do not hide each other
const IQR_CAP_PX = 3; // half-width of a bar's end caps
const X_PAD_SHARE = 0.05; // room left and right of the x range, a share of it

/**
 * Lines of medians over a numeric x axis (e.g. goodput against injected loss), one per mode, with
 * each point's interquartile range as a vertical bar.
 * @param {object} o
 * @param {string} o.title
 * @param {string} o.xName
 * @param {string} o.yName
 * @param {{mode: string, points: {x: number, median: number, q1: number, q3: number}[]}[]} o.series  points without a median are left out
 * @param {number} [o.scale]   divide every y value by this (e.g. 1024 for KiB/s)
 * @returns {string} SVG
 */
export function lineChartSvg({ title, xName, yName, series, scale = 1 }) {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH_PX, height: HEIGHT_PX });
  const xMax = Math.max(1, ...series.flatMap((s) => s.points.map((p) => p.x)));
  const pad = X_PAD_SHARE * xMax;
  const option = [];
  series.forEach((s, i) => {
    const pts = s.points.filter((p) => Number.isFinite(p.median));
    const color = MODE_COLORS[s.mode];
    const offsetPx = (i - (series.length - 1) / 2) * IQR_BAR_SPREAD_PX;
    option.push({ name: modeName(s.mode), type: 'line', data: pts.map((p) => [p.x, p.median / scale]), itemStyle: { color }, lineStyle: { color, width: 2 }, symbolSize: 6, animation: false });
    option.push({
      name: modeName(s.mode), type: 'custom', animation: false, encode: { x: 0, y: [1, 2] },
      data: pts.filter((p) => Number.isFinite(p.q1) && Number.isFinite(p.q3)).map((p) => [p.x, p.q1 / scale, p.q3 / scale]),
      renderItem: (/** @type {any} */ _params, /** @type {any} */ api) => {
        const [x, lo] = api.coord([api.value(0), api.value(1)]);
        const [, hi] = api.coord([api.value(0), api.value(2)]);
        const bx = x + offsetPx;
        const style = { stroke: color, lineWidth: 1.2 };
        return {
          type: 'group', children: [
            { type: 'line', shape: { x1: bx, y1: lo, x2: bx, y2: hi }, style },
            { type: 'line', shape: { x1: bx - IQR_CAP_PX, y1: lo, x2: bx + IQR_CAP_PX, y2: lo }, style },
            { type: 'line', shape: { x1: bx - IQR_CAP_PX, y1: hi, x2: bx + IQR_CAP_PX, y2: hi }, style },
          ],
        };
      },
    });
  });
  chart.setOption({
    animation: false,
    title: { text: title, left: 'center', textStyle: { fontSize: 14 } },
    legend: { top: 28, data: series.map((s) => modeName(s.mode)) },
    grid: { left: 70, right: 30, top: 64, bottom: 50 },
    // padded on both sides so the first and last points' bars are not cut; no labels in the padding
    xAxis: { type: 'value', name: xName, nameLocation: 'middle', nameGap: 28, min: -pad, max: xMax + pad, axisLabel: { formatter: (/** @type {number} */ v) => (v < 0 || v > xMax ? '' : String(v)) } },
    yAxis: { type: 'value', name: yName, nameLocation: 'middle', nameGap: 50, min: 0, axisLine: { onZero: false } },
    series: option,
  });
  const svg = chart.renderToSVGString();
  chart.dispose();
  return svg;
}
