// Energy panel under the time response of a run with power bonds (docs/methods.md §13):
// the residual power δP (total, per bond when there are several, and on a corrected run
// the power the correction did not remove, μ·δP + f_corr·v) with the stretches where energy is being created shaded,
// and the energy E/E0 against the reference's E_ref/E0. Both are drawn live as the chunks
// arrive, with a summary line as `cosim energy` prints it (energy_signal.js computes the
// signal and the figures). The charts share the cursor and the run's time range.

import uPlot from '../../vendor/uPlot.esm.js';
import { cssColor, currentTheme, onThemeChange } from '../theme.js';
import {
  creationFlags, flaggedSpans, liveSummary, signalText, summaryOf, summaryText, thresholdOf, windowOf,
} from '../energy_signal.js';

const PALETTE = {
  light: { dp: '#b45309', left: '#7c3aed', bond: ['#0f766e', '#be185d', '#4d7c0f', '#1d4ed8'], e: '#c2410c', ref: '#1e3a8a', band: 'rgba(220, 38, 38, 0.16)', bandEdge: '#b91c1c' },
  dark: { dp: '#fbbf24', left: '#c4b5fd', bond: ['#5eead4', '#f9a8d4', '#bef264', '#93c5fd'], e: '#fb923c', ref: '#93c5fd', band: 'rgba(248, 113, 113, 0.22)', bandEdge: '#fca5a5' },
};
const REF_DASH = [6, 4];
const HEIGHT = 200;
const INITIAL_ROWS_MAX = 1 << 16;

function tick(v) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a < 1e-3 || a >= 1e5 ? v.toExponential(1) : String(+v.toPrecision(4));
}

export class EnergyPanel {
  /** @param {HTMLElement} container the panel's element (hidden for runs without bonds) */
  constructor(container) {
    this.container = container;
    this.charts = [];
    this.names = [];
    this.columns = null; // name -> Float64Array (plus 'time')
    this.rows = 0;
    this.frame = 0;
    this.summary = null; // the core's, once the run has finished
    this.resize = new ResizeObserver(() => this.fit());
    this.resize.observe(container);
    onThemeChange(() => { if (this.columns) { this.build(); this.schedule(); } });
  }

  /** No panel (a run without bonds, or before a run). */
  clear() {
    for (const c of this.charts) c.plot.destroy();
    this.charts = [];
    this.columns = null;
    this.names = [];
    this.container.replaceChildren();
    this.container.hidden = true;
  }

  /**
   * A run starts: `names` the energy columns (worker's energyNames; empty: no panel),
   * `first` their index in the worker's columns, `totalSteps`, `span` [start, stop] of the
   * run, `corrected` whether the scenario has an energy correction.
   */
  started({ names, first, totalSteps, span, corrected }) {
    if (!names?.length) { this.clear(); return; }
    this.names = names;
    this.first = first;
    this.span = span;
    this.corrected = corrected;
    this.window = windowOf(totalSteps);
    this.summary = null;
    const cap = Math.min(totalSteps + 1, INITIAL_ROWS_MAX);
    this.columns = Object.fromEntries(['time', ...names].map((n) => [n, new Float64Array(cap)]));
    this.rows = 0;
    this.build();
  }

  /** Appends a chunk in the worker's layout (time first, the energy columns from `first`). */
  append(chunk) {
    if (!this.columns || !chunk.length) return;
    const n = chunk[0].length;
    if (this.rows + n > this.columns.time.length) this.grow(this.rows + n);
    this.columns.time.set(chunk[0], this.rows);
    this.names.forEach((name, j) => this.columns[name].set(chunk[this.first + j], this.rows));
    this.rows += n;
    this.schedule();
  }

  /** The run ended: its complete columns and the core's summary ([mean dP, dE(T), E0, E(T), E_ref(T)]). */
  finished(columns, summary) {
    if (!this.columns) return;
    this.columns = { time: columns[0], ...Object.fromEntries(this.names.map((n, j) => [n, columns[this.first + j]])) };
    this.rows = columns[0].length;
    this.summary = summary?.length ? summaryOf(summary) : null;
    this.schedule();
  }

  grow(min) {
    const cap = Math.max(min, this.columns.time.length * 2);
    for (const [k, a] of Object.entries(this.columns)) {
      const b = new Float64Array(cap);
      b.set(a.subarray(0, this.rows));
      this.columns[k] = b;
    }
  }

  /** Per-bond δP columns (shown only when there are several bonds). */
  bondColumns() {
    return this.names.filter((n) => n.startsWith('dP.'));
  }

  build() {
    for (const c of this.charts) c.plot.destroy();
    this.charts = [];
    const palette = PALETTE[currentTheme()];
    const muted = cssColor('--muted');
    const grid = cssColor('--grid');
    const axis = { stroke: muted, grid: { stroke: grid }, ticks: { stroke: grid } };
    const heading = document.createElement('h3');
    heading.textContent = 'Energy';
    this.summaryEl = document.createElement('p');
    this.summaryEl.className = 'energy-summary';
    this.signalEl = document.createElement('p');
    this.signalEl.className = 'energy-signal';
    this.container.replaceChildren(heading, this.signalEl, this.summaryEl);
    this.container.hidden = false;
    const x = { time: false };
    if (this.span) x.range = () => this.span;
    const bands = { hooks: { drawClear: [(u) => this.shade(u, palette)] } };
    const bonds = this.bondColumns();
    const dpSeries = [{ key: 'dP', label: 'δP (total)', stroke: palette.dp, width: 1.5 }];
    if (bonds.length > 1) bonds.forEach((n, k) => dpSeries.push({ key: n, label: `δP ${n.slice(3)}`, stroke: palette.bond[k % 4], width: 1 }));
    if (this.corrected) dpSeries.push({ key: 'dP:left', label: 'μ·δP + f_corr·v (not removed)', stroke: palette.left, width: 1.2 });
    this.addChart('dP', 'Residual power δP (W): shaded where energy is being created', dpSeries, { x, axis, last: !this.names.includes('E'), ...bands });
    if (this.names.includes('E')) {
      const eSeries = [{ key: 'E/E0', label: 'E/E0', stroke: palette.e, width: 1.5 }];
      if (this.names.includes('E:reference')) eSeries.push({ key: 'E_ref/E0', label: 'E_ref/E0 (reference)', stroke: palette.ref, width: 1.5, dash: REF_DASH });
      this.addChart('E', 'Energy E/E0 against the reference', eSeries, { x, axis, last: true, ...bands });
    }
  }

  addChart(key, caption, specs, { x, axis, last, hooks }) {
    const figure = document.createElement('figure');
    figure.className = 'chart energy-chart';
    figure.dataset.series = key;
    const cap = document.createElement('figcaption');
    cap.textContent = caption;
    figure.append(cap);
    this.container.append(figure);
    const series = [{ label: 't (s)', value: (u, v) => (v == null ? '–' : tick(v)) },
      ...specs.map((s) => ({ label: s.label, stroke: s.stroke, width: s.width, dash: s.dash,
        value: (u, v) => (v == null ? '–' : v.toPrecision(6)) }))];
    const height = last ? HEIGHT : HEIGHT - 24;
    const plot = new uPlot({
      width: this.width(), height,
      scales: { x },
      series,
      axes: [
        { ...axis, label: last ? 't (s)' : undefined, labelSize: last ? 30 : 0, values: (u, vals) => vals.map(tick) },
        { ...axis, size: 64, values: (u, vals) => vals.map((v) => (v == null ? '' : tick(v))) },
      ],
      cursor: { sync: { key: 'energy' }, drag: { x: true, y: false } },
      hooks,
    }, this.dataOf(specs), figure);
    this.charts.push({ key, specs, plot, height });
  }

  /** Chart data from the columns: δP columns as they are, E and E_ref divided by E0. */
  dataOf(specs) {
    const n = this.rows;
    const c = this.columns;
    const time = c ? c.time.subarray(0, n) : [];
    const e0 = c?.E && n ? c.E[0] : NaN;
    const ratio = (col) => { const out = new Float64Array(n); for (let i = 0; i < n; i++) out[i] = col[i] / e0; return out; };
    return [time, ...specs.map((s) => {
      if (!c) return [];
      if (s.key === 'E/E0') return ratio(c.E);
      if (s.key === 'E_ref/E0') return ratio(c['E:reference']);
      return c[s.key].subarray(0, n);
    })];
  }

  /** Recomputes the signal over the rows so far. */
  signal() {
    const n = this.rows;
    const e0 = this.columns.E && n ? this.columns.E[0] : NaN;
    this.threshold = thresholdOf(e0, this.span);
    this.flags = creationFlags(this.columns['dP:left'], n, this.window, this.threshold);
    this.spans = flaggedSpans(this.columns.time, this.flags, n);
  }

  /** Paints the flagged stretches behind a chart's series. */
  shade(u, palette) {
    if (!this.spans?.length) return;
    const { ctx, bbox } = u;
    ctx.save();
    ctx.fillStyle = palette.band;
    for (const [a, b] of this.spans) {
      const x0 = Math.max(bbox.left, u.valToPos(a, 'x', true));
      const x1 = Math.min(bbox.left + bbox.width, u.valToPos(b, 'x', true));
      if (x1 >= x0) ctx.fillRect(x0, bbox.top, Math.max(1, x1 - x0), bbox.height);
    }
    ctx.restore();
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.draw(); });
  }

  draw() {
    if (!this.columns) return;
    this.signal();
    for (const c of this.charts) c.plot.setData(this.dataOf(c.specs));
    const s = this.summary ?? liveSummary(this.columns, this.rows);
    this.summaryEl.textContent = summaryText(s);
    this.signalEl.textContent = signalText(this.spans, this.threshold, this.corrected);
    this.container.dataset.signal = this.spans.length ? 'creating' : 'none';
    this.signalEl.classList.toggle('creating', this.spans.length > 0);
  }

  /** The finished run's energy view for lastResult: {names, columns, summary, spans, threshold}, or null. */
  result() {
    if (!this.columns) return null;
    this.signal();
    const columns = Object.fromEntries(this.names.map((n) => [n, this.columns[n].subarray(0, this.rows)]));
    return { names: this.names, columns, summary: this.summary, spans: this.spans, threshold: this.threshold };
  }

  /** What the panel holds, for tests: columns, flagged spans, summary and texts. */
  plotted() {
    if (!this.columns || this.container.hidden) return null;
    if (this.frame) { cancelAnimationFrame(this.frame); this.frame = 0; }
    this.draw();
    const charts = Object.fromEntries(this.charts.map((c) => [c.key, c.plot.series.slice(1).map((s, i) => ({
      label: s.label, values: Array.from(c.plot.data[i + 1]) }))]));
    return {
      names: this.names, rows: this.rows, threshold: this.threshold, spans: this.spans, charts,
      columns: Object.fromEntries(this.names.map((n) => [n, Array.from(this.columns[n].subarray(0, this.rows))])),
      summary: this.summary ?? liveSummary(this.columns, this.rows),
      summaryText: this.summaryEl.textContent, signalText: this.signalEl.textContent,
    };
  }

  width() {
    return Math.max(240, Math.floor(this.container.clientWidth || 600));
  }

  fit() {
    for (const c of this.charts) c.plot.setSize({ width: this.width(), height: c.height });
  }
}
