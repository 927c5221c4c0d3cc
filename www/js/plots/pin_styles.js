// Styles of pinned runs in the time-response charts: a colour from the Okabe-Ito
// colour-blind-safe palette plus a dash pattern, so two pins differ even in grey print.
// Light and dark themes use the same hues, lighter on the dark panel.

const LIGHT = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#7a6300', '#56b4e9'];
const DARK = ['#56b4e9', '#e69f00', '#2ecf9f', '#e7a6cc', '#f0e442', '#a6d3f2'];
const DASHES = [[], [10, 4], [3, 3], [12, 3, 3, 3], [6, 2], [1, 3]];

/** Style {color, dash, width} of pin number `k` (0-based) in `theme` ('light' | 'dark'). */
export function pinStyle(k, theme) {
  const colors = theme === 'dark' ? DARK : LIGHT;
  return { color: colors[k % colors.length], dash: DASHES[k % DASHES.length], width: 2 };
}

/**
 * One chart's data with pinned runs: the current run's table [time, ...series] joined
 * with each pin's [time, values] on the union of their time points (gaps are null and
 * spanned when drawn). Tables on identical time grids are joined without copying work.
 */
export function joinTables(uPlot, tables) {
  const [first, ...rest] = tables;
  if (rest.every((t) => sameGrid(t[0], first[0]))) return [first[0], ...tables.flatMap((t) => t.slice(1))];
  return uPlot.join(tables.map((t) => t.map((c) => Array.from(c))));
}

function sameGrid(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
