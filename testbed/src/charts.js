// Grouped boxplots as SVG, rendered server-side by ECharts (no browser): one group per x tick,
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
