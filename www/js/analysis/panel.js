// The analysis section: view switcher, axis pickers ("module.param (unit)" and
// master.macro_step, from/to/points, log), macro-steps and orders, Compute / Cancel with a
// progress bar, and the figure (map_view.js or sweeps.js) with PNG and CSV export.
// The controls read and write `scenario.analysis` (view, x, y, macro_steps, orders), so a
// shared link opens the same view and axes; main.js passes the scenario in and receives
// the edited analysis spec back.

import { Cancelled, TilePool } from './tile_pool.js';
import { MapView } from './map_view.js';
import { StepSlider } from './step_slider.js';
import { LineView, ORDER_COLOURS } from './sweeps.js';
import { fmt } from './heatmap.js';
import { downloadBlob } from '../plots/export.js';
import { cssColor } from '../theme.js';

export const VIEWS = {
  time_response: { label: 'Time response' },
  stability_map: { label: 'Stability map', axes: 2, metric: 'rho' },
  accuracy_map: { label: 'Accuracy map', axes: 2, metric: 'eg' },
  rho_versus_step: { label: 'ρ vs ΔT', axes: 1, metric: 'rho' },
  error_versus_parameter: { label: 'e_g vs parameter', axes: 1, metric: 'eg' },
  convergence: { label: 'Convergence', axes: 0 },
};

const METRICS = {
  rho: { symbol: 'ρ', level: 1, levelLabel: 'ρ = 1 (stability limit)', kind: 'diverging' },
  eg: { symbol: 'e_g', level: 0.01, levelLabel: 'e_g = 0.01 (1 % accurate)', kind: 'sequential' },
};

/** Points per axis a map opened from a preset or link is refined to: 256 on a desktop, 128 on a phone. */
export const refinedPoints = () => (window.matchMedia('(max-width: 640px)').matches ? 128 : 256);

const DEFAULT_STEPS = Array.from({ length: 15 }, (_, i) => 10 ** (-(10 + i) / 4));
const $ = (id) => document.getElementById(id);
/** A number for a text field: exact, in exponent form when that is shorter (1e10, 3.1622776601683795e-4). */
const short = (v) => {
  const e = Number(v).toExponential().replace('e+', 'e').replace(/\.?0+e/, 'e');
  return e.length < String(v).length ? e : String(v);
};
const numberList = (text) => String(text).split(/[\s,;]+/).filter(Boolean).map(Number);

export class AnalysisPanel {
  /**
   * `getScenario()`: the page's current scenario (edits included); `onChange(spec|null)`:
   * the user changed the analysis settings.
   */
  constructor({ getScenario, onChange, onMacroStep }) {
    this.getScenario = getScenario;
    this.onChange = onChange;
    this.pool = new TilePool();
    this.loaded = null;   // the scenario the pickers were filled for
    this.parameters = [];
    this.view = 'time_response';
    this.figure = null;
    this.running = false;
    this.lastCrossings = [];
    this.ui = {
      section: $('analysis'), views: $('analysis-views'), form: $('analysis-form'), figure: $('analysis-figure'),
      compute: $('analysis-compute'), cancel: $('analysis-cancel'), progress: $('analysis-progress'),
      status: $('analysis-status'), png: $('analysis-png'), csv: $('analysis-csv'),
      steps: $('analysis-steps'), orders: $('analysis-orders'), overlay: $('analysis-overlay'),
      overlayLabel: $('analysis-overlay-label'), stepsLabel: $('analysis-steps-label'),
    };
    this.axes = { x: this.axisFields('x'), y: this.axisFields('y') };
    for (const [id, v] of Object.entries(VIEWS)) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = v.label;
      b.dataset.view = id;
      b.addEventListener('click', () => {
        this.setView(id);
        // ρ against ΔT means the macro-step on x: switch the axis when another view left a parameter there.
        if (id === 'rho_versus_step' && this.axes.x.parameter.value !== 'master.macro_step') {
          this.setAxis(this.axes.x, null, this.defaultAxis('step'));
        }
        this.changed();
      });
      this.ui.views.append(b);
    }
    this.ui.form.addEventListener('change', () => this.changed());
    this.ui.form.addEventListener('submit', (e) => { e.preventDefault(); this.compute(); });
    this.ui.compute.addEventListener('click', () => this.compute());
    this.ui.cancel.addEventListener('click', () => this.cancel());
    this.ui.png.addEventListener('click', () => this.exportPng());
    this.ui.csv.addEventListener('click', () => this.exportCsv());
    this.stepSlider = new StepSlider(this, { field: $('analysis-dt-field'), input: $('analysis-dt'), output: $('analysis-dt-value'),
      onRelease: (h) => onMacroStep?.(h) });
    this.setView('time_response');
    // Read-only hook for the end-to-end tests.
    window.cosimAnalysis = this;
  }

  axisFields(name) {
    const root = $(`analysis-${name}`);
    const f = (sel) => root.querySelector(sel);
    return { root, parameter: f('select'), from: f('[data-k=from]'), to: f('[data-k=to]'), points: f('[data-k=points]'), log: f('[data-k=log]') };
  }

  // ----- scenario in/out -------------------------------------------------------------------

  /** A scenario was loaded or edited: refresh the pickers, apply `analysis` if present. */
  async setScenario(scenario, { compute = true } = {}) {
    this.loaded = scenario;
    const text = JSON.stringify(scenario);
    try { this.parameters = await this.pool.call('analysisParameters', text); } catch { this.parameters = []; }
    if (this.loaded !== scenario) return;
    this.fillPickers();
    this.applySpec(scenario.analysis ?? null);
    document.body.dataset.analysisReady = 'true';
    // A preset, link or file that names an analysis view opens with its figure computing:
    // maps coarse first, then refined (progressive).
    if (compute && this.view !== 'time_response') this.compute({ progressive: true });
  }

  get scenario() {
    return this.getScenario();
  }

  fillPickers() {
    for (const a of Object.values(this.axes)) {
      const keep = a.parameter.value;
      a.parameter.replaceChildren(...this.parameters.map((p) => {
        const o = document.createElement('option');
        o.value = p.name;
        o.textContent = p.unit ? `${p.name} (${p.unit})` : p.name;
        return o;
      }));
      if (keep && this.parameters.some((p) => p.name === keep)) a.parameter.value = keep;
    }
  }

  /** Writes an AxisSpec into the fields, or defaults around the scenario's value. */
  setAxis(a, spec, fallback) {
    const s = spec ?? fallback;
    if (!s) return;
    if (s.parameter && !this.parameters.some((p) => p.name === s.parameter)) {
      const o = document.createElement('option');
      o.value = s.parameter; o.textContent = s.parameter;
      a.parameter.append(o);
    }
    a.parameter.value = s.parameter;
    a.from.value = short(s.from); a.to.value = short(s.to); a.points.value = s.points; a.log.checked = !!s.log;
  }

  defaultAxis(name) {
    const find = (n) => this.parameters.find((p) => p.name === n);
    const h = this.scenario?.master?.macro_step ?? 1e-4;
    if (name === 'step') return { parameter: 'master.macro_step', from: h / 100, to: h * 30, points: 60, log: true };
    const mod = this.parameters.filter((p) => p.name !== 'master.macro_step' && p.value > 0);
    const p = find(name === 'x' ? 'mass2.ck' : 'mass2.dk') ?? mod[name === 'x' ? 0 : 1] ?? mod[0];
    if (!p) return { parameter: 'master.macro_step', from: h / 100, to: h * 30, points: 32, log: true };
    return { parameter: p.name, from: p.value / 1e3, to: p.value * 1e3, points: name === 'x' ? 48 : 32, log: true };
  }

  applySpec(spec) {
    const view = spec?.view && VIEWS[spec.view] ? spec.view : 'time_response';
    this.setView(view);
    const sweepDefault = view === 'rho_versus_step' ? this.defaultAxis('step') : this.defaultAxis('x');
    this.setAxis(this.axes.x, spec?.x, VIEWS[view].axes === 1 ? sweepDefault : this.defaultAxis('x'));
    this.setAxis(this.axes.y, spec?.y, this.defaultAxis('y'));
    const steps = spec?.macro_steps?.length ? spec.macro_steps : (view === 'convergence' ? DEFAULT_STEPS : []);
    this.ui.steps.value = steps.map(short).join(', ');
    this.ui.orders.value = (spec?.orders?.length ? spec.orders : [0, 1, 2, 3, 4]).join(', ');
    this.ui.overlay.checked = view === 'accuracy_map' || (view === 'stability_map' && steps.length > 0);
  }

  axisSpec(a) {
    return { parameter: a.parameter.value, from: Number(a.from.value), to: Number(a.to.value),
      points: Math.round(Number(a.points.value)), log: a.log.checked };
  }

  /** The settings as `scenario.analysis` (null for the time response). */
  spec() {
    const v = VIEWS[this.view];
    if (this.view === 'time_response') return null;
    const out = { view: this.view };
    if (v.axes >= 1) out.x = this.axisSpec(this.axes.x);
    if (v.axes === 2) out.y = this.axisSpec(this.axes.y);
    const steps = numberList(this.ui.steps.value);
    if (steps.length && (this.view === 'stability_map' || this.view === 'convergence')) out.macro_steps = steps;
    if (this.view === 'convergence') out.orders = numberList(this.ui.orders.value);
    return out;
  }

  changed() {
    if (!this.scenario) return;
    this.onChange(this.spec());
  }

  setView(view) {
    this.view = view;
    const v = VIEWS[view];
    for (const b of this.ui.views.children) b.setAttribute('aria-pressed', String(b.dataset.view === view));
    this.ui.section.dataset.view = view;
    this.axes.x.root.hidden = !(v.axes >= 1);
    this.axes.y.root.hidden = v.axes !== 2;
    this.ui.steps.closest('.field').hidden = !(view === 'stability_map' || view === 'convergence');
    this.ui.orders.closest('.field').hidden = view !== 'convergence';
    this.ui.overlay.closest('.check').hidden = !(view === 'stability_map' || view === 'accuracy_map');
    this.ui.overlayLabel.textContent = view === 'accuracy_map'
      ? 'Also the e_g = 0.01 contour with the correction switched the other way (Fig. 6)'
      : 'Draw the ρ = 1 contour for each macro-step listed above (Fig. 4)';
    this.ui.stepsLabel.textContent = view === 'convergence' ? 'Macro-steps ΔT (s)' : 'Macro-steps ΔT for the contours (s)';
    this.ui.compute.disabled = this.running || view === 'time_response';
    document.body.dataset.analysisView = view;
    this.stepSlider?.sync(view, this.scenario);
  }

  // ----- computing -------------------------------------------------------------------------

  setRunning(on, text) {
    this.running = on;
    // An automatic (progressive) computation may be superseded by Compute.
    this.ui.compute.disabled = (on && !this.auto) || this.view === 'time_response';
    this.ui.cancel.disabled = !on;
    if (text !== undefined) this.ui.status.textContent = text;
    document.body.dataset.analysisState = on ? 'running' : 'idle';
  }

  progress(done, total) {
    this.ui.progress.max = Math.max(1, total);
    this.ui.progress.value = done;
  }

  cancel() {
    this.pool.cancel();
  }

  scenarioText(patch) {
    const s = structuredClone(this.scenario);
    if (patch) patch(s);
    return JSON.stringify(s);
  }

  labelOf(name) {
    const p = this.parameters.find((q) => q.name === name);
    const unit = name === 'master.macro_step' ? 's' : (p?.unit ?? '');
    const short = name === 'master.macro_step' ? 'ΔT' : name;
    return { name: short, unit, title: unit ? `${short} (${unit})` : short };
  }

  /**
   * Computes the view. `progressive` (on opening): a map is drawn at most 64 x 48 first,
   * then refined to REFINED_POINTS per axis; Compute (or a new scenario) supersedes it.
   */
  async compute({ progressive = false } = {}) {
    if (!this.scenario || this.view === 'time_response') return;
    if (this.running) {
      if (!this.auto) return;
      this.superseded = true;
      this.pool.cancel();
      await this.computing;
    }
    this.auto = progressive;
    this.computing = this.computeNow(progressive);
    return this.computing;
  }

  async computeNow(progressive) {
    this.onChange(this.spec());
    this.setRunning(true, 'Computing…');
    this.progress(0, 1);
    const t0 = performance.now();
    this.timings = { start: t0, coarse: null, full: null };
    try {
      const v = VIEWS[this.view];
      if (v.axes === 2 && progressive) await this.computeProgressive();
      else if (v.axes === 2) await this.computeMap();
      else if (v.axes === 1) await this.computeSweep();
      else await this.computeConvergence();
      const s = ((performance.now() - t0) / 1000).toFixed(2);
      this.setRunning(false, `Done in ${s} s on ${this.pool.size} worker(s).`);
      document.body.dataset.analysisState = 'done';
    } catch (err) {
      const cancelled = err instanceof Cancelled;
      if (cancelled && this.superseded) { this.superseded = false; this.running = false; return; }
      this.setRunning(false, cancelled ? 'Cancelled.' : `Failed: ${err.message}`);
      document.body.dataset.analysisState = cancelled ? 'cancelled' : 'error';
    } finally {
      this.auto = false;
    }
  }

  /** A map at most 64 x 48 first, then at the refined size, drawn over the coarse one. */
  async computeProgressive() {
    const x = this.axisSpec(this.axes.x), y = this.axisSpec(this.axes.y);
    const coarse = { x: { ...x, points: Math.min(x.points, 64) }, y: { ...y, points: Math.min(y.points, 48) } };
    await this.computeMap(coarse);
    this.timings.coarse = performance.now() - this.timings.start;
    this.timings.coarseSize = [coarse.x.points, coarse.y.points];
    const n = refinedPoints();
    if (x.points >= n && y.points >= n && coarse.x.points === x.points && coarse.y.points === y.points) return;
    const fine = { x: { ...x, points: Math.max(x.points, n) }, y: { ...y, points: Math.max(y.points, n) } };
    this.ui.status.textContent = `Refining to ${fine.x.points} × ${fine.y.points}…`;
    await this.computeMap(fine, { refine: true });
    this.timings.full = performance.now() - this.timings.start;
    // The fields and the scenario's analysis spec now describe the map shown.
    this.axes.x.points.value = fine.x.points;
    this.axes.y.points.value = fine.y.points;
    this.onChange(this.spec());
  }

  rowsPerTile(ny) {
    return Math.max(1, Math.min(8, Math.floor(ny / (this.pool.size * 6))));
  }

  async computeMap(axes = null, { refine = false } = {}) {
    const x = axes?.x ?? this.axisSpec(this.axes.x), y = axes?.y ?? this.axisSpec(this.axes.y);
    const metricName = VIEWS[this.view].metric;
    const json = this.scenarioText();
    // The core's sampling (Axis::new): from·(to/from)^(i/(n−1)) on log axes, even steps otherwise.
    const values = (spec) => Array.from({ length: spec.points }, (_, i) => {
      const t = spec.points === 1 ? 0 : i / (spec.points - 1);
      return spec.log ? spec.from * (spec.to / spec.from) ** t : spec.from + (spec.to - spec.from) * t;
    });
    const lx = this.labelOf(x.parameter), ly = this.labelOf(y.parameter);
    if (!(this.figure instanceof MapView)) this.figure = new MapView(this.ui.figure);
    const view = this.figure;
    const overlays = [];
    if (this.ui.overlay.checked && this.view === 'stability_map') {
      const steps = numberList(this.ui.steps.value).filter((h) => h > 0).sort((a, b) => b - a);
      steps.forEach((h, k) => {
        const g = steps.length > 1 ? Math.round(20 + (170 * k) / (steps.length - 1)) : 20;
        overlays.push({ label: `ρ = 1, ΔT = ${fmt(h)} s`, shade: `rgb(${g},${g},${g})`,
          json: this.scenarioText((s) => { s.master.macro_step = h; }) });
      });
    } else if (this.ui.overlay.checked && this.view === 'accuracy_map') {
      const corrected = !!this.scenario.master?.correction;
      overlays.push({ label: `e_g = 0.01, ${corrected ? 'without' : 'with'} correction`, shade: '#000000', dash: [6, 4],
        json: this.scenarioText((s) => { if (corrected) delete s.master.correction; else s.master.correction = { alpha: 1 }; }) });
    }
    view.start({
      x: { ...lx, values: Float64Array.from(values(x)), log: x.log },
      y: { ...ly, values: Float64Array.from(values(y)), log: y.log },
      metric: METRICS[metricName],
    }, refine ? view.data : null);
    view.dim = overlays.length > 0;
    const total = y.points * (1 + overlays.length);
    let done = 0;
    const step = (n) => { done += n; this.progress(done, total); this.ui.status.textContent = `Computing… ${Math.round((100 * done) / total)} %`; };
    const rowsPerTile = this.rowsPerTile(y.points);
    const main = this.pool.map({ scenario: json, x, y, metric: metricName, rows: y.points, rowsPerTile,
      onTile: (t) => { view.addTile(t); step(t.end - t.start); } });
    const extra = overlays.map(async (o) => {
      const vals = new Float64Array(x.points * y.points).fill(NaN);
      await this.pool.map({ scenario: o.json, x, y, metric: metricName, rows: y.points, rowsPerTile,
        onTile: (t) => { vals.set(t.values, t.start * x.points); step(t.end - t.start); } });
      return { ...o, values: vals };
    });
    // One Promise.all: when Cancel rejects everything, no overlay rejection goes unhandled.
    const [, ...done2] = await Promise.all([main, ...extra]);
    if (this.view === 'accuracy_map' && done2.length) {
      const corrected = !!this.scenario.master?.correction;
      view.addOverlay({ values: view.data.values, level: 0.01, shade: '#000000', label: `e_g = 0.01, ${corrected ? 'with' : 'without'} correction` });
    }
    for (const o of done2) view.addOverlay({ values: o.values, level: METRICS[metricName].level, shade: o.shade, dash: o.dash, label: o.label });
    this.lastMap = { x: view.data.x.values, y: view.data.y.values, values: view.data.values, status: view.data.status };
  }

  async computeSweep() {
    const x = this.axisSpec(this.axes.x);
    const metricName = VIEWS[this.view].metric;
    const json = this.scenarioText();
    const lx = this.labelOf(x.parameter);
    this.progress(0, 2);
    const [r, crossings] = await Promise.all([
      this.pool.call('sweep', json, JSON.stringify(x), metricName).then((v) => { this.progress(1, 2); return v; }),
      metricName === 'rho' ? this.pool.call('stabilityCrossings', json, JSON.stringify(x)) : Promise.resolve([]),
    ]);
    this.progress(2, 2);
    this.lastCrossings = crossings;
    const diverged = Array.from(r.status).filter((s) => s === 2).length;
    const failed = Array.from(r.status).filter((s) => s === 3).length;
    const ill = Array.from(r.status).filter((s) => s === 1).length;
    const y = Array.from(r.values).map((v, i) => (r.status[i] >= 2 ? NaN : v));
    const m = METRICS[metricName];
    let note = '';
    if (metricName === 'rho') {
      note = crossings.length
        ? `ρ crosses 1 at ${crossings.map((c) => `${fmt(c.value)} ${lx.unit} (${c.stableBelow ? 'stable below' : 'stable above'})`).join('; ')}.`
        : 'ρ does not cross 1 in this range.';
    }
    if (ill) note += ` ${ill} point(s) ill-conditioned (rounding may decide them).`;
    if (diverged) note += ` ${diverged} point(s) diverged (${m.symbol} = ∞, left as gaps).`;
    if (failed) {
      const first = r.failures.find((f) => f);
      note += ` ${failed} point(s) failed (gaps)${first ? `: ${first}` : ''}.`;
    }
    if (!(this.figure instanceof LineView)) this.figure = new LineView(this.ui.figure);
    this.figure.show({
      title: metricName === 'rho' ? `Spectral radius ρ against ${lx.name}` : `Global error e_g against ${lx.name}`,
      xLabel: lx.title, yLabel: metricName === 'rho' ? 'ρ(Φ)' : 'e_g (NRMSE)', xLog: x.log, yLog: metricName === 'eg',
      x: Array.from(r.x), series: [{ label: m.symbol, y, colour: cssColor('--accent') || '#1e40af' }],
      level: { value: m.level, label: m.levelLabel }, note,
    });
    this.lastSweep = { x: Array.from(r.x), values: Array.from(r.values), status: Array.from(r.status), crossings };
  }

  async computeConvergence() {
    const steps = numberList(this.ui.steps.value).filter((h) => h > 0).sort((a, b) => b - a);
    const orders = numberList(this.ui.orders.value);
    if (!steps.length) throw new Error('enter at least two macro-steps');
    const json = this.scenarioText();
    let done = 0;
    this.progress(0, orders.length);
    const parts = await Promise.all(orders.map((o) => this.pool.call('convergence', json, Float64Array.from(steps), Uint32Array.from([o]))
      .then((c) => { done += 1; this.progress(done, orders.length); return c; })));
    const curves = parts.flat().sort((a, b) => (a.corrected - b.corrected) || (a.order - b.order));
    const x = Array.from(curves[0]?.macroSteps ?? steps);
    const order = x.map((_, i) => i).sort((a, b) => x[a] - x[b]);
    const series = curves.map((c) => ({
      label: `p = ${c.order}${c.corrected ? ' + corr.' : ''} (slope ${c.slope == null ? '–' : c.slope.toFixed(2)})`,
      y: order.map((i) => (c.status[i] >= 2 ? NaN : c.localError[i])),
      colour: ORDER_COLOURS[c.order % ORDER_COLOURS.length], dash: c.corrected ? [7, 4] : undefined,
    }));
    if (!(this.figure instanceof LineView)) this.figure = new LineView(this.ui.figure);
    this.figure.show({
      title: 'Local error against the macro-step', xLabel: 'ΔT (s)', yLabel: 'e_l (NRMSE)', xLog: true, yLog: true,
      x: order.map((i) => x[i]), series, level: null,
      note: 'Solid: plain extrapolation of order p; dashed: with model-based correction. Slopes are fitted over stable points with 1e-12 ≤ e_l ≤ 0.1.',
    });
    this.lastConvergence = curves.map((c) => ({ order: c.order, corrected: c.corrected, slope: c.slope }));
  }

  // ----- export ----------------------------------------------------------------------------

  async exportPng() {
    const blob = await this.figure?.toPng();
    if (blob) downloadBlob(blob, `cosim-${this.view}.png`);
  }

  exportCsv() {
    const csv = this.figure?.toCsv();
    if (csv) downloadBlob(new Blob([csv], { type: 'text/csv' }), `cosim-${this.view}.csv`);
  }
}
