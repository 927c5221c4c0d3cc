// Figure export: PNG from uPlot's own canvas (plus a title and legend drawn around it),
// and SVG built here from the plotted numbers (axes with ticks, one polyline per series,
// legend). Every piece of scenario text that reaches the SVG is XML-escaped.

/** Triggers a download of `blob` as `filename`. */
export function downloadBlob(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A file name from a signal name (`mass1.s1` -> `mass1.s1`), safe on every system. */
export function fileStem(name) {
  return String(name).replace(/[^\w.-]+/g, '_').slice(0, 80) || 'plot';
}

const escapeXml = (s) => String(s).replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' }[c]));

/** Round tick positions covering [min, max]: steps of 1, 2 or 5 × 10^k. */
export function niceTicks(min, max, count = 6) {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [];
  if (min === max) { const d = Math.abs(min) || 1; min -= d / 2; max += d / 2; }
  const raw = (max - min) / Math.max(1, count - 1);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return out;
}

function tickText(v) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a < 1e-3 || a >= 1e5 ? v.toExponential(1) : String(+v.toPrecision(4));
}

function extent(arrays) {
  let lo = Infinity; let hi = -Infinity;
  for (const a of arrays) for (const v of a) if (Number.isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
  if (lo === Infinity) return [0, 1];
  if (lo === hi) return [lo - (Math.abs(lo) || 1) / 2, hi + (Math.abs(hi) || 1) / 2];
  const pad = (hi - lo) * 0.04;
  return [lo - pad, hi + pad];
}

/**
 * Point indices to draw: every point for short series; for long ones the first, last,
 * smallest and largest point of each of `buckets` slices, so peaks survive.
 */
function keep(n, y, buckets) {
  if (n <= buckets * 4) return Array.from({ length: n }, (_, i) => i);
  const idx = [];
  const size = n / buckets;
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor(b * size); const to = Math.min(n, Math.floor((b + 1) * size));
    let lo = from; let hi = from;
    for (let i = from; i < to; i++) { if (y[i] < y[lo]) lo = i; if (y[i] > y[hi]) hi = i; }
    idx.push(...new Set([from, lo, hi, to - 1].sort((a, b2) => a - b2)));
  }
  return idx;
}

/**
 * SVG text of one figure.
 * @param {object} fig {title, xLabel, yLabel, y2Label?, x: number[], series: [{label, color,
 *   dash?: number[], x?: number[] (a pin's own points), y: number[], right?: boolean}],
 *   colors: {bg, ink, muted, grid}, steps?: boolean (integers, booleans, enumerations and
 *   clocks: each value held until the next point, as the live charts draw them)}
 */
export function figureSvg(fig, width = 800, height = 440) {
  const { colors } = fig;
  const hasRight = fig.series.some((s) => s.right);
  const m = { left: 78, right: hasRight ? 78 : 20, top: 40, bottom: 78 };
  const pw = width - m.left - m.right; const ph = height - m.top - m.bottom;
  const [x0, x1] = extent([fig.x, ...fig.series.filter((s) => s.x).map((s) => s.x)]);
  const [y0, y1] = extent(fig.series.filter((s) => !s.right).map((s) => s.y));
  const [r0, r1] = extent(fig.series.filter((s) => s.right).map((s) => s.y));
  const sx = (v) => m.left + ((v - x0) / (x1 - x0)) * pw;
  const sy = (v, right) => (right ? m.top + (1 - (v - r0) / (r1 - r0)) * ph : m.top + (1 - (v - y0) / (y1 - y0)) * ph);
  const out = [];
  const text = (x, y, s, attrs = '') => out.push(`<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attrs}>${escapeXml(s)}</text>`);
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`);
  out.push(`<rect width="100%" height="100%" fill="${escapeXml(colors.bg)}"/>`);
  text(m.left, 24, fig.title, `fill="${escapeXml(colors.ink)}" font-size="15" font-weight="600"`);
  // Grid and ticks.
  out.push(`<g stroke="${escapeXml(colors.grid)}" stroke-width="1">`);
  const xt = niceTicks(x0, x1, 8).filter((v) => v >= x0 && v <= x1);
  const yt = niceTicks(y0, y1, 6).filter((v) => v >= y0 && v <= y1);
  for (const v of xt) out.push(`<line x1="${sx(v).toFixed(1)}" x2="${sx(v).toFixed(1)}" y1="${m.top}" y2="${m.top + ph}"/>`);
  for (const v of yt) out.push(`<line x1="${m.left}" x2="${m.left + pw}" y1="${sy(v).toFixed(1)}" y2="${sy(v).toFixed(1)}"/>`);
  out.push('</g>');
  out.push(`<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="${escapeXml(colors.muted)}"/>`);
  const tickAttr = `fill="${escapeXml(colors.muted)}"`;
  for (const v of xt) text(sx(v), m.top + ph + 16, tickText(v), `${tickAttr} text-anchor="middle"`);
  for (const v of yt) text(m.left - 6, sy(v) + 4, tickText(v), `${tickAttr} text-anchor="end"`);
  if (hasRight) {
    for (const v of niceTicks(r0, r1, 6).filter((t) => t >= r0 && t <= r1)) text(m.left + pw + 6, sy(v, true) + 4, tickText(v), tickAttr);
  }
  const labelAttr = `fill="${escapeXml(colors.ink)}"`;
  text(m.left + pw / 2, m.top + ph + 34, fig.xLabel, `${labelAttr} text-anchor="middle"`);
  text(16, m.top + ph / 2, fig.yLabel, `${labelAttr} text-anchor="middle" transform="rotate(-90 16 ${(m.top + ph / 2).toFixed(1)})"`);
  if (hasRight && fig.y2Label) {
    const xr = width - 12;
    text(xr, m.top + ph / 2, fig.y2Label, `${labelAttr} text-anchor="middle" transform="rotate(90 ${xr} ${(m.top + ph / 2).toFixed(1)})"`);
  }
  // Series, clipped to the plot area.
  out.push(`<defs><clipPath id="plot-area"><rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}"/></clipPath></defs>`);
  out.push('<g clip-path="url(#plot-area)" fill="none" stroke-linejoin="round">');
  for (const s of fig.series) {
    const xs = s.x ?? fig.x;
    const idx = keep(Math.min(xs.length, s.y.length), s.y, Math.ceil(pw)).filter((i) => Number.isFinite(s.y[i]));
    const pts = [];
    idx.forEach((i, k) => {
      // Steps: the previous value runs on to this point, then the line jumps.
      if (fig.steps && k > 0) pts.push(`${sx(xs[i]).toFixed(2)},${sy(s.y[idx[k - 1]], s.right).toFixed(2)}`);
      pts.push(`${sx(xs[i]).toFixed(2)},${sy(s.y[i], s.right).toFixed(2)}`);
    });
    const dash = s.dash?.length ? ` stroke-dasharray="${s.dash.join(' ')}"` : '';
    out.push(`<polyline stroke="${escapeXml(s.color)}" stroke-width="1.5"${dash} points="${pts.join(' ')}"/>`);
  }
  out.push('</g>');
  // Legend under the x label.
  let lx = m.left;
  const ly = height - 18;
  for (const s of fig.series) {
    const dash = s.dash?.length ? ` stroke-dasharray="${s.dash.join(' ')}"` : '';
    out.push(`<line x1="${lx}" x2="${lx + 26}" y1="${ly - 4}" y2="${ly - 4}" stroke="${escapeXml(s.color)}" stroke-width="2"${dash}/>`);
    text(lx + 32, ly, s.label, labelAttr);
    lx += 48 + 7 * String(s.label).length;
  }
  out.push('</svg>');
  return out.join('\n');
}

/**
 * PNG of a uPlot chart: its canvas (axes, grid, series) on the page background, with the
 * figure title above and a legend below. Resolves with a Blob.
 */
export function chartPng(plot, { title, series, colors }) {
  const src = plot.ctx.canvas;
  const dpr = src.width / Math.max(1, plot.width || src.width);
  const head = Math.round(30 * dpr); const foot = Math.round(30 * dpr);
  const canvas = document.createElement('canvas');
  canvas.width = src.width;
  canvas.height = src.height + head + foot;
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = colors.bg;
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = colors.ink;
  ctx.font = `600 ${Math.round(14 * dpr)}px system-ui, sans-serif`;
  ctx.textBaseline = 'middle';
  ctx.fillText(title, 10 * dpr, head / 2);
  ctx.drawImage(src, 0, head);
  ctx.font = `${Math.round(12 * dpr)}px system-ui, sans-serif`;
  let x = 10 * dpr;
  const y = head + src.height + foot / 2;
  for (const s of series) {
    ctx.strokeStyle = s.color;
    ctx.lineWidth = 2 * dpr;
    ctx.setLineDash((s.dash ?? []).map((d) => d * dpr));
    ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + 24 * dpr, y); ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = colors.ink;
    ctx.fillText(s.label, x + 30 * dpr, y);
    x += 30 * dpr + ctx.measureText(s.label).width + 18 * dpr;
  }
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'));
}
