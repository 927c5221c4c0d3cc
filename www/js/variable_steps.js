// The page's view of a variable-step run (a step controller in master.step_control): the
// time span and defect tolerance of the scenario as sent, progress and status by the time
// reached (the number of macro-steps is not known in advance), and the macro-steps panel
// fed from the step columns of the worker's result. Fixed-step runs pass through unchanged.

import { MacroStepPanel, STEP_COLUMNS } from './plots/step_panel.js';
import { stepsText, timeText } from './run_summary.js';

/** Start, stop and the defect tolerance of the scenario as sent (null where unknown). */
export function runSpanOf(doc) {
  const num = (v, d) => (typeof v === 'number' && Number.isFinite(v) ? v : d);
  const control = doc?.master?.step_control;
  return {
    start: num(doc?.run?.start, 0),
    stop: num(doc?.run?.stop, null),
    defectTol: control?.method === 'defect' ? num(control.tol, null) : null,
  };
}

export class VariableStepView {
  /** @param {HTMLElement} panel the macro-steps panel's element */
  constructor(panel) {
    this.panel = new MacroStepPanel(panel);
    this.span = null;
    this.variable = false;
  }

  /** A run of scenario `doc` (parsed, or null) is about to start. */
  starting(doc) {
    this.span = runSpanOf(doc);
    this.variable = false;
    this.panel.clear();
  }

  /** The worker's 'started' message. */
  started(msg) {
    this.variable = msg.variableSteps === true;
  }

  /** Fraction of the run done for the progress bar. */
  progressOf(msg) {
    if (this.variable) return typeof msg.progress === 'number' ? msg.progress : 0;
    return msg.totalSteps ? msg.stepsDone / msg.totalSteps : 1;
  }

  /** The status line while running: macro-steps of a known total, or the time reached. */
  status(msg) {
    if (this.variable) return `Running… ${timeText(msg.time ?? this.span?.start ?? 0, this.span?.stop ?? '?')}`;
    return `Running… ${stepsText(msg.stepsDone ?? 0, msg.totalSteps)} macro-steps`;
  }

  /**
   * The worker's 'result', whose step columns (H, k, iterations, error, defect) start at
   * index `first` (after the reference columns): shows the panel; returns the step columns
   * (null for a fixed-step run).
   */
  finished(msg, first) {
    const steps = msg.variableSteps ? msg.columns.slice(first, first + STEP_COLUMNS.length) : [];
    if (steps.length !== STEP_COLUMNS.length) { this.panel.clear(); return null; }
    const span = this.span;
    const range = span?.stop != null ? [span.start, span.stop] : null;
    this.panel.show(msg.columns[0], steps, { defectTol: span?.defectTol ?? null, range });
    return steps;
  }

  /** The step columns by name ({H, k, iterations, error, defect}), or null. */
  static named(steps) {
    return steps ? Object.fromEntries(STEP_COLUMNS.map((c, i) => [c, steps[i]])) : null;
  }

  /** What the panel plots (tests). */
  plotted() {
    return this.panel.plotted();
  }
}
