// Form controls for seed 001's energy settings (docs/methods.md §13): the power bonds
// (`bonds`: which connection carries the effort and which the flow back), each module's
// own step (`master.module_steps`, multi-rate Jacobi) and the energy correction
// (`master.energy_correction`: μ, ν, the cap as a fraction of the effort and/or an absolute
// value). They edit the scenario object as the other fields do; the core validates, and its
// messages (a bond pairing two efforts, μ outside [0, 1], a cap ≤ 0, steps not in a whole
// ratio) land on these fields by their paths. The section is folded unless the scenario
// uses one of them.

/** Whether scenario `s` uses any energy setting. */
export function usesEnergy(s) {
  const m = s?.master ?? {};
  return (Array.isArray(s?.bonds) && s.bonds.length > 0) || !!m.energy_correction
    || (m.module_steps && Object.keys(m.module_steps).length > 0);
}

/** The inputs connections feed (`module.input`), the choices of a bond's two ends. */
function connectedInputs(s) {
  const list = Array.isArray(s?.connections) ? s.connections : [];
  return [...new Set(list.map((c) => c?.to).filter((x) => typeof x === 'string'))];
}

function button(text, onClick, label) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'small';
  b.textContent = text;
  if (label) b.setAttribute('aria-label', label);
  b.addEventListener('click', onClick);
  return b;
}

/**
 * The energy section for scenario `s`, built with the editor's field builders.
 * `rerender()` rebuilds the master section (after a bond or the correction is added or removed).
 */
export function energyFields(editor, s, rerender) {
  const m = (s.master ??= {});
  const box = document.createElement('details');
  box.className = 'energy-fields';
  box.open = usesEnergy(s) || editor.energyOpen === true;
  box.addEventListener('toggle', () => { editor.energyOpen = box.open; });
  const summary = document.createElement('summary');
  summary.textContent = 'Energy: power bonds, multi-rate steps, correction';
  box.append(summary);
  box.append(bondFields(editor, s, rerender), moduleStepFields(editor, s, m), correctionFields(editor, m, rerender));
  return box;
}

function bondFields(editor, s, rerender) {
  const wrap = document.createElement('div');
  wrap.className = 'grid bonds';
  wrap.dataset.path = 'bonds';
  wrap.tabIndex = -1;
  const inputs = connectedInputs(s);
  const options = inputs.map((n) => [n, n]);
  const bonds = Array.isArray(s.bonds) ? s.bonds : [];
  bonds.forEach((bond, b) => {
    wrap.append(
      editor.selectField({ label: `Bond ${b + 1}: effort into`, path: `bonds[${b}].effort`, options, value: bond.effort ?? '',
        set: (v) => { bond.effort = v; } }),
      editor.selectField({ label: `Bond ${b + 1}: flow into`, path: `bonds[${b}].flow`, options, value: bond.flow ?? '',
        set: (v) => { bond.flow = v; } }),
    );
    const remove = button('Remove bond', () => {
      bonds.splice(b, 1);
      if (!bonds.length) delete s.bonds;
      rerender();
      editor.onChange();
    }, `Remove bond ${b + 1}`);
    const cell = document.createElement('div');
    cell.className = 'field bond-remove';
    cell.append(remove);
    wrap.append(cell);
  });
  const add = button('Add a power bond', () => {
    // A first guess: the first force-like and the first velocity-like input by name.
    const effort = inputs.find((n) => /\.(F|f\w*|tau|torque|p)$/.test(n)) ?? inputs[0] ?? '';
    const flow = inputs.find((n) => /\.(v\w*|w\w*|omega\w*|q)$/.test(n) && n !== effort) ?? inputs[1] ?? '';
    (s.bonds ??= []).push({ effort, flow });
    rerender();
    editor.onChange();
  });
  const hint = document.createElement('small');
  hint.className = 'hint';
  hint.textContent = 'A bond pairs the input receiving an effort (force, torque, pressure) with the input receiving the flow back (velocity, angular velocity, volume flow).';
  const row = document.createElement('div');
  row.className = 'field span-all';
  row.append(add, hint);
  wrap.append(row);
  return wrap;
}

function moduleStepFields(editor, s, m) {
  const wrap = document.createElement('div');
  wrap.className = 'grid module-steps';
  wrap.dataset.path = 'master.module_steps';
  wrap.tabIndex = -1;
  const modules = Array.isArray(s.modules) ? s.modules : [];
  for (const mod of modules) {
    const name = mod?.name;
    if (typeof name !== 'string' || !name) continue;
    wrap.append(editor.numberField({
      label: `Step of ${name}`, unit: 's', path: `master.module_steps.${name}`, value: m.module_steps?.[name],
      placeholder: m.macro_step, allowBlank: true,
      hint: 'Blank: the macro-step. A whole fraction H/R of it makes the run multi-rate.',
      set: (v) => {
        if (v === undefined) {
          if (m.module_steps) delete m.module_steps[name];
          if (m.module_steps && !Object.keys(m.module_steps).length) delete m.module_steps;
        } else {
          (m.module_steps ??= {})[name] = v;
        }
      },
    }));
  }
  return wrap;
}

function correctionFields(editor, m, rerender) {
  const wrap = document.createElement('div');
  wrap.className = 'grid energy-correction';
  const id = `energy-correction-${Math.random().toString(36).slice(2, 8)}`;
  const check = document.createElement('input');
  check.type = 'checkbox';
  check.id = id;
  check.checked = !!m.energy_correction;
  check.dataset.path = 'master.energy_correction';
  check.addEventListener('change', () => {
    if (check.checked) m.energy_correction = editor.energyStash ?? { nu: 0, cap: { fraction: 1 } };
    else { editor.energyStash = m.energy_correction; delete m.energy_correction; }
    rerender();
    editor.onChange();
  });
  const label = document.createElement('label');
  label.htmlFor = id;
  label.textContent = 'Energy correction';
  const field = document.createElement('div');
  field.className = 'field check span-all';
  field.append(check, label);
  wrap.append(field);
  const c = m.energy_correction;
  if (!c) return wrap;
  const P = 'master.energy_correction';
  const capOf = () => (c.cap ??= {});
  const setCap = (key) => (v) => {
    if (v === undefined) { if (c.cap) delete c.cap[key]; } else capOf()[key] = v;
    if (c.cap && !Object.keys(c.cap).length) delete c.cap;
  };
  wrap.append(
    editor.numberField({ label: 'μ', unit: '', path: `${P}.mu`, value: c.mu, allowBlank: true, placeholder: 'rules',
      hint: 'Share of δE that is real energy error, 0 to 1. Blank: the rules (0.5 single-rate with feedthrough).',
      set: (v) => { if (v === undefined) delete c.mu; else c.mu = v; } }),
    editor.numberField({ label: 'ν', unit: '', path: `${P}.nu`, value: c.nu ?? 0, allowBlank: true, placeholder: 0,
      hint: 'Integral gain on what earlier corrections missed, 0 to 1.',
      set: (v) => { if (v === undefined) delete c.nu; else c.nu = v; } }),
    editor.numberField({ label: 'Cap: fraction of the effort', unit: '', path: `${P}.cap.fraction`, value: c.cap?.fraction,
      allowBlank: true, placeholder: c.cap ? '' : 1, hint: 'e.g. 0.1 for 10 %. Blank with no absolute cap: 100 %.', set: setCap('fraction') }),
    editor.numberField({ label: 'Cap: absolute', unit: 'effort unit', path: `${P}.cap.absolute`, value: c.cap?.absolute,
      allowBlank: true, hint: 'With a fraction too, the larger of the two applies ("10 % or 100 N").', set: setCap('absolute') }),
  );
  return wrap;
}
