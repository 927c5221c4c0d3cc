// The page's "energy is being created here" signal and the `cosim energy` summary, computed
// from the energy columns the worker streams (docs/methods.md §13.3, §13.8). Pure functions,
// no DOM: the e2e tests and the panel (plots/energy_panel.js) call the same code.
//
// The core defines no threshold on δP (§13.3). The page flags point t_i when the trailing
// mean of δP_left over the last `window` macro-steps is above
//   P* = SHARE · |E0| / (t_stop − t_start),
// the steady power that would create SHARE of the initial energy over the whole run.
// δP_left (the worker's `dP:left`) is δP on an uncorrected run (of which the share μ ≤ 1 is
// real energy error: an upper bound) and, on a corrected run, μ·δP + f_corr·v per bond, the
// power the correction failed to remove (δP itself, taken with the uncorrected force, stays
// large on a corrected run whose energy is flat). The window is a twentieth of the run, so
// an oscillating residual (positive and negative in turn) averages out and only steady
// creation is flagged; nothing is flagged before a full window. Without a reported energy there
// is no scale: a point is flagged when that trailing mean exceeds half the trailing RMS of
// δP_left (steadily positive, whatever its size).

/** Share of the initial energy that, created steadily over the run, is flagged. */
export const SHARE = 0.1;
/** The trailing window is this fraction of the run's macro-steps. */
export const WINDOW_FRACTION = 1 / 20;

/** Trailing window length, in points, for a run of `totalSteps` macro-steps. */
export function windowOf(totalSteps) {
  return Math.max(1, Math.round((totalSteps || 1) * WINDOW_FRACTION));
}

/** P* in W for initial energy `e0` over the run `span` ([start, stop], s); null without a scale. */
export function thresholdOf(e0, span) {
  const length = span ? span[1] - span[0] : NaN;
  if (!(Number.isFinite(e0) && e0 !== 0 && length > 0)) return null;
  return (SHARE * Math.abs(e0)) / length;
}

/**
 * Flags per point (Uint8Array, 1 where energy is being created) for `dpLeft` (the
 * δP_left column, first `n` entries), trailing window `window`, threshold `threshold`
 * (W, or null: the RMS rule). The first point (the start, δP = 0) is never flagged.
 */
export function creationFlags(dpLeft, n, window, threshold) {
  const flags = new Uint8Array(n);
  let sum = 0;
  let squares = 0;
  for (let i = 1; i < n; i++) {
    const v = Number.isFinite(dpLeft[i]) ? dpLeft[i] : 0;
    sum += v;
    squares += v * v;
    if (i > window) {
      const old = Number.isFinite(dpLeft[i - window]) ? dpLeft[i - window] : 0;
      sum -= old;
      squares -= old * old;
    }
    if (i < window) continue;
    const mean = sum / window;
    const limit = threshold ?? 0.5 * Math.sqrt(Math.max(0, squares) / window);
    flags[i] = mean > limit && mean > 0 ? 1 : 0;
  }
  return flags;
}

/** The flagged stretches as [t_from, t_to] pairs (for the shading and the summary). */
export function flaggedSpans(time, flags, n) {
  const spans = [];
  let from = null;
  for (let i = 0; i < n; i++) {
    if (flags[i] && from === null) from = i > 0 ? time[i - 1] : time[i];
    if (!flags[i] && from !== null) { spans.push([from, time[i - 1]]); from = null; }
  }
  if (from !== null && n > 0) spans.push([from, time[n - 1]]);
  return spans;
}

/**
 * `cosim energy`'s figures from the first `n` rows: mean δP over the steps, δE(T), E0,
 * E(T), E_ref(T) (NaN where absent). The worker's final summary (the core's) replaces it
 * when the run ends; this is the live view.
 */
export function liveSummary(columns, n) {
  const dp = columns.dP;
  const last = n - 1;
  let sum = 0;
  for (let i = 1; i < n; i++) sum += dp[i];
  const at = (c, i) => (c && i >= 0 ? c[i] : NaN);
  return {
    meanDp: n > 1 ? sum / (n - 1) : 0,
    deEnd: at(columns.dE, last),
    e0: at(columns.E, 0),
    eEnd: at(columns.E, last),
    eRefEnd: at(columns['E:reference'], last),
  };
}

/** The summary the worker sends (`[mean dP, dE(T), E0, E(T), E_ref(T)]`) as an object. */
export function summaryOf(values) {
  const [meanDp, deEnd, e0, eEnd, eRefEnd] = Array.from(values ?? [], Number);
  return { meanDp, deEnd, e0, eEnd, eRefEnd };
}

function num(v, digits = 4) {
  if (!Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e5) ? v.toExponential(digits - 1) : String(+v.toPrecision(digits));
}

/** The summary line: `mean δP = … W · δE(T) = … J · E(T)/E0 = … · E_ref(T)/E0 = …`. */
export function summaryText(s) {
  const parts = [`mean δP = ${num(s.meanDp)} W`, `δE(T) = ${num(s.deEnd)} J`];
  if (Number.isFinite(s.e0) && s.e0 !== 0) {
    parts.push(`E(T)/E0 = ${num(s.eEnd / s.e0, 5)}`);
    if (Number.isFinite(s.eRefEnd)) parts.push(`E_ref(T)/E0 = ${num(s.eRefEnd / s.e0, 5)}`);
  }
  return parts.join(' · ');
}

/** What the signal line says about the flagged stretches. */
export function signalText(spans, threshold, corrected) {
  const what = corrected ? 'the power the correction left (μ·δP + f_corr·v)' : 'δP';
  const rule = threshold === null ? `its mean above half its RMS` : `its mean above ${num(threshold, 3)} W`;
  if (!spans.length) return `No energy creation flagged (${what} over a trailing window: ${rule}).`;
  const total = spans.reduce((a, [x, y]) => a + (y - x), 0);
  return `Energy is being created from t = ${num(spans[0][0], 4)} s (${num(total, 3)} s flagged in all): `
    + `${what} over a trailing window has ${rule}.`;
}
