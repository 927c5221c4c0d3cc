// The diagram section: the palette (add a built-in, equation or binary module), undo and
// redo, delete, automatic layout, and the DiagramView, re-rendered from the store whenever
// the scenario or its validation changes. Every diagram edit is one store change (the
// form and JSON view follow) and one undo step (history.js).

import { DiagramView, connectionIndexOf } from './diagram_view.js';
import { addModule } from './edits.js';
import { scenarioEdited } from '../scenario_views.js';
import { EQUATIONS_MODEL } from '../equation_source.js';
import { binarySources, embedBinarySources } from '../external.js';

/**
 * Binary modules whose archive is on the page's own site (the example modules) get their
 * ports too: the archive is fetched once and cached. Other sites are contacted only after
 * the person agrees, when running; until then such a block says it cannot be built.
 */
const archives = new Map(); // address -> Promise of the data: URL
async function withOwnArchives(scenario) {
  const own = binarySources(scenario).filter((b) => new URL(b.address).origin === window.location.origin);
  if (!own.length) return scenario;
  const copy = structuredClone(scenario);
  for (const { index, address } of own) {
    if (!archives.has(address)) {
      archives.set(address, embedBinarySources({ modules: [{ model: 'Binary', source: address }] }).then((d) => d.modules[0].source));
    }
    try { copy.modules[index].source = await archives.get(address); } catch { archives.delete(address); }
  }
  return copy;
}

const $ = (id) => document.getElementById(id);

export function bindDiagram(page, history) {
  const { store } = page;
  const ui = {
    canvas: $('diagram-canvas'), status: $('diagram-status'), model: $('palette-model'), add: $('palette-add'),
    fmu: $('palette-fmu'), undo: $('undo'), redo: $('redo'), remove: $('diagram-delete'), relayout: $('diagram-relayout'),
  };
  const say = (text) => { ui.status.textContent = text; };

  /** One undoable edit of the scenario, then validation. */
  function edit(fn, text) {
    const s = store.state.scenario;
    if (!s) return;
    fn(s);
    scenarioEdited(store, 'diagram');
    page.validator.soon();
    if (text) say(text);
  }

  const view = new DiagramView(ui.canvas, {
    edit,
    status: say,
    openModule: (index) => {
      const target = document.querySelector(`#module-fields [data-path="modules[${index}]"]`);
      if (!target) return;
      target.scrollIntoView({ block: 'center' });
      target.focus();
      say(`Editing module ${index + 1} in the settings.`);
    },
  });

  // Ports come from the core (modules built as a run builds them); the latest request wins.
  let asked = 0;
  let ports = [];
  async function refresh() {
    const s = store.state.scenario;
    if (!s) return;
    const ask = ++asked;
    const reply = await page.client.request('modulePorts', { scenario: JSON.stringify(await withOwnArchives(s)) });
    if (ask !== asked) return;
    if (reply.message) { say(`The diagram cannot be drawn: ${reply.message}`); return; }
    ports = reply.value;
    page.editor.setDeclaredParameters?.(ports);
    draw();
  }
  function draw() {
    const s = store.state.scenario;
    const message = store.state.validation;
    const index = connectionIndexOf(message);
    view.render(s, ports, index === null ? null : { index, message: message.replace(/^connections\[\d+\]\.?\w*: /, '') });
  }
  let timer = 0;
  store.on('scenario', () => { clearTimeout(timer); timer = setTimeout(refresh, 60); });
  store.on('validation', draw);

  function fillPalette() {
    const models = [...page.editor.catalog.keys()].filter((id) => id !== EQUATIONS_MODEL);
    const option = (value, text) => { const o = document.createElement('option'); o.value = value; o.textContent = text; return o; };
    const builtIn = document.createElement('optgroup');
    builtIn.label = 'Built-in models';
    builtIn.append(...models.map((id) => option(id, id)));
    ui.model.replaceChildren(option(EQUATIONS_MODEL, 'Equation module (write its equations)'), builtIn);
  }
  page.onCatalog = fillPalette;

  ui.add.addEventListener('click', () => {
    let name = null;
    edit((s) => { name = addModule(s, ui.model.value); });
    say(`Added module ${name}: connect its ports, then Run.`);
  });
  ui.fmu.addEventListener('click', () => page.ui.addFmu.click());
  ui.remove.addEventListener('click', () => view.deleteSelected());
  ui.relayout.addEventListener('click', () => edit((s) => { delete s.layout; }, 'Blocks placed automatically.'));
  // After undo/redo the core validates the restored scenario (its message may be gone).
  const undo = () => { history.undo(); page.validator.soon(); };
  const redo = () => { history.redo(); page.validator.soon(); };
  ui.undo.addEventListener('click', undo);
  ui.redo.addEventListener('click', redo);
  history.onChange((h) => { ui.undo.disabled = !h.canUndo; ui.redo.disabled = !h.canRedo; });
  // Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y) anywhere but in a text field, which has its own undo.
  document.addEventListener('keydown', (e) => {
    if (!(e.ctrlKey || e.metaKey) || e.target.matches?.('input[type=text], textarea')) return;
    const k = e.key.toLowerCase();
    if (k === 'z' && !e.shiftKey) { e.preventDefault(); undo(); } else if ((k === 'z' && e.shiftKey) || k === 'y') { e.preventDefault(); redo(); }
  });
  return view;
}
