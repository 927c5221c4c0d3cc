// Scenario editor view: builds form fields (master settings, module parameters with units
// from the model catalog, solver, plotted outputs) from a scenario object and writes edits
// back into it. Every input carries `data-path` (the scenario JSON path, e.g.
// `modules[1].parameters.ck`) so errors from the core can point at the field.
// Scenario text is only ever set with textContent or input values, never as HTML.

import { EQUATIONS_MODEL, equationSourceField, markSourceLine, clearSourceLine } from './equation_source.js';
import { stepControlFields, stepMethodOf } from './step_control_form.js';
import { chainFieldset, isChain } from './chain_form.js';
import { energyFields } from './energy_form.js';
import { valueField } from './value_field.js';
import { typedParameterField } from './typed_field.js';

const ALGORITHMS = [['jacobi', 'Jacobi (parallel)'], ['gauss_seidel', 'Gauss-Seidel']];
const START_UPS = [['ramp_up', 'Ramp up'], ['exact_history', 'Exact history']];
const SOLVER_LABELS = { default: 'Model default', exact: 'Exact (linear)', euler: 'Euler, one step per macro-step', rk4: 'RK4, fixed step', dopri45: 'Dormand-Prince 5(4)', bdf: 'BDF, variable order (stiff)' };
const SOLVER_UNITS = { step: 's' };

/** Shortest text that parses back to the same number (exponent form for tiny/huge). */
export function formatNumber(v) {
  if (typeof v !== 'number') return v === undefined || v === null ? '' : String(v);
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e6) ? v.toExponential().replace('e+', 'e') : String(v);
}

/** Parses a number field; `null` for blank, NaN for anything that is not a finite number. */
export function parseNumber(text) {
  const t = text.trim();
  if (t === '') return null;
  const v = Number(t);
  return Number.isFinite(v) ? v : NaN;
}

let uid = 0;
function el(tag, props = {}, children = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'text') e.textContent = v;
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k in e) e[k] = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

function labelText(name, unit) {
  return unit ? `${name} (${unit})` : name;
}

/** Form view of one scenario; calls `onChange()` after every accepted edit. */
export class ScenarioEditor {
  constructor({ masterRoot, modulesRoot, connectionList, plotRoot, onChange }) {
    this.masterRoot = masterRoot;
    this.modulesRoot = modulesRoot;
    this.connectionList = connectionList;
    this.plotRoot = plotRoot;
    this.onChange = onChange;
    this.catalog = new Map();
    this.scenario = null;
    this.outputs = [];        // known output names (from the last run)
    this.invalid = new Map(); // path -> message for fields whose text is not a number
    this.stepStash = {};      // step-control settings of the methods not chosen (step_control_form.js)
  }

  setCatalog(list) {
    this.catalog = new Map((Array.isArray(list) ? list : []).map((m) => [m.id, m]));
  }

  /** Replaces the scenario and rebuilds every field from it. */
  setScenario(scenario) {
    this.scenario = scenario;
    this.invalid.clear();
    this.stepStash = {};
    this.energyStash = undefined;
    this.render();
  }

  /** Output names offered as plot choices (from the signals of the last run). */
  setOutputs(names) {
    this.outputs = names;
    this.renderPlotChoice();
  }

  /** First field error the core cannot see (text that is not a number), or null. */
  firstInvalid() {
    for (const [path, message] of this.invalid) return { path, message };
    return null;
  }

  /**
   * Highlights the field at `path` (or the closest enclosing one); returns it. An equation
   * source also gets the line `message` names highlighted.
   */
  markError(path, message) {
    this.clearMarks();
    const target = this.find(path);
    if (target) {
      target.setAttribute('aria-invalid', 'true');
      target.classList.add('invalid');
      markSourceLine(target, message);
      // Step-control and energy fields show the core's message right under them.
      const folded = target.closest('details.energy-fields');
      if (folded) folded.open = true;
      const field = target.closest('.step-control .field, .energy-fields .field')
        ?? (target.closest('.energy-fields') ? target : null);
      if (field && message) {
        const note = document.createElement('small');
        note.className = 'field-error';
        note.textContent = message;
        field.append(note);
      }
    }
    return target;
  }

  clearMarks() {
    for (const e of document.querySelectorAll('[aria-invalid="true"]')) {
      const path = e.dataset.path;
      if (!this.invalid.has(path)) { e.removeAttribute('aria-invalid'); e.classList.remove('invalid'); }
    }
    for (const e of document.querySelectorAll('textarea.equation-source[data-error-line]')) clearSourceLine(e);
    for (const e of document.querySelectorAll('.field-error')) e.remove();
  }

  /** Element whose data-path is `path` or its longest prefix. */
  find(path) {
    let p = path;
    while (p) {
      const hit = [...document.querySelectorAll('[data-path]')].find((e) => e.dataset.path === p);
      if (hit) return hit;
      const cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
      p = cut > 0 ? p.slice(0, cut) : '';
    }
    return null;
  }

  render() {
    this.renderMaster();
    this.renderModules();
    this.renderConnections();
    this.renderPlotChoice();
  }

  // ----- field builders ---------------------------------------------------------------

  numberField({ label, unit, path, value, placeholder, hint, set, allowBlank = false }) {
    const id = `f${++uid}`;
    const input = el('input', {
      id, type: 'text', inputMode: 'decimal', autocomplete: 'off', spellcheck: false,
      value: formatNumber(value), dataset: { path },
    });
    if (placeholder !== undefined) input.placeholder = formatNumber(placeholder);
    input.addEventListener('input', () => {
      const v = parseNumber(input.value);
      if (v === null && allowBlank) {
        this.invalid.delete(path); set(undefined);
      } else if (v === null || Number.isNaN(v)) {
        this.invalid.set(path, `${path}: expected a finite number${unit ? ` in ${unit}` : ''}, got "${input.value.trim()}"`);
        input.setAttribute('aria-invalid', 'true'); input.classList.add('invalid');
        return;
      } else {
        this.invalid.delete(path); set(v);
      }
      input.removeAttribute('aria-invalid'); input.classList.remove('invalid');
      this.onChange();
    });
    const children = [el('label', { htmlFor: id, text: labelText(label, unit) }), input];
    if (hint) {
      const hintEl = el('small', { id: `${id}-hint`, className: 'hint', text: hint });
      input.setAttribute('aria-describedby', hintEl.id);
      children.push(hintEl);
    }
    return el('div', { className: 'field' }, children);
  }

  selectField({ label, path, options, value, set }) {
    const id = `f${++uid}`;
    const select = el('select', { id, dataset: { path } });
    const values = options.map(([v]) => v);
    for (const [v, text] of options) select.append(el('option', { value: String(v), text }));
    if (!values.includes(value)) select.append(el('option', { value: String(value), text: `${value} (unknown)` }));
    select.value = String(value);
    select.addEventListener('change', () => { set(select.value); this.onChange(); });
    return el('div', { className: 'field' }, [el('label', { htmlFor: id, text: label }), select]);
  }

  textField({ label, path, value, hint, set }) {
    const id = `f${++uid}`;
    const input = el('input', { id, type: 'text', value: value ?? '', autocomplete: 'off', spellcheck: false, dataset: { path } });
    input.addEventListener('input', () => { set(input.value); this.onChange(); });
    const children = [el('label', { htmlFor: id, text: label }), input];
    if (hint) children.push(el('small', { className: 'hint', text: hint }));
    return el('div', { className: 'field' }, children);
  }

  // ----- sections ---------------------------------------------------------------------

  renderMaster() {
    const s = this.scenario;
    const m = (s.master ??= {});
    const r = (s.run ??= {});
    const legend = this.masterRoot.querySelector('legend');
    this.masterRoot.replaceChildren(legend);
    const grid = el('div', { className: 'grid' });
    // The stepping order matters only for Gauss-Seidel.
    const seq = this.textField({
      label: 'Gauss-Seidel order', path: 'master.sequence', value: (m.sequence ?? []).join(', '),
      hint: 'Module names, comma-separated; blank = scenario order.',
      set: (v) => { m.sequence = v.split(',').map((x) => x.trim()).filter(Boolean); },
    });
    seq.hidden = m.algorithm !== 'gauss_seidel';
    const method = stepMethodOf(m);
    // The defect method exchanges Taylor polynomials from a ramp-up start: no extrapolation settings.
    const extrapolation = this.selectField({ label: 'Extrapolation order', path: 'master.extrapolation_order',
      options: [0, 1, 2, 3, 4].map((k) => [k, k === 0 ? '0 (zero-order hold)' : String(k)]),
      value: m.extrapolation_order ?? 0, set: (v) => { m.extrapolation_order = Number(v); } });
    const startUp = this.selectField({ label: 'Start-up', path: 'master.start_up', options: START_UPS, value: m.start_up ?? 'ramp_up',
      set: (v) => { m.start_up = v; } });
    extrapolation.hidden = method === 'defect';
    startUp.hidden = method === 'defect';
    grid.append(
      this.selectField({ label: 'Scheme', path: 'master.algorithm', options: ALGORITHMS, value: m.algorithm ?? 'jacobi',
        set: (v) => { m.algorithm = v; seq.hidden = v !== 'gauss_seidel'; } }),
      this.numberField({ label: method === 'fixed' ? 'Macro-step ΔT' : 'First macro-step H₀', unit: 's', path: 'master.macro_step',
        value: m.macro_step, set: (v) => { m.macro_step = v; } }),
      extrapolation,
      startUp,
      this.numberField({ label: 'Start time', unit: 's', path: 'run.start', value: r.start ?? 0, set: (v) => { r.start = v; } }),
      this.numberField({ label: 'Stop time', unit: 's', path: 'run.stop', value: r.stop, set: (v) => { r.stop = v; } }),
    );
    const refId = `f${++uid}`;
    const ref = el('input', { id: refId, type: 'checkbox', checked: s.reference !== false, dataset: { path: 'reference' } });
    ref.addEventListener('change', () => { s.reference = ref.checked; this.onChange(); });
    const refField = el('div', { className: 'field check' }, [ref, el('label', { htmlFor: refId, text: 'Compute the monolithic reference' })]);
    const stepControl = stepControlFields(this, m, this.stepStash, () => this.renderMaster());
    this.masterRoot.append(grid, seq, stepControl, refField, this.correctionFields(m),
      energyFields(this, s, () => this.renderMaster()));
  }

  /** Model-based correction on/off, and its α when on (the settings are kept while off). */
  correctionFields(m) {
    const id = `f${++uid}`;
    const box = el('input', { id, type: 'checkbox', checked: !!m.correction, dataset: { path: 'master.correction' } });
    box.addEventListener('change', () => {
      if (box.checked) m.correction = this.correctionStash ?? { alpha: 1, jacobians: 'auto' };
      else { this.correctionStash = m.correction; delete m.correction; }
      this.renderMaster();
      this.onChange();
    });
    const wrap = el('div', { className: 'grid correction' }, [
      el('div', { className: 'field check' }, [box, el('label', { htmlFor: id, text: 'Model-based correction' })]),
    ]);
    if (m.correction) {
      wrap.append(this.numberField({ label: 'Correction α', unit: '', path: 'master.correction.alpha', value: m.correction.alpha ?? 1,
        set: (v) => { m.correction.alpha = v; } }));
    }
    return wrap;
  }

  /** The declared parameters of binary modules (modulePorts' `parameters`); redraws on change. */
  setDeclaredParameters(ports) {
    const next = new Map((ports ?? []).filter((p) => p.parameters).map((p) => [p.name, p.parameters]));
    const key = JSON.stringify([...next]);
    // No binary module declares anything: nothing to redraw (a redraw would replace the
    // fields under the user's cursor, and with them what was just typed).
    if (key === (this.declaredKey ?? '[]')) return;
    this.declared = next;
    this.declaredKey = key;
    if (this.scenario) this.renderModules();
  }

  renderModules() {
    const modules = Array.isArray(this.scenario.modules) ? this.scenario.modules : [];
    this.modulesRoot.replaceChildren();
    if (isChain(this.scenario)) this.modulesRoot.append(chainFieldset(this, this.scenario.chain));
    modules.forEach((mod, i) => this.modulesRoot.append(this.moduleFieldset(mod, i)));
  }

  moduleFieldset(mod, i) {
    const base = `modules[${i}]`;
    const info = this.catalog.get(mod.model);
    const fs = el('fieldset', { className: 'group module', dataset: { path: base }, tabIndex: -1 });
    fs.append(el('legend', { text: `Module ${i + 1}: ${mod.name ?? ''}` }));
    if (info?.summary) fs.append(el('p', { className: 'hint', text: info.summary }));
    const head = el('div', { className: 'grid' });
    head.append(this.textField({ label: 'Name', path: `${base}.name`, value: mod.name, set: (v) => { mod.name = v; } }));
    const models = [...this.catalog.keys()].map((id) => [id, id]);
    const model = this.selectField({ label: 'Model', path: `${base}.model`, options: models, value: mod.model ?? '',
      set: (v) => { mod.model = v; this.renderModules(); } });
    model.classList.add('span-all');
    head.append(model);
    fs.append(head);
    if (mod.model === EQUATIONS_MODEL) fs.append(equationSourceField(mod, base, () => this.onChange()));

    const params = (mod.parameters ??= {});
    const grid = el('div', { className: 'grid params' });
    const known = new Set();
    // A binary module's parameters by their declared FMI types (once its archive is read).
    const typed = new Set();
    for (const p of (mod.model === 'Binary' && this.declared?.get(mod.name)) || []) {
      typed.add(p.name);
      grid.append(typedParameterField(p, { id: () => `f${++uid}`, path: `${base}.parameters.${p.name}`, value: params[p.name],
        set: (v) => { params[p.name] = v; }, onChange: () => this.onChange(),
        report: (path, message) => { if (message) this.invalid.set(path, message); else this.invalid.delete(path); } }));
    }
    for (const p of info?.parameters ?? []) {
      known.add(p.name);
      if (params[p.name] !== undefined && typeof params[p.name] !== 'number') continue;
      grid.append(this.numberField({
        label: p.name, unit: p.unit, path: `${base}.parameters.${p.name}`, value: params[p.name] ?? p.start,
        placeholder: p.start, hint: p.description, allowBlank: true,
        set: (v) => { if (v === undefined) delete params[p.name]; else params[p.name] = v; },
      }));
    }
    // Values the catalog does not list (or an unknown model) stay editable as written.
    for (const [name, value] of Object.entries(params)) {
      if (typed.has(name)) continue;
      // A binary module's Boolean, String, Binary or array parameter: edited as text.
      if (typeof value !== 'number') {
        grid.append(valueField({ id: `f${++uid}`, label: name, path: `${base}.parameters.${name}`, value,
          set: (v) => { params[name] = v; }, onChange: () => this.onChange() }));
        continue;
      }
      if (known.has(name)) continue;
      grid.append(this.numberField({
        label: name, unit: '', path: `${base}.parameters.${name}`, value, allowBlank: true,
        hint: info ? 'not a parameter of this model' : undefined,
        set: (v) => { if (v === undefined) delete params[name]; else params[name] = v; },
      }));
    }
    if (grid.childElementCount) fs.append(el('h4', { text: 'Parameters and start values' }), grid);
    fs.append(this.solverFields(mod, base, info));
    return fs;
  }

  solverFields(mod, base, info) {
    const solver = (mod.solver ??= { method: 'default' });
    // The catalog lists the allowed solvers with suggested settings.
    const allowed = info?.solvers?.length ? info.solvers : [{ method: 'default' }];
    const wrap = el('div', { className: 'grid' });
    wrap.append(this.selectField({
      label: 'Solver', path: `${base}.solver.method`,
      options: allowed.map((x) => [x.method, SOLVER_LABELS[x.method] ?? x.method]),
      value: solver.method ?? 'default',
      set: (v) => {
        for (const k of Object.keys(solver)) delete solver[k];
        Object.assign(solver, allowed.find((x) => x.method === v) ?? { method: v });
        this.renderModules();
      },
    }));
    for (const k of Object.keys(solver).filter((x) => x !== 'method')) {
      wrap.append(this.numberField({ label: k, unit: SOLVER_UNITS[k] ?? '', path: `${base}.solver.${k}`, value: solver[k],
        set: (v) => { solver[k] = v; } }));
    }
    return wrap;
  }

  renderConnections() {
    const list = Array.isArray(this.scenario.connections) ? this.scenario.connections : [];
    this.connectionList.replaceChildren(...list.map((c, i) => el('li', { dataset: { path: `connections[${i}]` } }, [
      el('code', { text: String(c?.from ?? '?') }), ' → ', el('code', { text: String(c?.to ?? '?') }),
    ])));
  }

  renderPlotChoice() {
    const s = this.scenario;
    if (!s) return;
    // A chain's plot is its watched masses and recorded cuts (the chain's own fields).
    if (isChain(s)) { this.plotRoot.replaceChildren(el('small', { className: 'hint', text: 'Set by the chain’s watched masses and recorded cuts.' })); return; }
    const chosen = Array.isArray(s.plot) ? s.plot : [];
    const fromConnections = (Array.isArray(s.connections) ? s.connections : []).map((c) => c?.from).filter(Boolean);
    const known = this.outputs.length ? this.outputs : fromConnections;
    // Before the first run the outputs come from the connections: list them in module order.
    const moduleOrder = (Array.isArray(s.modules) ? s.modules : []).map((m) => m?.name);
    const rank = (n) => { const i = moduleOrder.indexOf(n.split('.')[0]); return i < 0 ? moduleOrder.length : i; };
    const names = [...new Set([...known, ...chosen])];
    if (!this.outputs.length) names.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
    this.plotRoot.replaceChildren(...names.map((name) => {
      const id = `f${++uid}`;
      const box = el('input', { id, type: 'checkbox', value: name, checked: chosen.length === 0 || chosen.includes(name) });
      box.addEventListener('change', () => {
        const boxes = [...this.plotRoot.querySelectorAll('input[type=checkbox]')];
        // An empty list means "plot all" in the scenario, so keep at least one box ticked.
        if (!boxes.some((b) => b.checked)) { box.checked = true; return; }
        s.plot = boxes.filter((b) => b.checked).map((b) => b.value);
        this.onChange({ plotOnly: true });
      });
      return el('span', { className: 'check' }, [box, el('label', { htmlFor: id, text: name })]);
    }));
  }
}
