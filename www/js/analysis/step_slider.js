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
    this.pool.cancel();
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
    }
    if (job !== this.job) return;
    // The contour is drawn on the map's own grid: resample by nearest cell.
    const d = view.data;
    const nx = d.x.values.length, ny = d.y.values.length;
    const fine = new Float64Array(nx * ny);
    for (let j = 0; j < ny; j++) {
      const sj = Math.round((j * (LIVE_Y - 1)) / Math.max(1, ny - 1));
      for (let i = 0; i < nx; i++) fine[j * nx + i] = values[sj * LIVE_X + Math.round((i * (LIVE_X - 1)) / Math.max(1, nx - 1))];
    }
    view.overlays = view.overlays.filter((o) => !o.live);
    view.addOverlay({ values: fine, level: 1, shade: '#7c3aed', dash: [4, 3], label: `ρ = 1 at ΔT = ${shortNumber(h)} s (dragging)`, live: true });
    this.lastDrawMs = performance.now() - t0;
    document.body.dataset.liveContour = String(job);
  }
}
