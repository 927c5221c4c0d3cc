// Edits the diagram makes to a scenario (in place): connect, disconnect, delete a module,
// add one, move one. Pure data changes; the core validates the result.

import { EQUATIONS_MODEL } from '../equation_source.js';

/**
 * A new equation module's source: a first-order lag of a position (a sensor with time
 * constant T). Units must match what it is connected to: edit them with the equations.
 */
export const EQUATION_TEMPLATE = `// A first-order lag: y follows the position u with time constant T
parameter T = 0.001 "s"
input u "m"
state x = 0 "m"
der(x) = (u - x)/T
output y "m" = x
`;

/** Connects output `from` to input `to`; an earlier connection into `to` is replaced. */
export function connect(scenario, from, to) {
  const list = (scenario.connections ??= []);
  const i = list.findIndex((c) => c?.to === to);
  if (i >= 0) list[i] = { from, to };
  else list.push({ from, to });
  return i >= 0 ? i : list.length - 1;
}

export function disconnect(scenario, index) {
  scenario.connections.splice(index, 1);
}

/** Removes module `name`, every connection to or from it, and its place in the layout. */
export function deleteModule(scenario, name) {
  scenario.modules = scenario.modules.filter((m) => m.name !== name);
  const touches = (p) => String(p ?? '').split('.')[0] === name;
  scenario.connections = (scenario.connections ?? []).filter((c) => !touches(c?.from) && !touches(c?.to));
  if (Array.isArray(scenario.master?.sequence)) scenario.master.sequence = scenario.master.sequence.filter((n) => n !== name);
  if (Array.isArray(scenario.plot)) scenario.plot = scenario.plot.filter((p) => !touches(p));
  if (scenario.layout) delete scenario.layout[name];
}

/** A name not yet used: `stem`, `stem2`, ... */
export function freshName(scenario, stem) {
  const used = new Set((scenario.modules ?? []).map((m) => m.name));
  if (!used.has(stem)) return stem;
  for (let k = 2; ; k++) if (!used.has(`${stem}${k}`)) return `${stem}${k}`;
}

/** Adds a module of `model` (an equation module gets the template source); returns its name. */
export function addModule(scenario, model) {
  const stem = model === EQUATIONS_MODEL ? 'eq' : model.split('.').pop().toLowerCase().replace(/\W+/g, '');
  const name = freshName(scenario, stem || 'module');
  const mod = { name, model, parameters: {}, solver: { method: 'default' } };
  if (model === EQUATIONS_MODEL) mod.source = EQUATION_TEMPLATE;
  (scenario.modules ??= []).push(mod);
  return name;
}

/** Keeps a block's position (rounded) in the scenario's layout. */
export function moveModule(scenario, name, x, y) {
  (scenario.layout ??= {})[name] = [Math.round(x), Math.round(y)];
}
