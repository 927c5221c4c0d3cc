// Watchdog of the page's workers. Binary modules run on the browser's own WebAssembly
// engine, which has no instruction budget: an endless loop in an FMI call blocks the
// worker. While the worker owes an answer (a run or a request), every message it posts
// is a heartbeat (a run posts progress every ~30 ms); a worker silent past the deadline
// is terminated, and the failure names the binary modules that may have looped: the
// simulation worker is replaced by run_client.js, a map's workers (analysis/tile_pool.js,
// watched while a request's scenario has binary modules) are all stopped with the map.
// The page itself never blocks.

/** Silence after which a busy worker is replaced, in ms (`window.cosimWatchdogMs` overrides, for tests). */
export const SILENCE_MS = 10_000;

export class Watchdog {
  /** @param {() => void} onSilent called once when a busy worker stays silent too long */
  constructor(onSilent) {
    this.onSilent = onSilent;
    this.timer = 0;
  }

  get deadlineMs() {
    const override = globalThis.cosimWatchdogMs;
    return Number.isFinite(override) && override > 0 ? override : SILENCE_MS;
  }

  /** The worker owes an answer, or just spoke while it does: the deadline starts again. */
  beat() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.timer = 0; this.onSilent(); }, this.deadlineMs);
  }

  /** Nothing owed any more. */
  stop() {
    clearTimeout(this.timer);
    this.timer = 0;
  }

  get armed() {
    return this.timer !== 0;
  }
}

/** The names of the binary modules of a scenario's JSON text ([] if it does not parse). */
export function binaryModuleNames(scenarioText) {
  try {
    const s = JSON.parse(scenarioText);
    return (s.modules ?? []).filter((m) => m?.model === 'Binary').map((m) => String(m.name));
  } catch {
    return [];
  }
}

/** What silenceMessage says happened by default: the run's worker was replaced. */
export const WORKER_REPLACED = 'the simulation worker was stopped and replaced, and nothing else was lost';

/** What the page says when the watchdog stopped a worker; `stopped` says what was stopped. */
export function silenceMessage(names, ms, stopped = WORKER_REPLACED) {
  const seconds = `${Math.round(ms / 100) / 10} s`;
  const what = names.length === 1 ? `module \`${names[0]}\`` : names.length > 1
    ? `one of the binary modules ${names.map((n) => `\`${n}\``).join(', ')}` : 'the simulation';
  return `${what} did not return within ${seconds} (an endless loop in an FMI call?); ${stopped}`;
}
