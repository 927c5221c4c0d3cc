// The figures under the run bar (global error, Jacobians, macro-steps, event points,
// rejected attempts, run time) and the note a failed run adds to its message. The counters
// are the core's RunStats, the same numbers `cosim run` prints in its summary.

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
  /** @param {object} ui the <dd> elements: globalError, jacobians, jacobiansItem, steps, events, rejected, elapsed */
  constructor(ui) {
    this.ui = ui;
  }

  /** Every figure set to `text` ('…' while starting, '–' when there is nothing to show). */
  fill(text) {
    const { globalError, steps, events, rejected, elapsed } = this.ui;
    for (const el of [globalError, steps, events, rejected, elapsed]) el.textContent = text;
    rejected.title = '';
  }

  /** A run is starting. */
  starting() {
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
  }

  /** The worker's 'result' message. */
  finished(msg) {
    this.ui.globalError.textContent = formatError(msg.globalNrmse);
    this.ui.steps.textContent = msg.stepsDone.toLocaleString('en');
    this.counters(msg.stats);
    this.ui.elapsed.textContent = seconds(msg.elapsedMs);
  }

  /** A run that failed after starting: how far it got (the error's `run`). */
  failed(run) {
    this.ui.globalError.textContent = '–';
    this.ui.steps.textContent = stepsText(run.stepsDone, run.totalSteps);
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
