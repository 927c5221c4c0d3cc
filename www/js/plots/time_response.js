// Time-response view: one uPlot chart per chosen output, co-simulation against the
// monolithic reference over time (optionally their difference on a second axis). Data arrive as columns (Float64Array views that uPlot
// takes as AlignedData). The main thread stays free (no task over 100 ms): the charts of a
// run are built one per task (a uPlot costs 10-20 ms; built all at once, a run with ten
// charts blocked the page for 95-165 ms as it started), and redraws take at most about
// FRAME_BUDGET_MS per animation frame, the charts left over drawn in the next frames.

import uPlot from '../../vendor/uPlot.esm.js';
import { cssColor, currentTheme, onThemeChange } from '../theme.js';
import { chartPng, downloadBlob, figureSvg, fileStem } from './export.js';
import { joinTables, pinStyle } from './pin_styles.js';

/** Output types drawn as lines; every other FMI type (integers, Boolean, Enumeration) as steps. */
const FLOAT_TYPES = new Set(['Float64', 'Float32']);

/** Series colours per theme (contrast ≥ 4.5:1 on the panel background of each). */
const PALETTE = {
  light: { cosim: '#c2410c', reference: '#1e3a8a', difference: '#15803d' },
  dark: { cosim: '#fb923c', reference: '#93c5fd', difference: '#4ade80' },
};
const REFERENCE_DASH = [6, 4];
/** Rows allocated up front; a long run that is cancelled early never needs its full size. */
const INITIAL_ROWS_MAX = 1 << 16;
/** Above this many points a redraw costs several ms, so redraws are spaced out. */
const LONG_SERIES_ROWS = 200_000;
const LONG_SERIES_REDRAW_MS = 400;
/** Main-thread time one frame's redraws may take; the other charts are redrawn in the next frames. */
const FRAME_BUDGET_MS = 20;

/** Compact tick labels: plain for ordinary magnitudes, exponent form otherwise. */
function tick(v) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a < 1e-3 || a >= 1e5 ? v.toExponential(1) : String(+v.toPrecision(4));
}

export class TimeResponsePlots {
  constructor(container) {
    this.container = container;
    this.charts = [];      // {name, unit, index, figure, plot, data}
    this.signals = [];
    this.columns = null;   // {time, cosim[], reference[] (null entries when absent)}
    this.rows = 0;
    this.frame = 0;       // pending redraw: rAF id, -1 while throttled, 0 for none
    this.lastDraw = 0;
    this.showDifference = false;
    this.chosen = [];
    this.pins = [];        // pinned runs drawn over the current one: {label, time, signals}
    this.hideCurrent = false; // the current run is itself pinned: draw it once, as its pin
    this.pending = [];     // charts whose uPlot is still to be built, in order
    this.stale = new Set(); // charts with newer data than drawn, longest waiting first
    this.pendingTimer = 0;
    this.resize = new ResizeObserver(() => this.fit());
    this.resize.observe(container);
    // New colours: rebuild the charts (uPlot reads axis and series colours at creation).
    onThemeChange(() => { if (this.charts.length) { this.choose(this.chosen); this.schedule(); } });
  }

  /** Colours of the current theme: series palette plus axes, grid and background. */
  colors() {
    return { ...PALETTE[currentTheme()], ink: cssColor('--ink'), muted: cssColor('--muted'), grid: cssColor('--grid'), bg: cssColor('--panel') };
  }

  /** Which outputs exist (from the worker's 'started') and which to chart. */
  setSignals(signals, chosen) {
    // The previous run's columns have the previous signals' layout (which may have had no
    // reference columns): drop them before charts are built for the new signals.
    this.columns = null;
    this.rows = 0;
    this.signals = signals;
    this.choose(chosen, { lazy: true });
  }

  /**
   * Rebuilds the charts for the chosen output names (all when `chosen` is empty); `lazy`
   * (a run starting) builds them one per task from the next task on.
   */
  choose(chosen, { lazy = false } = {}) {
    this.chosen = chosen;
    for (const c of this.charts) c.plot?.destroy();
    this.charts = [];
    this.pending = [];
    this.stale.clear();
    this.container.replaceChildren();
    const want = new Set(chosen);
    const colors = this.colors();
    const axis = { stroke: colors.muted, grid: { stroke: colors.grid }, ticks: { stroke: colors.grid } };
    // Pins restored after a reload, before any run: charts of the pins' outputs.
    const pinsOnly = this.signals.length === 0 && this.pins.length > 0;
    const signals = pinsOnly ? this.pins[0].signals.map((x) => ({ name: x.name, unit: x.unit, hasReference: !!x.reference, type: x.type })) : this.signals;
    signals.forEach((s, index) => {
      if (want.size && !want.has(s.name)) return;
      const figure = document.createElement('figure');
      figure.className = 'chart';
      figure.dataset.signal = s.name;
      // Integers, booleans and enumerations hold their value between points: drawn as steps.
      const type = s.type ?? 'Float64';
      const steps = !FLOAT_TYPES.has(type);
      figure.dataset.type = type;
      figure.dataset.drawn = steps ? 'steps' : 'lines';
      const caption = document.createElement('figcaption');
      const title = document.createElement('span');
      title.textContent = s.unit ? `${s.name} (${s.unit})` : s.name;
      caption.append(title, this.exportButton(s.name, 'PNG'), this.exportButton(s.name, 'SVG'));
      figure.append(caption);
      this.container.append(figure);
      const series = [
        { label: 't (s)', value: (u, v) => (v == null ? '–' : tick(v)) },
        { label: 'co-simulation', stroke: colors.cosim, width: 1.5, value: (u, v) => (v == null ? '–' : v.toPrecision(6)),
          ...(steps ? { paths: uPlot.paths.stepped({ align: 1 }) } : {}) },
      ];
      const axes = [
        { ...axis, label: 't (s)', values: (u, vals) => vals.map(tick) },
        { ...axis, label: s.unit ? `${s.name} (${s.unit})` : `${s.name} (1)`, size: 64, values: (u, vals) => vals.map(tick) },
      ];
      if (s.hasReference) {
        series.push({ label: 'reference', stroke: colors.reference, width: 1.5, dash: REFERENCE_DASH,
          value: (u, v) => (v == null ? '–' : v.toPrecision(6)) });
      }
      const difference = s.hasReference && this.showDifference;
      if (difference) {
        // The coupling error is orders of magnitude below the signal: its own scale, right axis.
        series.push({ label: 'co-sim − reference', stroke: colors.difference, width: 1, scale: 'diff',
          value: (u, v) => (v == null ? '–' : v.toExponential(3)) });
        axes.push({ scale: 'diff', side: 1, size: 64, label: `difference (${s.unit || '1'})`, grid: { show: false },
          ticks: { stroke: colors.grid }, stroke: colors.difference, values: (u, vals) => vals.map(tick) });
      }
      const pinned = this.pinSeriesOf(s.name);
      const current = !pinsOnly && !(this.hideCurrent && pinned.length);
      if (!current) series.splice(1, 1);
      // A pin of an integer, boolean, enumeration or clock output is drawn as steps too.
      series.push(...pinned.map((p) => ({ label: p.label, stroke: p.style.color, dash: p.style.dash, width: p.style.width,
        spanGaps: true, value: (u, v) => (v == null ? '–' : v.toPrecision(6)),
        ...(steps ? { paths: uPlot.paths.stepped({ align: 1 }) } : {}) })));
      if (pinned.length) for (const x of series.slice(1)) x.spanGaps = true;
      const layout = { index, hasReference: s.hasReference, difference, pinned, current, pinsOnly };
      const chart = { name: s.name, unit: s.unit, type, steps, ...layout, figure, plot: null, options: { series, axes } };
      this.charts.push(chart);
      this.pending.push(chart);
    });
    if (lazy) this.buildLater(); else this.buildAll();
  }

  /** Builds the pending charts' uPlots one per task, from the next task on. */
  buildLater() {
    if (this.pendingTimer || !this.pending.length) return;
    this.pendingTimer = setTimeout(() => {
      this.pendingTimer = 0;
      const chart = this.pending.shift();
      if (chart) this.buildPlot(chart);
      this.buildLater();
    }, 0);
  }

  /** Builds every pending chart now (exports and tests read the plots). */
  buildAll() {
    while (this.pending.length) this.buildPlot(this.pending.shift());
  }

  buildPlot(chart) {
    const { series, axes } = chart.options;
    chart.options = null;
    chart.plot = new uPlot({
      width: this.width(), height: this.height(),
      scales: { x: { time: false } },
      series,
      axes,
      cursor: { drag: { x: true, y: false } },
    }, this.chartData(chart), chart.figure);
  }

  exportButton(name, kind) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'small';
    b.textContent = kind;
    b.dataset.export = kind.toLowerCase();
    b.setAttribute('aria-label', `Download the ${name} plot as ${kind}`);
    b.addEventListener('click', () => this.export(name, kind.toLowerCase()));
    return b;
  }

  /** The series of one chart as the exporters take them. */
  figureOf(chart) {
    const colors = this.colors();
    const [x, cosim, reference, difference] = this.dataFor(chart.index, chart.hasReference, chart.difference);
    const series = [{ label: 'co-simulation', color: colors.cosim, y: cosim }];
    if (chart.hasReference) series.push({ label: 'reference', color: colors.reference, dash: REFERENCE_DASH, y: reference });
    if (chart.difference) series.push({ label: 'co-sim − reference', color: colors.difference, y: difference, right: true });
    if (!chart.current) series.shift();
    // Pins on their own time points, in their styles.
    for (const p of chart.pinned ?? []) series.push({ label: p.label, color: p.style.color, dash: p.style.dash, x: p.time, y: p.values });
    const unit = chart.unit || '1';
    return {
      title: chart.unit ? `${chart.name} (${chart.unit})` : chart.name,
      xLabel: 't (s)', yLabel: `${chart.name} (${unit})`, y2Label: `difference (${unit})`, x, series, colors,
      steps: chart.steps,
    };
  }

  /** Downloads one chart as 'png' (uPlot's canvas) or 'svg' (drawn from the data). */
  async export(name, kind) {
    const chart = this.charts.find((c) => c.name === name);
    if (!chart) return;
    const fig = this.figureOf(chart);
    if (kind === 'svg') {
      downloadBlob(new Blob([figureSvg(fig)], { type: 'image/svg+xml' }), `${fileStem(name)}.svg`);
    } else {
      this.buildAll();
      this.draw();
      downloadBlob(await chartPng(chart.plot, fig), `${fileStem(name)}.png`);
    }
  }

  /** SVG text of one chart (for tests and the export button). */
  svgOf(name) {
    const chart = this.charts.find((c) => c.name === name);
    return chart ? figureSvg(this.figureOf(chart)) : null;
  }

  /** New run: empty columns with room for `rows` points (capped; `append` grows them). */
  reset(rows) {
    const cap = Math.min(rows, INITIAL_ROWS_MAX);
    const make = () => new Float64Array(cap);
    this.columns = {
      time: make(),
      cosim: this.signals.map(make),
      reference: this.signals.map((s) => (s.hasReference ? make() : null)),
    };
    this.rows = 0;
    this.schedule();
  }

  /** Appends a chunk of columns in the worker's layout (time, cosim..., reference...). */
  append(chunk) {
    if (!this.columns || chunk.length === 0) return;
    const n = chunk[0].length;
    const at = this.rows;
    if (at + n > this.columns.time.length) this.grow(at + n);
    this.columns.time.set(chunk[0], at);
    this.signals.forEach((s, j) => this.columns.cosim[j].set(chunk[1 + j], at));
    let k = 1 + this.signals.length;
    this.signals.forEach((s, j) => { if (s.hasReference) this.columns.reference[j].set(chunk[k++], at); });
    this.rows = at + n;
    this.schedule();
  }

  /** Final data: adopts the complete columns (no copy; the accumulated chunks are dropped). */
  setAll(columns) {
    const n = this.signals.length;
    let k = 1 + n;
    this.columns = {
      time: columns[0],
      cosim: this.signals.map((s, j) => columns[1 + j]),
      reference: this.signals.map((s) => (s.hasReference ? columns[k++] : null)),
    };
    this.rows = columns[0].length;
    this.schedule();
  }

  grow(min) {
    const cap = Math.max(min, this.columns.time.length * 2);
    const grow = (a) => { if (!a) return a; const b = new Float64Array(cap); b.set(a.subarray(0, this.rows)); return b; };
    this.columns.time = grow(this.columns.time);
    this.columns.cosim = this.columns.cosim.map(grow);
    this.columns.reference = this.columns.reference.map(grow);
  }

  /** Plots the difference co-simulation − reference on its own axis (rebuilds the charts). */
  setShowDifference(on) {
    this.showDifference = on;
    this.choose(this.chosen);
  }

  dataFor(index, hasReference, difference = false) {
    const c = this.columns;
    const n = this.rows;
    const data = !c ? [[], []] : [c.time.subarray(0, n), c.cosim[index].subarray(0, n)];
    if (hasReference) data.push(c ? c.reference[index].subarray(0, n) : []);
    if (difference) {
      const d = new Float64Array(c ? n : 0);
      for (let i = 0; i < d.length; i++) d[i] = data[1][i] - data[2][i];
      data.push(d);
    }
    return data;
  }

  /** Redraws on the next frame; long series redraw less often so the page stays fluid. */
  schedule() {
    for (const c of this.charts) this.stale.add(c);
    if (this.frame) return;
    const wait = this.rows > LONG_SERIES_ROWS ? LONG_SERIES_REDRAW_MS - (performance.now() - this.lastDraw) : 0;
    if (wait > 0) { this.frame = -1; setTimeout(() => { this.frame = 0; this.nextFrame(); }, wait); } else this.nextFrame();
  }

  nextFrame() {
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.drawSome(); });
  }

  /** Redraws stale charts until the frame's budget is spent (at least one); the rest next frame. */
  drawSome() {
    const t0 = performance.now();
    this.lastDraw = t0;
    for (const c of this.stale) {
      this.stale.delete(c);
      if (!c.plot) continue; // drawn with the data of its time when it is built
      // batch: draws now rather than in a microtask, so the time is measured.
      c.plot.batch(() => c.plot.setData(this.chartData(c)));
      if (performance.now() - t0 > FRAME_BUDGET_MS) break;
    }
    if (this.stale.size && !this.frame) this.nextFrame();
  }

  /** Redraws every chart now. */
  draw() {
    this.lastDraw = performance.now();
    this.stale.clear();
    for (const c of this.charts) c.plot?.setData(this.chartData(c));
  }

  /** Pinned runs to draw (pins.js), with their legend labels; rebuilds the charts. */
  setPins(pins, hideCurrent) {
    this.pins = pins;
    this.hideCurrent = hideCurrent;
    this.choose(this.chosen);
    this.schedule();
  }

  /** The pins that recorded output `name`: [{label, style, time, values}]. */
  pinSeriesOf(name) {
    const out = [];
    this.pins.forEach((p, k) => {
      const sig = p.signals.find((x) => x.name === name);
      if (sig) out.push({ label: p.label, style: pinStyle(k, currentTheme()), time: p.time, values: sig.cosim, reference: sig.reference });
    });
    return out;
  }

  /**
   * A chart's data: the current run's columns (without its co-simulation when it is drawn
   * as a pin), then each pin's co-simulation, joined on their time points.
   */
  chartData(c) {
    if (c.pinsOnly) {
      // No run yet (pins restored after a reload): the first pin's reference stands in.
      const p = c.pinned[0];
      return joinTables(uPlot, [c.hasReference ? [p.time, p.reference] : [p.time], ...c.pinned.map((q) => [q.time, q.values])]);
    }
    const base = this.dataFor(c.index, c.hasReference, c.difference);
    if (!c.pinned?.length) return base;
    const table = c.current ? base : [base[0], ...base.slice(2)];
    // Before the run's first rows arrive only the pins are drawn.
    if (!table[0].length) return joinTables(uPlot, c.pinned.map((q) => [q.time, ...table.slice(1).map(() => new Array(q.time.length).fill(null)), q.values]).slice(0, 1).concat(c.pinned.slice(1).map((q) => [q.time, q.values])));
    return joinTables(uPlot, [table, ...c.pinned.map((p) => [p.time, p.values])]);
  }

  /** The arrays the charts hold (uPlot's own data), for tests: [{name, time, cosim, reference}]. */
  plotted() {
    if (this.frame > 0) { cancelAnimationFrame(this.frame); this.frame = 0; }
    this.buildAll();
    this.draw();
    return this.charts.map((c) => {
      const list = (a) => (a ? Array.from(a) : null);
      const series = c.plot.series.slice(1).map((x, i) => ({ label: x.label, values: list(c.plot.data[i + 1]) }));
      const of = (label) => series.find((x) => x.label === label)?.values ?? null;
      return { name: c.name, type: c.type, steps: c.steps, time: list(c.plot.data[0]), cosim: of('co-simulation'),
        reference: of('reference'), difference: of('co-sim − reference'), series };
    });
  }

  width() {
    return Math.max(240, Math.floor(this.container.clientWidth || 600));
  }

  height() {
    return window.matchMedia('(max-width: 640px)').matches ? 200 : 260;
  }

  fit() {
    const size = { width: this.width(), height: this.height() };
    for (const c of this.charts) c.plot?.setSize(size);
  }
}
