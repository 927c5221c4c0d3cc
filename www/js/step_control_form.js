// Form controls for how the macro-step is chosen (master.step_control): fixed ΔT, the
// defect-controlled Jacobi of seed 003 (master.defects + {method: 'defect', tol}) or the
// error-controlled steps of seed 002 ({method: 'error', estimator, rtol, ..., monitor, and
// with the implicit scheme corrector.newton}). They edit
// the scenario object as the other fields do. Switching the method keeps what the person
// typed for the other methods (a stash per method, kept while the scenario stays loaded),
// so switching back restores it.

/** Methods offered in the "Macro-step" choice. */
export const STEP_METHODS = [
  ['fixed', 'Fixed ΔT'],
  ['defect', 'Defect-controlled (no rollback)'],
  ['error', 'Error-controlled (rollback)'],
];
const ORDERS = [0, 1, 2].map((k) => [k, String(k)]);
const MONITORED = [['both', 'Output and connection defects'], ['output', 'Output defects'], ['connection', 'Connection defects']];
const INITIALISATIONS = [['consistent', 'Consistent derivatives'], ['zero_derivatives', 'Zero derivatives (authors’ code)']];
const ESTIMATORS = [
  ['ex_local', 'ExLocal (explicit)'], ['ex_milne', 'ExMilne (explicit)'], ['ex_s_local', 'ExSLocal (explicit)'],
  ['im_milne', 'ImMilne (implicit)'], ['im_s_local', 'ImSLocal (implicit)'],
];
const DEGREES = [0, 1, 2, 3, 4, 5].map((k) => [k, String(k)]);
const MONITORS = [['all_states', 'All states'], ['coupling_bodies', 'Coupling bodies only']];
const NEWTONS = [['simplified', 'Simplified (Jacobian at the predictor)'], ['full', 'Full (Jacobian at every iterate)']];

/** What a method starts from when the person first picks it. */
function defaultsOf(method) {
  if (method === 'defect') {
    return {
      step_control: { method: 'defect', tol: 1e-3 },
      defects: { input_order: 0, output_order: 0, monitored: 'both', initialisation: 'consistent' },
    };
  }
  if (method === 'error') return { step_control: { method: 'error', estimator: 'ex_local', rtol: 1e-4, order: { variable: { k_max: 5 } } } };
  return {};
}

/** The method a master object uses. */
export function stepMethodOf(m) {
  const method = m?.step_control?.method;
  return typeof method === 'string' ? method : 'fixed';
}

const clone = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

/**
 * Moves `m` (the scenario's master object) from its current method to `to`, saving the
 * current method's settings in `stash` and taking `to`'s from there (or the defaults).
 * The defect method needs extrapolation order 0 and the ramp-up start: the values it
 * replaces are kept and come back with the other methods.
 */
export function switchStepMethod(m, to, stash) {
  const from = stepMethodOf(m);
  if (from === to) return;
  if (from === 'defect') stash.defect = { step_control: clone(m.step_control), defects: clone(m.defects) };
  else {
    stash.common = { extrapolation_order: m.extrapolation_order, start_up: m.start_up };
    if (from === 'error') stash.error = { step_control: clone(m.step_control) };
  }
  delete m.step_control;
  delete m.defects;
  const saved = stash[to] ?? defaultsOf(to);
  if (to === 'defect') {
    m.defects = clone(saved.defects);
    m.step_control = clone(saved.step_control);
    m.extrapolation_order = 0;
    m.start_up = 'ramp_up';
  } else {
    if (stash.common) {
      for (const [k, v] of Object.entries(stash.common)) { if (v === undefined) delete m[k]; else m[k] = v; }
    }
    if (to === 'error') m.step_control = clone(saved.step_control);
  }
}

/**
 * The step-control fields for master `m`: a method choice plus the chosen method's fields,
 * built with the editor's field builders. `rerender()` rebuilds the master section (after
 * the method or the order mode changes).
 */
export function stepControlFields(editor, m, stash, rerender) {
  const method = stepMethodOf(m);
  const box = document.createElement('div');
  box.className = 'step-control';
  const grid = document.createElement('div');
  grid.className = 'grid';
  box.append(grid);
  grid.append(editor.selectField({
    label: 'Macro-step', path: 'master.step_control.method', options: STEP_METHODS, value: method,
    set: (v) => { switchStepMethod(m, v, stash); rerender(); },
  }));
  const num = (label, path, obj, key, opts = {}) => editor.numberField({
    label, path, value: obj[key], unit: opts.unit, placeholder: opts.placeholder, hint: opts.hint,
    allowBlank: opts.allowBlank ?? false,
    set: (v) => { if (v === undefined) delete obj[key]; else obj[key] = v; },
  });
  const choice = (label, path, options, obj, key, fallback, toValue = (v) => v) => editor.selectField({
    label, path, options, value: obj[key] ?? fallback, set: (v) => { obj[key] = toValue(v); },
  });
  if (method === 'defect') {
    const sc = m.step_control;
    const d = (m.defects ??= { input_order: 0, output_order: 0 });
    grid.append(
      num('Defect tolerance tol', 'master.step_control.tol', sc, 'tol', { hint: 'Bound on the controlled defect of each step.' }),
      choice('Input order m', 'master.defects.input_order', ORDERS, d, 'input_order', 0, Number),
      choice('Output order n', 'master.defects.output_order', ORDERS, d, 'output_order', 0, Number),
      choice('Monitored defects', 'master.defects.monitored', MONITORED, d, 'monitored', 'both'),
      choice('First step', 'master.defects.initialisation', INITIALISATIONS, d, 'initialisation', 'consistent'),
    );
  } else if (method === 'error') {
    const sc = m.step_control;
    grid.append(
      choice('Error estimator', 'master.step_control.estimator', ESTIMATORS, sc, 'estimator', 'ex_local'),
      num('rtol', 'master.step_control.rtol', sc, 'rtol'),
    );
    if (sc.atol === undefined || typeof sc.atol === 'number') {
      grid.append(num('atol (all groups)', 'master.step_control.atol', sc, 'atol', { allowBlank: true, hint: 'Blank: per group (1e-8 m, 1e-5 m/s, 0.1 for u).' }));
    } else {
      const note = document.createElement('p');
      note.className = 'hint';
      note.dataset.path = 'master.step_control.atol';
      note.textContent = 'atol per group or component: edit it in the JSON view.';
      grid.append(note);
    }
    grid.append(
      num('rtol of u', 'master.step_control.rtol_u', sc, 'rtol_u', { allowBlank: true, hint: 'Blank: rtol.' }),
      num('Safety factor', 'master.step_control.safety_factor', sc, 'safety_factor', { allowBlank: true, placeholder: 6 }),
      num('r_min', 'master.step_control.r_min', sc, 'r_min', { allowBlank: true, placeholder: 0.5 }),
      num('r_max', 'master.step_control.r_max', sc, 'r_max', { allowBlank: true, placeholder: 2 }),
      num('H_min', 'master.step_control.h_min', sc, 'h_min', { unit: 's', allowBlank: true, placeholder: 1e-12 }),
      num('H_max', 'master.step_control.h_max', sc, 'h_max', { unit: 's', allowBlank: true, hint: 'Blank: no limit.' }),
    );
    grid.append(...orderFields(editor, sc, stash, rerender));
    // Which states the state estimators compare (ExLocal, ExMilne, ImMilne; the core names
    // this field when it is set with a coupling-variable estimator).
    grid.append(choice('Monitored states', 'master.step_control.monitor', MONITORS, sc, 'monitor', 'all_states'));
    // The corrector exists only in the implicit scheme (a corrector object is refused otherwise).
    if (m.algorithm === 'implicit') {
      grid.append(editor.selectField({
        label: 'Corrector Newton', path: 'master.step_control.corrector.newton', options: NEWTONS,
        value: sc.corrector?.newton ?? 'simplified', set: (v) => { (sc.corrector ??= {}).newton = v; },
      }));
    }
  }
  return box;
}

/** Degree k fixed, or variable up to k_max; the other mode's value is kept in `stash`. */
function orderFields(editor, sc, stash, rerender) {
  const order = sc.order ?? { variable: { k_max: 5 } };
  const mode = 'fixed' in order ? 'fixed' : 'variable';
  const mode$ = editor.selectField({
    label: 'Degree k', path: 'master.step_control.order', value: mode,
    options: [['variable', 'Variable (order control)'], ['fixed', 'Fixed']],
    set: (v) => {
      stash.order = { ...stash.order, [mode]: clone(sc.order ?? order) };
      sc.order = clone(stash.order?.[v]) ?? (v === 'fixed' ? { fixed: 2 } : { variable: { k_max: 5 } });
      rerender();
    },
  });
  const value = mode === 'fixed'
    ? editor.selectField({ label: 'k', path: 'master.step_control.order.fixed', options: DEGREES, value: order.fixed ?? 2,
      set: (v) => { sc.order = { fixed: Number(v) }; } })
    : editor.selectField({ label: 'k_max', path: 'master.step_control.order.variable.k_max', options: DEGREES,
      value: order.variable?.k_max ?? 5, set: (v) => { sc.order = { variable: { k_max: Number(v) } }; } });
  return [mode$, value];
}
