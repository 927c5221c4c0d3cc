// The defect study (seed 003, experiments E3–E6 on the rotational two-mass oscillator,
// docs/methods.md §15): the simulation worker runs the sweep (wasm `defectStudy`, the runs
// of `cosim defects`), and this view draws log–log charts of the run-wide RMS output and
// connection defects and the error per port, and the mean step for E6, against h or tol:
// one line per order, its fitted slope in the legend.

import uPlot from '../../vendor/uPlot.esm.js';
import { cssColor } from '../theme.js';
import { ORDER_COLOURS } from './sweeps.js';

const $ = (id) => document.getElementById(id);
const HEIGHT = 220;

function tick(v) {
  if (v == null) return '';
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-2 || a >= 1e3) ? v.toExponential(0) : String(+v.toPrecision(2));
}

const slopeText = (s) => (typeof s === 'number' ? s.toFixed(2) : '–');
/** Log axes: values at or below 0 (an exactly vanishing defect) are gaps. */
const positive = (v) => (Number.isFinite(v) && v > 0 ? v : null);

/** The charts of a study: {title, pick(run), slope(orderSlopes)} each. */
function chartsOf(study) {
  const list = [];
  study.outputs.forEach((name, i) => list.push({
    title: `RMS output defect ${name}`, pick: (r) => r.output_defect[i], slope: (s) => s.output_defect[i] }));
  study.inputs.forEach((name, i) => list.push({
    title: `RMS connection defect ${name}`, pick: (r) => r.connection_defect[i], slope: (s) => s.connection_defect[i] }));
  study.outputs.forEach((name, i) => list.push({
    title: `RMS error ${name}`, pick: (r) => r.error[i], slope: (s) => s.error[i] }));
  if (study.axis === 'tol') list.push({ title: 'mean macro-step H (s)', pick: (r) => r.mean_h, slope: (s) => s.mean_h });
  return list;
}

export class DefectStudyView {
  /** @param {object} client the SimulationWorker (its request() runs the study) */
  constructor(client) {
    this.client = client;
    this.plots = [];
    this.study = null;
    this.ui = {
      experiment: $('study-experiment'), slaves: $('study-slaves'), init: $('study-init'),
      compute: $('study-compute'), status: $('study-status'), figure: $('study-figure'),
    };
    this.ui.compute.addEventListener('click', () => this.compute());
  }

  async compute() {
    const { experiment, slaves, init, compute, status } = this.ui;
    compute.disabled = true;
    status.textContent = `Running ${experiment.value} (48 runs)…`;
    const t0 = performance.now();
    const reply = await this.client.request('defectStudy', { experiment: experiment.value, slaves: slaves.value, init: init.value });
    compute.disabled = false;
    if (reply.message) {
      status.textContent = `Failed: ${reply.message}`;
      return;
    }
    this.show(reply.value);
    status.textContent = `${reply.value.experiment}: ${reply.value.runs.length} runs in ${((performance.now() - t0) / 1000).toFixed(1)} s; `
      + `slopes fitted over ${reply.value.axis} in [${reply.value.fit.join(', ')}].`;
  }

  /** Draws the charts of a study (the worker's reply). */
  show(study) {
    this.study = study;
    for (const p of this.plots) p.destroy();
    this.plots = [];
    this.ui.figure.replaceChildren();
    const orders = [...new Set(study.runs.map((r) => r.order))].sort();
    const xs = [...new Set(study.runs.map((r) => r.x))].sort((a, b) => a - b);
    const muted = cssColor('--muted');
    const grid = cssColor('--grid');
    const axis = { stroke: muted, grid: { stroke: grid }, ticks: { stroke: grid }, values: (u, vals) => vals.map(tick) };
    for (const chart of chartsOf(study)) {
      const data = [xs];
      const series = [{ label: study.axis }];
      for (const k of orders) {
        const byX = new Map(study.runs.filter((r) => r.order === k).map((r) => [r.x, positive(chart.pick(r))]));
        data.push(xs.map((x) => byX.get(x) ?? null));
        const s = study.slopes.find((o) => o.order === k);
        series.push({ label: `order ${k}, slope ${slopeText(s ? chart.slope(s) : null)}`,
          stroke: ORDER_COLOURS[k % ORDER_COLOURS.length], width: 1.5, points: { size: 4 },
          value: (u, v) => (v == null ? '–' : v.toExponential(2)) });
      }
      if (data.slice(1).every((col) => col.every((v) => v === null))) continue;
      const figure = document.createElement('figure');
      figure.className = 'chart study-chart';
      figure.dataset.chart = chart.title;
      const caption = document.createElement('figcaption');
      caption.textContent = chart.title;
      figure.append(caption);
      this.ui.figure.append(figure);
      // The grid cell decides the width (two per row, one on a phone).
      this.plots.push(new uPlot({
        width: Math.max(240, Math.floor(figure.clientWidth || 400)), height: HEIGHT,
        scales: { x: { time: false, distr: 3 }, y: { distr: 3 } },
        series,
        axes: [{ ...axis, label: study.axis === 'tol' ? 'tol' : 'h (s)' }, { ...axis, size: 56 }],
      }, data, figure));
    }
  }

  /** The slopes shown, for tests: {chart title: [slope per order]}. */
  shown() {
    return Object.fromEntries(this.plots.map((p) => [p.root.parentElement.dataset.chart, p.series.slice(1).map((s) => s.label)]));
  }
}
