// A chain scenario in the page (docs/methods.md §16): the form edits the `chain` object
// (masses, subsystems, seed, damping, watched masses, recorded cuts) instead of a module
// list, and the time response shows the watched masses and the coupling forces. The core
// expands and checks the chain; a chain above the page's limit is refused by the core with
// the CLI command that runs it natively, and that message lands on the masses field.

/** Whether scenario `s` names a chain instead of listing modules. */
export function isChain(s) {
  return !!s && typeof s.chain === 'object' && s.chain !== null;
}

/** `"3000, 6891"` -> [3000, 6891]; blank -> undefined (the generator's default). */
export function parseIndexList(text) {
  const parts = String(text).split(/[\s,;]+/).filter(Boolean);
  if (parts.length === 0) return undefined;
  return parts.map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

/** Cut-force charts at most; more recorded cuts are spread evenly over these. */
export const MAX_FORCE_CHARTS = 8;

/**
 * Charts of a chain run: the watched masses' position and velocity and the recorded cut
 * forces (at most MAX_FORCE_CHARTS, evenly spread). The coupling-body states also recorded
 * (seed 002's eqn 36 is over them) stay in the CSV: a chart each would bury the forces.
 */
export function chainPlotOutputs(signals) {
  const names = signals.map((s) => s.name);
  const masses = names.filter((n) => /\.(x_watch|v_watch)$/.test(n));
  const forces = names.filter((n) => /\.lambda$/.test(n));
  const every = Math.ceil(forces.length / MAX_FORCE_CHARTS);
  return [...masses, ...forces.filter((_, i) => i % every === 0)];
}

/**
 * The chain's fields, built with the editor's field builders (so a core error naming
 * `chain.masses`, `chain.watch[0]`, ... marks its field).
 */
export function chainFieldset(editor, chain) {
  const box = document.createElement('fieldset');
  box.className = 'module chain';
  box.dataset.path = 'chain';
  const legend = document.createElement('legend');
  legend.textContent = 'Mass chain (seed 002, Example 2)';
  const grid = document.createElement('div');
  grid.className = 'grid';
  const params = () => (chain.parameters ??= {});
  const list = (key, v) => { if (v === undefined) delete chain[key]; else chain[key] = v; };
  grid.append(
    editor.numberField({ label: 'Masses n_K', unit: '', path: 'chain.masses', value: chain.masses,
      hint: 'Up to 10,000 in the page; larger chains run natively (cosim run --threads N).',
      set: (v) => { chain.masses = v; } }),
    editor.numberField({ label: 'Subsystems r', unit: '', path: 'chain.subsystems', value: chain.subsystems,
      hint: 'At most 1,000 masses each.', set: (v) => { chain.subsystems = v; } }),
    editor.numberField({ label: 'Seed of the draw', unit: '', path: 'chain.seed', value: chain.seed ?? 1,
      set: (v) => { chain.seed = v; } }),
    editor.numberField({ label: 'Damping d', unit: 'N·s/m', path: 'chain.parameters.d', value: chain.parameters?.d,
      placeholder: 1e4, allowBlank: true,
      set: (v) => { if (v === undefined) delete params().d; else params().d = v; } }),
    editor.textField({ label: 'Watched masses', path: 'chain.watch', value: (chain.watch ?? []).join(', '),
      hint: 'Mass numbers, comma-separated, one per subsystem; plotted as position and velocity.',
      set: (v) => list('watch', parseIndexList(v)) }),
    editor.textField({ label: 'Recorded cuts', path: 'chain.cuts', value: (chain.cuts ?? []).join(', '),
      hint: 'Cut numbers 1 to r − 1; their coupling forces are plotted. Blank: up to 256 spread over the chain.',
      set: (v) => list('cuts', parseIndexList(v)) }),
  );
  box.append(legend, grid);
  return box;
}
