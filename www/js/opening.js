// Opening a scenario: a preset, a shared link in the address, or JSON text from a file.
// Each sets the store (scenario, preset, address); the views render from it.

import { readHash } from './share.js';
import { presetMatching } from './picker.js';
import { setScenario } from './scenario_views.js';

export function loadPreset(page, id, { updateHash = true } = {}) {
  const { store } = page;
  const p = store.state.presets.find((x) => x.id === id) ?? store.state.presets[0];
  if (!p) return;
  page.messages.clear();
  store.set({ presetId: p.id }, { from: 'open' });
  setScenario(store, JSON.parse(p.scenario), { edited: false });
  if (updateHash) store.set({ address: `preset=${encodeURIComponent(p.id)}` });
  page.validator.soon();
}

/**
 * Opens scenario JSON text from a link or a file: into the editor when it is an object
 * (the core then validates it and names the field of any problem), otherwise only into
 * the JSON view with the message. Returns true when the form holds the scenario.
 */
export function openScenarioText(page, text, source) {
  const { store, ui } = page;
  ui.json.value = text;
  let parsed = null;
  try { parsed = JSON.parse(text); } catch { /* reported by the core below */ }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    store.state.jsonDirty = true;
    ui.jsonDetails.open = true;
    ui.json.setAttribute('aria-invalid', 'true');
    page.validator.now(text, 'json');
    ui.status.textContent = `${source}: not a scenario (the JSON view shows the text).`;
    return false;
  }
  page.messages.clear();
  store.set({ presetId: presetMatching(store.state.presets, parsed) }, { from: 'open' });
  setScenario(store, parsed, { keepJsonText: true, edited: false });
  store.state.jsonDirty = false;
  ui.json.removeAttribute('aria-invalid');
  page.validator.now(text, 'json');
  return true;
}

/** Opens what the address names (a shared link or a preset) and runs it; false if nothing. */
export async function openFromAddress(page) {
  const { store, ui } = page;
  const want = readHash();
  if (!want) return false;
  if (want.kind === 'preset') {
    if (!store.state.presets.some((p) => p.id === want.id)) {
      page.messages.show(`The address asks for a preset \`${want.id}\`, which this version does not have; showing the default.`, { source: 'run', path: null });
      return false;
    }
    loadPreset(page, want.id, { updateHash: false });
    page.startRun();
    return true;
  }
  ui.status.textContent = 'Opening the shared scenario…';
  const reply = await page.client.request('decodeLink', { link: want.link });
  if (reply.message) {
    page.messages.show(`This link cannot be opened: ${reply.message.replace(/^the link (is|has)\b/, 'it $1')}`, { source: 'run', path: null });
    ui.status.textContent = 'Ready.';
    return false;
  }
  if (openScenarioText(page, reply.value, 'Link')) {
    // A link with pinned variants runs and pins each, then the scenario itself.
    if (!(await page.runVariants(page.store.state.scenario))) page.startRun();
  }
  return true;
}
