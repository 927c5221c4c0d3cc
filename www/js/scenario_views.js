// Views that render the scenario from the store: the heading (title, description,
// "edited" badge, "Try this next"), the preset picker, the raw JSON view, the form and the
// analysis pickers, and the address. Each re-renders only for changes made elsewhere
// (`meta.from`), so the view being typed into keeps its text and focus.

import { setHash } from './share.js';

/** Label of the picker entry for a scenario that is not (or no longer) a preset. */
export const CUSTOM = '';

/**
 * Replaces the scenario. `from`: who changed it ('open', 'json', 'form', 'diagram', ...);
 * `keepJsonText`: the JSON view already shows the text it came from.
 */
export function setScenario(store, scenario, { keepJsonText = false, edited = true, from = 'open' } = {}) {
  store.set({ scenario, edited }, { from, keepJsonText });
}

/**
 * The scenario object was edited in place by `from` (the form, the analysis panel, ...).
 * The analysis settings are not an edit of the system: no "edited" badge for them.
 */
export function scenarioEdited(store, from) {
  if (from !== 'analysis') store.state.edited = true;
  store.touch('scenario', { from, inPlace: true });
}

export function bindScenarioViews(page) {
  const { store, ui, editor, analysis } = page;

  function writeJson() {
    ui.json.value = JSON.stringify(store.state.scenario, null, 2);
    ui.json.removeAttribute('aria-invalid');
    store.state.jsonDirty = false;
  }
  page.writeJson = writeJson;

  store.on(['scenario', 'edited'], (s, meta) => {
    const scenario = s.scenario;
    if (!scenario) return;
    ui.edited.hidden = !s.edited;
    if (meta.from !== 'analysis') {
      // A link shown for an earlier state of the scenario would share the wrong thing.
      ui.shareBox.hidden = true;
      ui.shareLink.value = '';
    }
    if (meta.inPlace) {
      if (!s.jsonDirty) writeJson();
      if (meta.from !== 'form' && meta.from !== 'analysis') editor.setScenario(scenario);
      return;
    }
    editor.setScenario(scenario);
    ui.title.textContent = typeof scenario.title === 'string' ? scenario.title : '';
    ui.description.textContent = typeof scenario.description === 'string' ? scenario.description : '';
    document.title = ui.title.textContent ? `${ui.title.textContent} · Cosim Playground` : 'Cosim Playground';
    showTryNext(s);
    if (!meta.keepJsonText) writeJson();
    // Undo/redo keeps the analysis figure; opening a scenario computes its analysis view.
    analysis.setScenario(scenario, { compute: !meta.keepAnalysis });
  });

  store.on('presetId', (s) => {
    ui.preset.value = s.presetId ?? CUSTOM;
    showTryNext(s);
  });

  store.on('address', (s) => { if (s.address !== null) setHash(s.address); });

  /** "Try this next" of the preset the scenario came from (presets only; links carry none). */
  function showTryNext(s) {
    const p = s.presets.find((x) => x.id === s.presetId);
    ui.tryNext.textContent = p?.tryNext ?? '';
    ui.tryNextBox.hidden = !p?.tryNext;
  }

  ui.json.addEventListener('input', () => { store.state.jsonDirty = true; });
}
