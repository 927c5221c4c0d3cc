// The figures under the run bar (global error, Jacobians, macro-steps, event points,
// rejected attempts, run time; for a variable-step run the accepted steps, the H range and
// the run-wide RMS defects per port) and the note a failed run adds to its message. The
// counters are the core's RunStats, the same numbers `cosim run` prints in its summary.

/** `t = 0.42 of 1 s`: how far a variable-step run got (its step count is not known ahead). */
export function timeText(time, stop) {
  const t = typeof time === 'number' ? +time.toPrecision(4) : 0;
  return `t = ${t} of ${stop} s`;
}

/** Mean, min and max of the steps in `column` (the H column; 0 or NaN where no step ends), or null. */
export function stepSizeStats(column) {
  let n = 0;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const v of column ?? []) {
    if (!(Number.isFinite(v) && v > 0)) continue;
    n += 1; sum += v; min = Math.min(min, v); max = Math.max(max, v);
  }
  return n ? { mean: sum / n, min, max } : null;
}

/** `1,234 / 5,000`. */
export function stepsText(done, total) {
  return `${done.toLocaleString('en')} / ${total.toLocaleString('en')}`;
}

function formatError(v) {
  return typeof v === 'number' ? v.toExponential(3) : 'no reference';
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(2)} s`;
}

/**
 * What the page says under a failed run's message, by the error's kind (see worker.js);
 * empty when the message says enough. `run` is where the run got to, or null.
 */
export function failureNote(kind, run) {
  if (kind === 'runtime') {
    if (!run || run.stepsDone === 0 || run.time === null) {
      return 'The run failed before its first macro-step.';
    }
    if (run.variableSteps) {
      return `The run stopped at t = ${run.time} s after ${run.stats?.accepted ?? run.stepsDone} accepted macro-steps; `
        + 'the plot shows the result up to there.';
    }
    const of = `${run.stepsDone.toLocaleString('en')} of ${run.totalSteps.toLocaleString('en')}`;
    return `The run stopped at t = ${run.time} s after ${of} macro-steps; `
      + 'the plot shows the result up to there.';
  }
  if (kind === 'capability') {
    return 'These master settings need something a module does not provide: change the settings or the module.';
  }
  return '';
}

export class RunSummary {
  /**
   * @param {object} ui the <dd> elements: globalError, jacobians, jacobiansItem, steps, events,
   *   rejected, elapsed; stepsLabel (its <dt>), stepSize and stepSizeItem, rmsDefects (a table)
   */
  constructor(ui) {
    this.ui = ui;
  }

  /** Every figure set to `text` ('…' while starting, '–' when there is nothing to show). */
  fill(text) {
    const { globalError, steps, events, rejected, elapsed } = this.ui;
    for (const el of [globalError, steps, events, rejected, elapsed]) el.textContent = text;
    rejected.title = '';
    this.ui.stepSize.textContent = text;
  }

  /** Fixed-step figures only (the variable-step items hidden). */
  fixedLayout() {
    this.ui.stepsLabel.textContent = 'Macro-steps';
    this.ui.stepSizeItem.hidden = true;
    this.ui.rmsDefects.hidden = true;
  }

  /** A run is starting. */
  starting() {
    this.fixedLayout();
    this.fill('…');
  }

  /** A run ended without figures (cancelled, or refused before it started). */
  clear() {
    this.fill('–');
  }

  /** The worker's 'started' message: where the corrector's Jacobians come from, if it has any. */
  started(msg) {
    this.ui.jacobiansItem.hidden = !msg.jacobianSource;
    this.ui.jacobians.textContent = msg.jacobianSource ? msg.jacobianSource.replaceAll('_', ' ') : '–';
    this.ui.stepsLabel.textContent = msg.variableSteps ? 'Accepted macro-steps' : 'Macro-steps';
    this.ui.stepSizeItem.hidden = !msg.variableSteps;
  }

  /**
   * The worker's 'result' message; for a variable-step run `hColumn` is its H column
   * (the mean, min and max shown) and msg.rmsDefects fills the defect table.
   */
  finished(msg, hColumn = null) {
    // A chain also reports seed 002's eqn 36 over its coupling-body states.
    const chain = msg.couplingBodyError == null ? '' : `; coupling bodies (eqn 36) ${formatError(msg.couplingBodyError)}`;
    this.ui.globalError.textContent = formatError(msg.globalNrmse) + chain;
    const steps = msg.variableSteps && msg.stats ? msg.stats.accepted : msg.stepsDone;
    this.ui.steps.textContent = steps.toLocaleString('en');
    this.counters(msg.stats);
    this.ui.elapsed.textContent = seconds(msg.elapsedMs);
    const h = msg.variableSteps ? stepSizeStats(hColumn) : null;
    this.ui.stepSize.textContent = h
      ? [h.mean, h.min, h.max].map((v) => v.toExponential(2)).join(', ')
      : '–';
    this.defects(msg.rmsDefects ?? []);
  }

  /** The run-wide RMS defect table: one row per port, hidden when there are none. */
  defects(list) {
    const table = this.ui.rmsDefects;
    const body = table.tBodies[0];
    body.replaceChildren(...list.map(({ name, value }) => {
      const row = document.createElement('tr');
      const port = document.createElement('td');
      port.textContent = name;
      const cell = document.createElement('td');
      cell.textContent = Number.isFinite(value) ? value.toExponential(3) : '–';
      row.append(port, cell);
      return row;
    }));
    table.hidden = list.length === 0;
  }

  /** A run that failed after starting: how far it got (the error's `run`). */
  failed(run) {
    this.ui.globalError.textContent = '–';
    this.ui.steps.textContent = run.variableSteps && run.stats
      ? run.stats.accepted.toLocaleString('en') : stepsText(run.stepsDone, run.totalSteps);
    this.counters(run.stats);
    this.ui.elapsed.textContent = seconds(run.elapsedMs);
  }

  counters(stats) {
    const { events, rejected } = this.ui;
    events.textContent = stats ? stats.events.toLocaleString('en') : '–';
    rejected.textContent = stats ? stats.rejected.toLocaleString('en') : '–';
    rejected.title = stats ? `${stats.modulesRestored.toLocaleString('en')} module states restored` : '';
  }
}
