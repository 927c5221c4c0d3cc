// The ΔT slider of the stability map: while it is dragged, the ρ = 1 contour at the
// slider's macro-step is recomputed on a coarse grid (its own small worker pool, the
// previous request cancelled) and drawn over the map; on release the macro-step goes
// into the scenario and the whole map is recomputed at it.

import { Cancelled, TilePool } from './tile_pool.js';
import { MapView } from './map_view.js';
import { shortNumber } from '../pins.js';

const STEPS = 240;
/** The dragging contour's grid: coarse, so that it follows the pointer. */
const LIVE_X = 48;
const LIVE_Y = 32;

/**
 * The coarse grid's values on the map's grid (same ranges, more points): bilinear in
 * log10 of the value over grid indices, so the contour is smooth, not a staircase. A cell
 * next to a failed (NaN) point stays NaN.
 */
export function resample(values, cx, cy, nx, ny) {
  const out = new Float64Array(nx * ny);
  const logs = values.map((v) => Math.log10(v));
  const at = (i, j) => logs[j * cx + i];
  for (let j = 0; j < ny; j++) {
    const fy = ny > 1 ? (j * (cy - 1)) / (ny - 1) : 0;
    const j0 = Math.min(cy - 2, Math.floor(fy)), ty = fy - j0;
    for (let i = 0; i < nx; i++) {
      const fx = nx > 1 ? (i * (cx - 1)) / (nx - 1) : 0;
      const i0 = Math.min(cx - 2, Math.floor(fx)), tx = fx - i0;
      const top = at(i0, j0) * (1 - tx) + at(i0 + 1, j0) * tx;
      const bottom = at(i0, j0 + 1) * (1 - tx) + at(i0 + 1, j0 + 1) * tx;
      out[j * nx + i] = 10 ** (top * (1 - ty) + bottom * ty);
    }
  }
  return out;
}

export class StepSlider {
  /** `panel`: the AnalysisPanel; `onRelease(h)`: the macro-step chosen. */
  constructor(panel, { field, input, output, onRelease }) {
    this.panel = panel;
    this.ui = { field, input, output };
    this.pool = new TilePool(Math.min(2, panel.pool.size));
    this.base = null;
    this.job = 0;
    input.min = '0';
    input.max = String(STEPS);
    input.step = '1';
    input.addEventListener('pointerdown', () => this.grab());
    input.addEventListener('keydown', () => this.grab());
    input.addEventListener('input', () => this.drag());
    input.addEventListener('change', () => { const h = this.value(); this.base = null; onRelease(h); });
  }

  /** Shown for the stability map only; centred (log, a decade each side) on the scenario's ΔT. */
  sync(view, scenario) {
    const h = scenario?.master?.macro_step;
    this.ui.field.hidden = view !== 'stability_map' || !(h > 0);
    if (this.ui.field.hidden || this.base !== null) return;
    this.center = h;
    this.ui.input.value = String(STEPS / 2);
    this.ui.output.textContent = `${shortNumber(h)} s`;
  }

  grab() {
    if (this.base === null) this.base = this.center;
  }

  value() {
    const p = Number(this.ui.input.value);
    return this.center * 10 ** ((2 * p) / STEPS - 1);
  }

  /** Recomputes the coarse ρ = 1 contour at the slider's ΔT and draws it over the map. */
  async drag() {
    this.grab();
    const h = this.value();
    this.ui.output.textContent = `${shortNumber(h)} s`;
    const view = this.panel.figure;
    if (!(view instanceof MapView) || !view.data) return;
    const job = ++this.job;
    // Only a contour still computing is stopped (that restarts its workers); an idle pool is reused.
    if (this.busy) this.pool.cancel();
    this.busy = true;
    const x = { ...this.panel.axisSpec(this.panel.axes.x), points: LIVE_X };
    const y = { ...this.panel.axisSpec(this.panel.axes.y), points: LIVE_Y };
    const values = new Float64Array(LIVE_X * LIVE_Y).fill(NaN);
    const t0 = performance.now();
    try {
      await this.pool.map({ scenario: this.panel.scenarioText((s) => { s.master.macro_step = h; }), x, y, metric: 'rho',
        rows: LIVE_Y, rowsPerTile: LIVE_Y / 2, onTile: (t) => values.set(t.values, t.start * LIVE_X) });
    } catch (err) {
      if (err instanceof Cancelled) return;
      throw err;
    } finally {
      if (job === this.job) this.busy = false;
    }
    if (job !== this.job) return;
    const fine = resample(values, LIVE_X, LIVE_Y, view.data.x.values.length, view.data.y.values.length);
    view.overlays = view.overlays.filter((o) => !o.live);
    view.addOverlay({ values: fine, level: 1, shade: '#7c3aed', dash: [4, 3], label: `ρ = 1 at ΔT = ${shortNumber(h)} s (dragging)`, live: true });
    this.lastDrawMs = performance.now() - t0;
    document.body.dataset.liveContour = String(job);
  }
}
