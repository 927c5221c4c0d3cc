// Line views of the analysis (uPlot): ρ against ΔT (Fig. 5, log x, ρ = 1 line), e_g against
// one parameter (Fig. 7, log-log, 0.01 line) and local error against ΔT for orders 0–4
// with and without correction (Fig. 8, log-log, fitted slopes in the legend). Points that
// are not finite or not ok are gaps (null), never plotted as numbers; the read-out counts
// them. Hover values come from uPlot's legend. Exports PNG and CSV.

import uPlot from '../../vendor/uPlot.esm.js';
import { cssColor } from '../theme.js';
import { fmt, powerLabel } from './heatmap.js';

/** Curve colours by extrapolation order 0..4 (plain solid, corrected dashed). */
export const ORDER_COLOURS = ['#1b9e77', '#d95f02', '#7570b3', '#e7298a', '#66a61e'];

const isDecade = (v) => v > 0 && Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-6;

/** Labels at whole decades only (log), every n-th decade when there are more than 8. */
const tickLabels = (log) => (u, vals) => {
  const decades = vals.filter(isDecade);
  const every = Math.max(1, Math.ceil(decades.length / 8));
  return vals.map((v) => {
    if (v == null) return '';
    if (!log) return fmt(v);
    const k = Math.round(Math.log10(v));
    return Math.abs(Math.log10(v) - k) < 1e-6 && k % every === 0 ? powerLabel(k) : '';
  });
};

/** Grid lines and ticks at whole decades only once a log axis spans more than 4 of them:
 * the 2…9 lines of twenty decades would grey out the plot. */
const decadeLines = (log) => (u, splits) =>
  (log && splits.filter(isDecade).length > 4 ? splits.map((v) => (isDecade(v) ? v : null)) : splits);

/** Log range to whole decades, at most 10⁻¹⁶…10⁶ (diverged runs reach 1e90). */
const logRange = (u, min, max) => [
  10 ** Math.floor(Math.log10(Math.max(min, 1e-16))),
  10 ** Math.ceil(Math.log10(Math.min(Math.max(max, min * 10), 1e6))),
];

export class LineView {
  constructor(root) {
    this.root = root;
    this.plot = null;
    this.figure = null;
    new ResizeObserver(() => this.resize()).observe(root);
  }

  size() {
    const w = Math.max(280, Math.floor(this.root.clientWidth || 600));
    return { width: w, height: Math.round(Math.min(440, Math.max(240, w * 0.55))) };
  }

  resize() {
    if (this.plot) this.plot.setSize(this.size());
  }

  /**
   * `fig`: {title, xLabel, yLabel, xLog, yLog, x: number[], series: [{label, y, colour,
   * dash?}], level: {value, label}|null, note: string}.
   */
  show(fig) {
    this.plot?.destroy();
    this.figure = fig;
    const ink = cssColor('--ink') || '#1f2933', grid = cssColor('--grid') || '#e4e7eb', muted = cssColor('--muted') || '#52606d';
    const clean = (ys) => ys.map((v) => (Number.isFinite(v) && (!fig.yLog || v > 0) ? v : null));
    const data = [Array.from(fig.x), ...fig.series.map((s) => clean(Array.from(s.y)))];
    const series = [{ label: fig.xLabel, value: (u, v) => (v == null ? '–' : fmt(v)) },
      ...fig.series.map((s) => ({ label: s.label, stroke: s.colour, width: 1.75, dash: s.dash, spanGaps: false,
        points: { show: fig.x.length <= 40, size: 4 }, value: (u, v) => (v == null ? '–' : v.toPrecision(5)) }))];
    if (fig.level) {
      data.push(fig.x.map(() => fig.level.value));
      series.push({ label: fig.level.label, stroke: ink, width: 1, dash: [6, 4], points: { show: false }, value: () => fig.level.value });
    }
    const axis = (log) => ({ stroke: muted, grid: { stroke: grid, filter: decadeLines(log) },
      ticks: { stroke: grid, filter: decadeLines(log) } });
    this.root.replaceChildren();
    const note = document.createElement('p');
    note.className = 'sweep-note';
    note.textContent = fig.note ?? '';
    this.plot = new uPlot({
      ...this.size(),
      title: fig.title,
      scales: { x: { time: false, distr: fig.xLog ? 3 : 1, log: 10 },
        y: fig.yLog ? { distr: 3, log: 10, range: logRange } : { distr: 1 } },
      series,
      axes: [
        { ...axis(fig.xLog), label: fig.xLabel, values: tickLabels(fig.xLog), space: 40 },
        { ...axis(fig.yLog), label: fig.yLabel, size: 64, values: tickLabels(fig.yLog) },
      ],
      cursor: { drag: { x: true, y: false } },
    }, data, this.root);
    this.root.append(note);
    this.plot.root.style.color = ink;
  }

  /** x and every series as CSV columns. */
  toCsv() {
    const f = this.figure;
    if (!f) return '';
    const head = [f.xLabel, ...f.series.map((s) => s.label)].map((h) => `"${String(h).replace(/"/g, '""')}"`);
    const rows = [head.join(',')];
    f.x.forEach((x, i) => rows.push([x, ...f.series.map((s) => s.y[i])].join(',')));
    return `${rows.join('\n')}\n`;
  }

  /** uPlot's canvas with the title above and the legend (wrapped) below. */
  toPng() {
    const f = this.figure, src = this.plot?.ctx.canvas;
    if (!f || !src) return Promise.resolve(null);
    const dpr = src.width / Math.max(1, this.plot.width);
    const items = [...f.series, ...(f.level ? [{ label: f.level.label, colour: cssColor('--ink') || '#000', dash: [6, 4] }] : [])];
    const probe = document.createElement('canvas').getContext('2d');
    probe.font = `${12 * dpr}px system-ui, sans-serif`;
    const rowsOf = () => {
      const rows = [[]]; let x = 10 * dpr;
      for (const s of items) {
        const w = 30 * dpr + probe.measureText(s.label).width + 18 * dpr;
        if (x + w > src.width && rows[rows.length - 1].length) { rows.push([]); x = 10 * dpr; }
        rows[rows.length - 1].push({ s, x }); x += w;
      }
      return rows;
    };
    const rows = rowsOf();
    const head = 30 * dpr, foot = rows.length * 20 * dpr + 10 * dpr;
    const c = document.createElement('canvas');
    c.width = src.width; c.height = src.height + head + foot;
    const ctx = c.getContext('2d');
    ctx.fillStyle = cssColor('--panel') || '#fff'; ctx.fillRect(0, 0, c.width, c.height);
    ctx.fillStyle = cssColor('--ink') || '#000';
    ctx.font = `600 ${14 * dpr}px system-ui, sans-serif`; ctx.textBaseline = 'middle';
    ctx.fillText(f.title, 10 * dpr, head / 2);
    ctx.drawImage(src, 0, head);
    ctx.font = `${12 * dpr}px system-ui, sans-serif`;
    rows.forEach((row, r) => {
      const y = head + src.height + (r + 0.5) * 20 * dpr;
      for (const { s, x } of row) {
        ctx.strokeStyle = s.colour; ctx.lineWidth = 2 * dpr; ctx.setLineDash((s.dash ?? []).map((d) => d * dpr));
        ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + 24 * dpr, y); ctx.stroke(); ctx.setLineDash([]);
        ctx.fillStyle = cssColor('--ink') || '#000'; ctx.fillText(s.label, x + 30 * dpr, y);
      }
    });
    return new Promise((resolve) => c.toBlob(resolve, 'image/png'));
  }
}
