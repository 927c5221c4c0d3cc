// A map on one canvas: cells coloured by log10 of the metric as tiles arrive, non-ok cells
// hatched (never drawn as numbers), the level contour (ρ = 1 or e_g = 0.01) by marching
// squares, overlaid contours (several ΔT, or the method with/without correction), axes
// with units, colour bar and legend. Hover shows the cell under the pointer; the read-out
// below lists the cells that are not ok with their reason. Exports PNG (the canvas) and
// CSV (x,y,value,status, as `cosim map`).

import { contourSegments } from './contour.js';
import { STATUS, axisScale, colourScale, drawAxes, drawColourBar, fmt, hatchPattern } from './heatmap.js';
import { cssColor as themeColour } from '../theme.js';

const cssColor = (name, fallback) => themeColour(name) || fallback;

const PENDING = 255;

export class MapView {
  /** `root` gets the canvas, the hover line and the read-out. */
  constructor(root) {
    this.root = root;
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'map-canvas';
    this.canvas.setAttribute('role', 'img');
    this.hover = document.createElement('p');
    this.hover.className = 'map-hover';
    this.hover.setAttribute('aria-live', 'polite');
    this.hover.textContent = 'Point at a cell to read its value.';
    this.readout = document.createElement('details');
    this.readout.className = 'map-readout';
    root.replaceChildren(this.canvas, this.hover, this.readout);
    this.data = null;
    this.overlays = [];
    this.frame = 0;
    this.canvas.addEventListener('mousemove', (e) => this.onHover(e));
    this.canvas.addEventListener('mouseleave', () => { this.hover.textContent = 'Point at a cell to read its value.'; });
    this.resizeObserver = new ResizeObserver(() => this.redraw());
    this.resizeObserver.observe(root);
  }

  /**
   * A new map: `x`/`y` are {values: Float64Array, log, title, name, unit}; `metric` {name,
   * symbol, level, levelLabel, kind: 'diverging'|'sequential'}.
   */
  start({ x, y, metric }, prior = null) {
    const n = x.values.length * y.values.length;
    this.data = {
      x, y, metric,
      values: new Float64Array(n).fill(NaN),
      status: new Uint8Array(n).fill(PENDING),
      failures: new Map(),
      done: 0,
    };
    if (prior) this.fillFrom(prior);
    this.overlays = [];
    this.canvas.setAttribute('aria-label', `${metric.symbol} over ${x.name} and ${y.name}`);
    this.redraw();
  }

  /**
   * Refining: until its tiles arrive, each cell shows the nearest cell of the coarser map
   * `prior` (same axes, fewer points), so the picture sharpens instead of starting blank.
   */
  fillFrom(prior) {
    const d = this.data;
    const nx = d.x.values.length, ny = d.y.values.length;
    const px = prior.x.values.length, py = prior.y.values.length;
    const near = (i, n, m) => (n > 1 ? Math.round((i * (m - 1)) / (n - 1)) : 0);
    for (let j = 0; j < ny; j++) {
      const pj = near(j, ny, py);
      for (let i = 0; i < nx; i++) {
        const k = pj * px + near(i, nx, px);
        d.values[j * nx + i] = prior.values[k];
        d.status[j * nx + i] = prior.status[k];
      }
    }
  }

  addTile(t) {
    const d = this.data;
    if (!d) return;
    const nx = d.x.values.length;
    d.values.set(t.values, t.start * nx);
    d.status.set(t.status, t.start * nx);
    t.failures?.forEach((m, k) => { if (m) d.failures.set(t.start * nx + k, m); });
    d.done += t.end - t.start;
    this.redraw();
  }

  /** Contour-only overlay: {values, level, shade (css colour), dash:[], label}. */
  addOverlay(o) {
    const d = this.data;
    if (!d) return;
    const segments = contourSegments(o.values, d.x.values.length, d.y.values.length, o.level);
    const label = segments.length ? o.label : `${o.label} (nowhere in range)`;
    this.overlays.push({ ...o, label, segments });
    this.redraw();
  }

  get complete() {
    return this.data !== null && this.data.done >= this.data.y.values.length;
  }

  redraw() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.draw(); });
  }

  layout() {
    const w = Math.max(300, Math.floor(this.root.clientWidth || 600));
    const narrow = w < 520;
    const box = { left: narrow ? 58 : 66, top: 28, width: w - (narrow ? 58 : 66) - (narrow ? 60 : 84) };
    box.height = Math.round(Math.min(520, Math.max(220, box.width * (narrow ? 0.95 : 0.62))));
    const probe = (this.probe ??= document.createElement('canvas').getContext('2d'));
    probe.font = '12px system-ui, sans-serif';
    const rows = this.data ? this.legendRows(probe, w - 8) : [];
    const h = box.top + box.height + 48 + rows.length * 18 + 8;
    return { w, h, box, rows };
  }

  /** Legend entries: the level contour (or the overlays) and the two hatches with counts. */
  legendItems() {
    const d = this.data;
    const counts = [0, 0, 0, 0];
    for (const s of d.status) if (s < 4) counts[s] += 1;
    const items = [];
    if (this.overlays.length === 0) items.push({ kind: 'line', colour: '#000000', label: d.metric.levelLabel });
    items.push({ kind: 'light', label: `ill-conditioned (${counts[1]})` });
    items.push({ kind: 'hatch', label: `diverged (${counts[2]}) or failed (${counts[3]})` });
    for (const o of this.overlays) items.push({ kind: 'line', colour: o.shade, dash: o.dash, label: o.label });
    return { items, counts };
  }

  /** Items wrapped into rows no wider than `maxX`: [[{item, x}]]. */
  legendRows(ctx, maxX) {
    const rows = [[]];
    let x = 8;
    for (const it of this.legendItems().items) {
      const width = 30 + ctx.measureText(it.label).width + 16;
      if (x + width > maxX && rows[rows.length - 1].length) { rows.push([]); x = 8; }
      rows[rows.length - 1].push({ it, x });
      x += width;
    }
    return rows;
  }

  draw() {
    const d = this.data;
    const { w, h, box, rows } = this.layout();
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(h * dpr);
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const ink = cssColor('--ink', '#1f2933');
    ctx.fillStyle = cssColor('--panel', '#ffffff');
    ctx.fillRect(0, 0, w, h);
    this.box = box;
    if (!d) return;
    const nx = d.x.values.length, ny = d.y.values.length;
    const xs = axisScale(d.x.values, d.x.log, box.left, box.left + box.width);
    const ys = axisScale(d.y.values, d.y.log, box.top + box.height, box.top);
    this.scales = { xs, ys };
    const finite = [];
    for (let k = 0; k < d.values.length; k++) if (d.status[k] === 0 || d.status[k] === 1) finite.push(d.values[k]);
    const scale = colourScale(d.metric.kind, d.metric.level, finite);
    const hatch = hatchPattern(ctx, ink);
    const lightHatch = hatchPattern(ctx, '#000000', true);
    const xe = Array.from({ length: nx + 1 }, (_, i) => Math.round(xs.idxToPx(i - 0.5)));
    const ye = Array.from({ length: ny + 1 }, (_, j) => Math.round(ys.idxToPx(j - 0.5)));
    ctx.save();
    ctx.beginPath();
    ctx.rect(box.left, box.top, box.width, box.height);
    ctx.clip();
    ctx.fillStyle = cssColor('--grid', '#e4e7eb');
    ctx.fillRect(box.left, box.top, box.width, box.height);
    for (let j = 0; j < ny; j++) {
      for (let i = 0; i < nx; i++) {
        const k = j * nx + i, s = d.status[k];
        if (s === PENDING) continue;
        const x0 = xe[i], x1 = xe[i + 1], y0 = ye[j + 1], y1 = ye[j];
        if (s <= 1) {
          ctx.globalAlpha = this.dim ? 0.6 : 1;
          ctx.fillStyle = `rgb(${scale.colour(d.values[k]).join(',')})`;
          ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
          ctx.globalAlpha = 1;
        }
        if (s >= 1) {
          ctx.fillStyle = s === 1 ? lightHatch : hatch;
          ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
        }
      }
    }
    const toPx = (seg) => [xs.idxToPx(seg[0]), ys.idxToPx(seg[1]), xs.idxToPx(seg[2]), ys.idxToPx(seg[3])];
    const stroke = (segments, colour, width, dash) => {
      ctx.strokeStyle = colour;
      ctx.lineWidth = width;
      ctx.setLineDash(dash);
      ctx.beginPath();
      for (const s of segments) { const p = toPx(s); ctx.moveTo(p[0], p[1]); ctx.lineTo(p[2], p[3]); }
      ctx.stroke();
    };
    for (const o of this.overlays) stroke(o.segments, o.shade, 2, o.dash ?? []);
    if (this.overlays.length === 0) {
      stroke(contourSegments(d.values, nx, ny, d.metric.level), '#ffffff', 4, []);
      stroke(contourSegments(d.values, nx, ny, d.metric.level), '#000000', 2, []);
    }
    ctx.setLineDash([]);
    ctx.restore();
    drawAxes(ctx, box, xs, ys, d.x.title, d.y.title, ink);
    const bar = { left: box.left + box.width + 12, top: box.top + 14, width: 14, height: box.height - 14 };
    drawColourBar(ctx, bar, scale, d.metric.symbol, ink);
    this.drawLegend(ctx, box, ink, rows);
  }

  drawLegend(ctx, box, ink, rows) {
    ctx.save();
    ctx.font = '12px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    rows.forEach((row, r) => {
      const y = box.top + box.height + 56 + r * 18;
      for (const { it, x } of row) {
        if (it.kind === 'line') {
          ctx.strokeStyle = it.colour; ctx.lineWidth = 2; ctx.setLineDash(it.dash ?? []);
          ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + 24, y); ctx.stroke(); ctx.setLineDash([]);
        } else {
          ctx.fillStyle = hatchPattern(ctx, ink, it.kind === 'light');
          ctx.fillRect(x, y - 6, 24, 12);
          ctx.strokeStyle = ink; ctx.lineWidth = 1; ctx.strokeRect(x + 0.5, y - 5.5, 23, 11);
        }
        ctx.fillStyle = ink;
        ctx.fillText(it.label, x + 30, y);
      }
    });
    ctx.restore();
    this.updateReadout(this.legendItems().counts);
  }

  updateReadout(counts) {
    const d = this.data;
    const bad = counts[1] + counts[2] + counts[3];
    const summary = document.createElement('summary');
    summary.textContent = bad === 0
      ? `${d.done} of ${d.y.values.length} rows computed; every cell ok.`
      : `${d.done} of ${d.y.values.length} rows computed; ${bad} cells not ok (listed here).`;
    const list = document.createElement('ul');
    const nx = d.x.values.length;
    let shown = 0;
    for (let k = 0; k < d.status.length && shown < 200; k++) {
      const s = d.status[k];
      if (s === 0 || s === PENDING) continue;
      const li = document.createElement('li');
      li.textContent = `${this.cellText(k % nx, Math.floor(k / nx))}`;
      list.append(li);
      shown += 1;
    }
    if (bad > shown) { const li = document.createElement('li'); li.textContent = `… and ${bad - shown} more (in the CSV)`; list.append(li); }
    const open = this.readout.open;
    this.readout.replaceChildren(summary, list);
    this.readout.open = open;
  }

  cellText(i, j) {
    const d = this.data;
    const k = j * d.x.values.length + i;
    const s = d.status[k];
    const coord = `${d.x.name} = ${fmt(d.x.values[i])}${d.x.unit ? ` ${d.x.unit}` : ''}, ${d.y.name} = ${fmt(d.y.values[j])}${d.y.unit ? ` ${d.y.unit}` : ''}`;
    if (s === PENDING) return `${coord}: not computed yet`;
    if (s === 3) return `${coord}: failed (${d.failures.get(k) ?? 'no value'})`;
    if (s === 2) return `${coord}: diverged (${d.metric.symbol} = ∞)`;
    const v = `${d.metric.symbol} = ${d.values[k].toPrecision(6)}`;
    return s === 1 ? `${coord}: ${v}, ill-conditioned (rounding may decide it)` : `${coord}: ${v}`;
  }

  onHover(e) {
    const d = this.data;
    if (!d || !this.scales) return;
    const r = this.canvas.getBoundingClientRect();
    const i = Math.round(this.scales.xs.pxToIdx(e.clientX - r.left));
    const j = Math.round(this.scales.ys.pxToIdx(e.clientY - r.top));
    if (i < 0 || j < 0 || i >= d.x.values.length || j >= d.y.values.length) return;
    this.hover.textContent = this.cellText(i, j);
  }

  /** `x,y,value,status` rows in y order (the CLI's `cosim map` layout). */
  toCsv() {
    const d = this.data;
    if (!d) return '';
    const nx = d.x.values.length;
    const names = ['ok', 'ill_conditioned', 'diverged', 'failed'];
    const lines = ['x,y,value,status'];
    for (let k = 0; k < d.values.length; k++) {
      if (d.status[k] === PENDING) continue;
      lines.push(`${d.x.values[k % nx]},${d.y.values[Math.floor(k / nx)]},${d.values[k]},${names[d.status[k]]}`);
    }
    return `${lines.join('\n')}\n`;
  }

  toPng() {
    return new Promise((resolve) => this.canvas.toBlob(resolve, 'image/png'));
  }
}

export { STATUS };
