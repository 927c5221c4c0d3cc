// Canvas drawing for maps: axes (log or linear, with units), cells coloured by log10 of
// the metric, hatched cells for non-ok statuses, contour lines, and the colour bar.
// Pure drawing: map_view.js owns the data and the interaction.

/** Status codes from the core (CellStatus::code). */
export const STATUS = ['ok', 'ill-conditioned', 'diverged', 'failed'];

// Colour stops (t in [0, 1]) for the two scales.
const DIVERGING = [[0, [33, 102, 172]], [0.25, [103, 169, 207]], [0.5, [247, 247, 247]], [0.75, [239, 138, 98]], [1, [178, 24, 43]]];
const SEQUENTIAL = [[0, [68, 1, 84]], [0.25, [59, 82, 139]], [0.5, [33, 145, 140]], [0.75, [94, 201, 98]], [1, [253, 231, 37]]];

function ramp(stops, t) {
  const u = Math.min(1, Math.max(0, t));
  for (let k = 1; k < stops.length; k++) {
    if (u <= stops[k][0]) {
      const [t0, c0] = stops[k - 1], [t1, c1] = stops[k];
      const s = (u - t0) / (t1 - t0);
      return c0.map((v, i) => Math.round(v + (c1[i] - v) * s));
    }
  }
  return stops[stops.length - 1][1];
}

/**
 * Colour scale over log10(value): diverging around the level (ρ = 1) for stability maps,
 * sequential for errors. `lo`/`hi` are log10 bounds.
 */
export function colourScale(kind, level, finiteValues) {
  const logs = finiteValues.filter((v) => v > 0 && Number.isFinite(v)).map(Math.log10).sort((a, b) => a - b);
  const q = (p) => (logs.length ? logs[Math.min(logs.length - 1, Math.floor(p * logs.length))] : 0);
  const lv = Math.log10(level);
  if (kind === 'diverging') {
    // Stable and unstable halves scale separately, and any value past the level by more
    // than the stability tolerance (ρ > 1 + 1e-12) starts at a visible red (t = 0.62), so
    // a barely unstable cell never looks like a stable one.
    const below = Math.max(0.01, lv - q(0.02)), above = Math.max(0.01, q(0.98) - lv);
    const tol = 1e-12 / Math.LN10;
    const t = (l) => {
      const d = l - lv;
      if (d > tol) return 0.62 + 0.38 * Math.min(1, d / above);
      if (d < -tol) return 0.45 - 0.45 * Math.min(1, -d / below);
      return 0.5;
    };
    return { lo: lv - below, hi: lv + above, level: lv, t, stops: DIVERGING, colour: (v) => ramp(DIVERGING, t(Math.log10(v))) };
  }
  // Errors: at most 10⁻⁶…10² (diverging runs reach 1e90 and would wash out the accurate
  // region the contour marks); values outside take the end colours.
  let lo = Math.max(-6, q(0.02)), hi = Math.min(2, q(0.98));
  if (hi - lo < 0.5) { lo -= 0.25; hi += 0.25; }
  const t = (l) => (l - lo) / (hi - lo);
  return { lo, hi, level: lv, t, stops: SEQUENTIAL, colour: (v) => ramp(SEQUENTIAL, t(Math.log10(v))) };
}

/** Maps between values and pixels along one axis of `n` samples `values`. */
export function axisScale(values, log, p0, p1) {
  const n = values.length;
  const t = (v) => (log ? Math.log10(v) : v);
  const a = t(values[0]), b = t(values[n - 1]);
  // Cells are centred on the samples: extend half a step at both ends.
  const half = n > 1 ? (b - a) / (n - 1) / 2 : (Math.abs(a) || 1) / 2;
  const lo = a - half, hi = b + half;
  return {
    log, lo, hi,
    toPx: (v) => p0 + ((t(v) - lo) / (hi - lo)) * (p1 - p0),
    idxToPx: (i) => p0 + (((a + (n > 1 ? ((b - a) * i) / (n - 1) : 0)) - lo) / (hi - lo)) * (p1 - p0),
    pxToIdx: (px) => {
      const tv = lo + ((px - p0) / (p1 - p0)) * (hi - lo);
      return n > 1 ? ((tv - a) / (b - a)) * (n - 1) : 0;
    },
    ticks: () => ticks(lo, hi, log),
  };
}

const SUP = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
/** `10⁻³` style label. */
export function powerLabel(k) {
  return `10${String(k).split('').map((c) => SUP[c] ?? c).join('')}`;
}

function ticks(lo, hi, log) {
  if (log) {
    const k0 = Math.ceil(lo - 1e-9), k1 = Math.floor(hi + 1e-9);
    const every = Math.max(1, Math.ceil((k1 - k0 + 1) / 8));
    const out = [];
    for (let k = k0; k <= k1; k += every) out.push({ v: 10 ** k, label: powerLabel(k) });
    return out;
  }
  const raw = (hi - lo) / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push({ v, label: fmt(v) });
  return out;
}

/** Short number text: 3 significant digits, exponent form outside [1e-3, 1e4). */
export function fmt(v) {
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a >= 1e-3 && a < 1e4 ? String(Number(v.toPrecision(3))) : v.toExponential(2).replace('e+', 'e');
}

/**
 * Diagonal hatch for non-ok cells: `light` (lines only, over the colour) for
 * ill-conditioned cells, grey with lines for diverged and failed ones.
 */
export function hatchPattern(ctx, ink, light = false) {
  const c = document.createElement('canvas');
  c.width = c.height = 8;
  const g = c.getContext('2d');
  if (!light) {
    g.fillStyle = 'rgba(128,128,128,0.7)';
    g.fillRect(0, 0, 8, 8);
  }
  g.globalAlpha = light ? 0.35 : 1;
  g.strokeStyle = ink;
  g.lineWidth = 1;
  g.beginPath();
  g.moveTo(0, 8); g.lineTo(8, 0);
  g.moveTo(-2, 2); g.lineTo(2, -2);
  g.moveTo(6, 10); g.lineTo(10, 6);
  g.stroke();
  return ctx.createPattern(c, 'repeat');
}

/** Draws the axes frame, ticks, tick labels and axis titles. */
export function drawAxes(ctx, box, xs, ys, xTitle, yTitle, ink, grid) {
  ctx.save();
  ctx.strokeStyle = ink;
  ctx.fillStyle = ink;
  ctx.lineWidth = 1;
  ctx.strokeRect(box.left + 0.5, box.top + 0.5, box.width - 1, box.height - 1);
  ctx.font = '12px system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const t of xs.ticks()) {
    const px = Math.round(xs.toPx(t.v)) + 0.5;
    if (px < box.left - 1 || px > box.left + box.width + 1) continue;
    ctx.beginPath(); ctx.moveTo(px, box.top + box.height); ctx.lineTo(px, box.top + box.height + 5); ctx.stroke();
    ctx.fillText(t.label, px, box.top + box.height + 7);
  }
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const t of ys.ticks()) {
    const py = Math.round(ys.toPx(t.v)) + 0.5;
    if (py < box.top - 1 || py > box.top + box.height + 1) continue;
    ctx.beginPath(); ctx.moveTo(box.left - 5, py); ctx.lineTo(box.left, py); ctx.stroke();
    ctx.fillText(t.label, box.left - 7, py);
  }
  ctx.textAlign = 'center';
  ctx.textBaseline = 'bottom';
  ctx.fillText(xTitle, box.left + box.width / 2, box.top + box.height + 40);
  ctx.translate(box.left - 48, box.top + box.height / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textBaseline = 'bottom';
  ctx.fillText(yTitle, 0, 0);
  ctx.restore();
  void grid;
}

/**
 * Vertical colour bar at `bar`, evenly spaced in the scale's colour parameter t (so both
 * halves of a diverging scale get room), labelled at the ends, the level and whole decades.
 */
export function drawColourBar(ctx, bar, scale, title, ink) {
  ctx.save();
  const { lo, hi, t } = scale;
  for (let py = 0; py < bar.height; py++) {
    ctx.fillStyle = `rgb(${ramp(scale.stops, 1 - py / (bar.height - 1)).join(',')})`;
    ctx.fillRect(bar.left, bar.top + py, bar.width, 1);
  }
  ctx.strokeStyle = ink;
  ctx.strokeRect(bar.left + 0.5, bar.top + 0.5, bar.width - 1, bar.height - 1);
  ctx.fillStyle = ink;
  ctx.font = '11px system-ui, sans-serif';
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  const marks = [lo, scale.level, hi];
  for (let k = Math.ceil(lo); k <= Math.floor(hi); k++) marks.push(k);
  const placed = [];
  for (const l of marks) {
    if (l < lo - 1e-9 || l > hi + 1e-9) continue;
    const py = bar.top + (1 - Math.min(1, Math.max(0, t(l)))) * (bar.height - 1);
    if (placed.some((p) => Math.abs(p - py) < 14)) continue;
    placed.push(py);
    ctx.fillText(Number.isInteger(l) ? powerLabel(l) : fmt(10 ** l), bar.left + bar.width + 4, py);
  }
  ctx.textAlign = 'center';
  ctx.textBaseline = 'bottom';
  ctx.fillText(title, bar.left + bar.width / 2 + 8, bar.top - 6);
  ctx.restore();
}
