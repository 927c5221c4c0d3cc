// Marching squares on a map grid: the segments where a field crosses a level, in grid
// index coordinates (x = column index, y = row index, cell centres at integers), so the
// drawing code maps them with the same transform as the cells.
//
// The field is compared in log10 (maps over log-spaced values are smooth in log), so a
// crossing is interpolated linearly in log10(value) between two corners. Diverged cells
// (+∞) count as far above any level; failed cells (NaN) leave their squares out, so a
// contour stops at them instead of inventing a path (they are drawn hatched).

/** Large log10 stand-in for +∞ (diverged). */
const LOG_INF = 300;

function logOf(v) {
  if (v === Infinity) return LOG_INF;
  if (!(v > 0)) return NaN; // NaN, 0 or negative: no log, no contour through it
  return Math.log10(v);
}

/**
 * Segments `[x0, y0, x1, y1]` where `values` (row-major, `nx` × `ny`) crosses `level`.
 * Saddles (opposite corners on the same side) are resolved by the mean of the four corners.
 */
export function contourSegments(values, nx, ny, level) {
  const lv = Math.log10(level);
  const f = new Float64Array(nx * ny);
  for (let k = 0; k < nx * ny; k++) f[k] = logOf(values[k]) - lv;
  const out = [];
  // Point on the edge between corners a (value fa at pa) and b (fb at pb).
  const cut = (ax, ay, fa, bx, by, fb) => {
    const t = fa / (fa - fb);
    return [ax + (bx - ax) * t, ay + (by - ay) * t];
  };
  for (let j = 0; j + 1 < ny; j++) {
    for (let i = 0; i + 1 < nx; i++) {
      const a = f[j * nx + i], b = f[j * nx + i + 1], c = f[(j + 1) * nx + i + 1], d = f[(j + 1) * nx + i];
      if (Number.isNaN(a) || Number.isNaN(b) || Number.isNaN(c) || Number.isNaN(d)) continue;
      const idx = (a > 0 ? 1 : 0) | (b > 0 ? 2 : 0) | (c > 0 ? 4 : 0) | (d > 0 ? 8 : 0);
      if (idx === 0 || idx === 15) continue;
      // Edge points: bottom (a-b), right (b-c), top (d-c), left (a-d).
      const e = {
        B: () => cut(i, j, a, i + 1, j, b),
        R: () => cut(i + 1, j, b, i + 1, j + 1, c),
        T: () => cut(i, j + 1, d, i + 1, j + 1, c),
        L: () => cut(i, j, a, i, j + 1, d),
      };
      const seg = (p, q) => { const u = e[p](), w = e[q](); out.push([u[0], u[1], w[0], w[1]]); };
      switch (idx) {
        case 1: case 14: seg('L', 'B'); break;
        case 2: case 13: seg('B', 'R'); break;
        case 3: case 12: seg('L', 'R'); break;
        case 4: case 11: seg('R', 'T'); break;
        case 6: case 9: seg('B', 'T'); break;
        case 7: case 8: seg('L', 'T'); break;
        case 5: case 10: {
          const centreAbove = (a + b + c + d) / 4 > 0;
          // idx 5: a and c above. If the centre is above too, a and c join through it.
          if ((idx === 5) === centreAbove) { seg('L', 'T'); seg('B', 'R'); } else { seg('L', 'B'); seg('R', 'T'); }
          break;
        }
        default: break;
      }
    }
  }
  return out;
}
