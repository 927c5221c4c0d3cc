// Macro-steps panel of a variable-step run, under the time response: the step size H(t)
// on a log axis and, where the run reports them, the extrapolation degree k(t), the
// controlled defect or the error estimate (log, with the tolerance as a line) and the
// corrector iterations. Each value belongs to the step that ends at its time, so the
// series are drawn as steps held back to the previous communication point. The charts
// share the cursor and the time range of the run.

import uPlot from '../../vendor/uPlot.esm.js';
import { cssColor, currentTheme, onThemeChange } from '../theme.js';

/** The step columns the worker appends after the reference columns, in order. */
export const STEP_COLUMNS = ['H', 'k', 'iterations', 'error', 'defect'];

const COLORS = {
  light: { line: '#7c3aed', tol: '#b91c1c' },
  dark: { line: '#c4b5fd', tol: '#fca5a5' },
};
const TOL_DASH = [5, 4];
const HEIGHT = 190;

/**
 * What each chart shows: column, caption, log axis, integer values; `positive`: shown only
 * when some value is above 0 (a non-iterative master reports 0 iterations).
 */
const CHARTS = [
  { key: 'H', caption: 'macro-step H (s)', log: true },
  { key: 'k', caption: 'extrapolation degree k', integer: true },
  { key: 'defect', caption: 'controlled defect', log: true, tolerance: true },
  { key: 'error', caption: 'error estimate (WRMS, ≤ 1 accepts)', log: true, tolerance: true },
  { key: 'iterations', caption: 'corrector iterations', integer: true, positive: true },
];

function tick(v) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a < 1e-3 || a >= 1e5 ? v.toExponential(0) : String(+v.toPrecision(3));
}

/** A column as plain numbers with gaps (null) where a step reported nothing. */
function withGaps(values, log) {
  return Array.from(values, (v) => (Number.isFinite(v) && (!log || v > 0) ? v : null));
}

export class MacroStepPanel {
  /** @param {HTMLElement} container the panel's element (hidden for fixed-step runs) */
  constructor(container) {
    this.container = container;
    this.charts = [];      // {key, plot (null until built), build, data, height}
    this.timer = 0;        // pending build of the next chart
    this.time = null;
    this.columns = null;  // key -> Float64Array
    this.tolerance = null;
    this.range = null;
    this.resize = new ResizeObserver(() => this.fit());
    this.resize.observe(container);
    onThemeChange(() => { if (this.columns) this.build(); });
  }

  /** A fixed-step run (or none): no panel. */
  clear() {
    for (const c of this.charts) c.plot?.destroy();
    this.charts = [];
    this.columns = null;
    this.time = null;
    this.container.replaceChildren();
    this.container.hidden = true;
  }

  /**
   * Shows the panel for a finished variable-step run: `time` and the five step columns
   * (STEP_COLUMNS order), `tolerance` the controlled defect's tol (null if not a defect
   * run), `range` [start, stop] of the time axis.
   */
  show(time, stepColumns, { defectTol = null, range = null } = {}) {
    this.time = time;
    this.columns = Object.fromEntries(STEP_COLUMNS.map((k, i) => [k, stepColumns[i]]));
    this.tolerance = { defect: defectTol, error: 1 };
    this.range = range;
    this.build();
  }

  build() {
    for (const c of this.charts) c.plot?.destroy();
    this.charts = [];
    const palette = COLORS[currentTheme()];
    const muted = cssColor('--muted');
    const grid = cssColor('--grid');
    const heading = document.createElement('h3');
    heading.textContent = 'Macro-steps';
    this.container.replaceChildren(heading);
    this.container.hidden = false;
    const axis = { stroke: muted, grid: { stroke: grid }, ticks: { stroke: grid } };
    const shown = CHARTS.filter((spec) => {
      const column = this.columns[spec.key];
      return column && column.some((v) => Number.isFinite(v) && (!spec.positive || v > 0));
    });
    for (const spec of shown) {
      const column = this.columns[spec.key];
      const last = spec === shown[shown.length - 1];
      const values = withGaps(column, spec.log);
      const time = Array.from(this.time);
      const data = [time, values];
      const series = [
        { label: 't (s)', value: (u, v) => (v == null ? '–' : tick(v)) },
        { label: spec.key, stroke: palette.line, width: 1.5, paths: uPlot.paths.stepped({ align: -1 }),
          value: (u, v) => (v == null ? '–' : spec.integer ? String(v) : v.toExponential(3)) },
      ];
      const tol = spec.tolerance ? this.tolerance[spec.key] : null;
      if (tol != null) {
        data.push(time.map(() => tol));
        series.push({ label: spec.key === 'error' ? 'accept limit' : 'tol', stroke: palette.tol, width: 1, dash: TOL_DASH,
          value: () => tol.toExponential(2) });
      }
      const figure = document.createElement('figure');
      figure.className = 'chart step-chart';
      figure.dataset.series = spec.key;
      const caption = document.createElement('figcaption');
      caption.textContent = spec.caption;
      figure.append(caption);
      this.container.append(figure);
      const y = spec.log ? { distr: 3 } : {};
      if (spec.integer) y.range = (u, lo, hi) => [Math.min(0, lo ?? 0), Math.max(1, (hi ?? 0) + 0.5)];
      const x = { time: false };
      if (this.range) x.range = () => this.range;
      const options = {
        width: this.width(), height: last ? HEIGHT : HEIGHT - 24,
        scales: { x, y },
        series,
        axes: [
          // The time axis is shared: its label only under the last chart.
          { ...axis, label: last ? 't (s)' : undefined, labelSize: last ? 30 : 0, values: (u, vals) => vals.map(tick) },
          { ...axis, size: 64, values: (u, vals) => vals.map((v) => (v == null ? '' : tick(v))),
            ...(spec.integer ? { incrs: [1, 2, 5, 10] } : {}) },
        ],
        cursor: { sync: { key: 'macro-steps' }, drag: { x: false, y: false } },
      };
      this.charts.push({ key: spec.key, plot: null, build: () => new uPlot(options, data, figure), data,
        height: last ? HEIGHT : HEIGHT - 24 });
    }
    this.buildLater();
  }

  /**
   * Builds the charts' uPlots one per task (10-20 ms each), so that the end of a run does
   * not block the page for the sum of them.
   */
  buildLater() {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = 0;
      const next = this.charts.find((c) => !c.plot);
      if (!next) return;
      next.plot = next.build();
      this.buildLater();
    }, 0);
  }

  /** Builds every chart not built yet (tests read the plots). */
  buildAll() {
    for (const c of this.charts) if (!c.plot) c.plot = c.build();
  }

  /** What the charts hold, for tests: {key: [values with null for gaps], time}. */
  plotted() {
    if (!this.columns || this.container.hidden) return null;
    const out = { time: this.time ? Array.from(this.time) : [] };
    this.buildAll();
    for (const c of this.charts) out[c.key] = c.plot.data[1].slice();
    if (this.tolerance?.defect != null) out.tol = this.tolerance.defect;
    return out;
  }

  width() {
    return Math.max(240, Math.floor(this.container.clientWidth || 600));
  }

  fit() {
    for (const c of this.charts) c.plot?.setSize({ width: this.width(), height: c.height });
  }
}
