// Live parameters: any numeric scenario value on a slider. Moving a slider writes the
// value into the scenario (the form and JSON view follow through the store) and re-runs
// at once in the worker; a run still in flight is superseded (the worker cancels it at
// its next chunk and the page drops its replies), so only the last position finishes.
// Ranges that span decades are logarithmic.

import { scenarioEdited } from './scenario_views.js';
import { shortNumber } from './pins.js';

/** Slider positions: enough that one arrow key is a small step. */
const STEPS = 240;

/** The numeric values of a scenario a slider can take: [{path, label, value}]. */
export function numericValues(scenario, catalog) {
  const out = [];
  const m = scenario?.master ?? {};
  if (typeof m.macro_step === 'number') out.push({ path: 'master.macro_step', label: 'ΔT macro-step (s)', value: m.macro_step });
  out.push({ path: 'master.extrapolation_order', label: 'extrapolation order', value: m.extrapolation_order ?? 0, integer: [0, 4] });
  if (m.correction) out.push({ path: 'master.correction.alpha', label: 'correction α', value: m.correction.alpha ?? 1, linear: [0, 2] });
  (scenario?.modules ?? []).forEach((mod, i) => {
    const info = catalog?.get(mod.model);
    const names = new Set([...(info?.parameters ?? []).map((p) => p.name), ...Object.keys(mod.parameters ?? {})]);
    for (const name of names) {
      const p = info?.parameters?.find((q) => q.name === name);
      const value = mod.parameters?.[name] ?? p?.start;
      if (typeof value !== 'number') continue;
      out.push({ path: `modules[${i}].parameters.${name}`, label: `${mod.name}.${name}${p?.unit ? ` (${p.unit})` : ''}`, value });
    }
  });
  return out;
}

/** Reads/writes `modules[1].parameters.ck`-style paths. */
function setPath(obj, path, value) {
  const keys = path.replace(/\[(\d+)\]/g, '.$1').split('.');
  let o = obj;
  for (const k of keys.slice(0, -1)) o = (o[k] ??= {});
  o[keys[keys.length - 1]] = value;
}

/** A slider's scale: position 0..STEPS <-> value. Log over a decade each side of a positive value. */
export function scaleFor(item) {
  if (item.integer) return { min: item.integer[0], max: item.integer[1], step: 1, log: false, toValue: (p) => p, toPos: (v) => v };
  const v = item.value;
  let lo; let hi; let log;
  if (item.linear) [lo, hi, log] = [...item.linear, false];
  else if (v > 0) [lo, hi, log] = [v / 10, v * 10, true];
  else [lo, hi, log] = [v === 0 ? -1 : v * 10, v === 0 ? 1 : v / 10, false];
  const toValue = (p) => (log ? lo * (hi / lo) ** (p / STEPS) : lo + ((hi - lo) * p) / STEPS);
  const toPos = (x) => Math.round(log ? (STEPS * Math.log(x / lo)) / Math.log(hi / lo) : (STEPS * (x - lo)) / (hi - lo));
  return { min: 0, max: STEPS, step: 1, log, lo, hi, toValue, toPos };
}

export class LiveSliders {
  constructor(page, { root, choice, add, list }) {
    this.page = page;
    this.ui = { root, choice, add, list };
    this.sliders = new Map(); // path -> {input, output}
    this.runsStarted = 0;
    add.addEventListener('click', () => this.add(choice.value));
    page.store.on('scenario', (s, meta) => {
      if (meta.from === 'slider') return;
      // Another scenario drops the sliders; undo, redo and the JSON view keep them.
      if (meta.from === 'open') this.clear();
      this.fillChoice();
      this.syncValues();
    });
  }

  fillChoice() {
    const items = numericValues(this.page.store.state.scenario, this.page.editor.catalog);
    this.items = new Map(items.map((it) => [it.path, it]));
    const keep = this.ui.choice.value;
    this.ui.choice.replaceChildren(...items.map((it) => {
      const o = document.createElement('option');
      o.value = it.path;
      o.textContent = it.label;
      return o;
    }));
    if (this.items.has(keep)) this.ui.choice.value = keep;
  }

  clear() {
    this.sliders.clear();
    this.ui.list.replaceChildren();
  }

  /** Puts the value at `path` on a slider (once). */
  add(path) {
    const item = this.items?.get(path);
    if (!item || this.sliders.has(path)) return this.sliders.get(path)?.input.focus();
    const scale = scaleFor(item);
    const id = `slider-${this.sliders.size + 1}`;
    const row = document.createElement('div');
    row.className = 'slider-row';
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = item.label + (scale.log ? ' · log' : '');
    const input = document.createElement('input');
    Object.assign(input, { type: 'range', id, min: scale.min, max: scale.max, step: scale.step });
    input.dataset.path = path;
    input.value = String(scale.toPos(item.value));
    const output = document.createElement('output');
    output.htmlFor = id;
    output.textContent = shortNumber(item.value);
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'small';
    remove.textContent = 'Remove';
    remove.setAttribute('aria-label', `Remove the ${item.label} slider`);
    remove.addEventListener('click', () => { this.sliders.delete(path); row.remove(); });
    input.addEventListener('input', () => this.moved(path, scale.toValue(Number(input.value))));
    row.append(label, input, output, remove);
    this.ui.list.append(row);
    this.sliders.set(path, { input, output, scale, item });
    input.focus();
  }

  /**
   * A slider moved: the value goes into the scenario and a run replaces any in flight.
   * Moves within one frame start one run (the values between could never be drawn).
   */
  moved(path, value) {
    const { store } = this.page;
    const s = this.sliders.get(path);
    s.output.textContent = shortNumber(value);
    setPath(store.state.scenario, path, value);
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      scenarioEdited(store, 'slider');
      this.runsStarted += 1;
      this.page.startRun({ replace: true });
    });
  }

  /** The form or JSON changed a value a slider shows: move the slider there. */
  syncValues() {
    for (const [path, s] of this.sliders) {
      const it = this.items.get(path);
      if (!it) continue;
      s.input.value = String(s.scale.toPos(it.value));
      s.output.textContent = shortNumber(it.value);
    }
  }
}
