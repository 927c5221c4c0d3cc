// Compare runs: "Pin this run" keeps the finished run; pinned runs are drawn over every
// chart (plots/pin_styles.js) and listed in a table with their global error, macro-steps,
// rejected attempts and run time. Pins live in the store, are saved to localStorage, are
// exported as one CSV, and travel in a shared link as scenario `variants`.

import { MAX_PINS, applyPatch, runKey, loadPins, mergePatch, pinFromResult, pinLabels, pinsCsv, savePins } from './pins.js';
import { pinStyle } from './plots/pin_styles.js';
import { currentTheme, onThemeChange } from './theme.js';
import { downloadBlob } from './plots/export.js';

const $ = (id) => document.getElementById(id);

export function bindPins(page) {
  const { store } = page;
  const ui = {
    pin: $('pin-run'), csv: $('pins-csv'), clear: $('pins-clear'), note: $('pins-note'),
    table: $('pins-table'), body: $('pins-table').querySelector('tbody'),
  };
  let nextId = 1 + Math.max(0, ...loadPins().map((p) => p.id | 0));
  let lastDrawn = null;

  const setPins = (pins, meta) => {
    const stored = savePins(pins);
    store.set({ pins }, meta);
    ui.note.textContent = stored ? '' : 'Pins are kept until the page closes (the browser refused to store them).';
  };

  function render(s) {
    const labels = pinLabels(s.pins.map((p) => p.scenario));
    // The last run is drawn once: as its pin, or as the pin of the same settings.
    const key = s.lastResult?.scenario ? runKey(s.lastResult.scenario) : null;
    const hideCurrent = !!s.lastResult && s.pins.some((p) => p.id === s.lastResult.pinId || (key && runKey(p.scenario) === key));
    // Charts are rebuilt only when what they draw changes (not after every run).
    const drawn = JSON.stringify([s.pins.map((p) => p.id), labels.map((l) => l.label), hideCurrent]);
    if (drawn !== lastDrawn) page.plots.setPins(s.pins.map((p, k) => ({ ...p, label: labels[k].label })), hideCurrent);
    lastDrawn = drawn;
    ui.table.hidden = s.pins.length === 0;
    ui.csv.hidden = s.pins.length === 0;
    ui.clear.hidden = s.pins.length === 0;
    ui.pin.disabled = !s.lastResult || hideCurrent || s.pins.length >= MAX_PINS;
    ui.body.replaceChildren(...s.pins.map((p, k) => row(p, k, labels[k])));
  }

  function row(p, k, label) {
    const tr = document.createElement('tr');
    tr.dataset.pin = String(p.id);
    const cell = (text, cls) => { const td = document.createElement('td'); td.textContent = text; if (cls) td.className = cls; tr.append(td); return td; };
    const name = cell('');
    const swatch = document.createElement('span');
    const style = pinStyle(k, currentTheme());
    swatch.className = 'pin-swatch';
    swatch.style.borderTopStyle = style.dash.length ? (style.dash[0] <= 3 ? 'dotted' : 'dashed') : 'solid';
    swatch.style.borderTopColor = style.color;
    swatch.setAttribute('aria-hidden', 'true');
    name.append(swatch, label.label);
    cell(k === 0 ? '–' : (label.changes || 'nothing'));
    const e = cell(typeof p.globalNrmse === 'number' ? p.globalNrmse.toExponential(3) : 'no reference', 'num');
    e.dataset.value = String(p.globalNrmse);
    cell(String(p.macroSteps), 'num');
    cell(String(p.rejected), 'num');
    cell(typeof p.elapsedMs === 'number' ? `${Math.round(p.elapsedMs)} ms` : '–', 'num');
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'small';
    remove.textContent = 'Remove';
    remove.setAttribute('aria-label', `Remove pinned run ${label.label}`);
    remove.addEventListener('click', () => setPins(store.state.pins.filter((q) => q.id !== p.id)));
    const td = document.createElement('td');
    td.append(remove);
    tr.append(td);
    return tr;
  }

  /** Pins the store's last run (the one the charts show). */
  function pinLast(label) {
    const s = store.state;
    if (!s.lastResult || s.pins.length >= MAX_PINS || s.pins.some((p) => p.id === s.lastResult.pinId)) return null;
    const pin = pinFromResult(s.lastResult, nextId++);
    if (label) pin.variantLabel = label;
    s.lastResult.pinId = pin.id;
    setPins([...s.pins, pin]);
    return pin;
  }
  page.pinLast = pinLast;

  ui.pin.addEventListener('click', () => { pinLast(); ui.pin.blur(); ui.csv.hidden || ui.csv.focus(); });
  ui.clear.addEventListener('click', () => setPins([]));
  ui.csv.addEventListener('click', () => downloadBlob(new Blob([pinsCsv(store.state.pins)], { type: 'text/csv' }), 'pinned-runs.csv'));
  store.on(['pins', 'lastResult'], render);
  onThemeChange(() => { lastDrawn = null; render(store.state); });

  /** The scenario for a link: with the pins as `variants` (merge patches of it). */
  page.linkText = () => {
    const s = store.state;
    if (s.jsonDirty) return page.ui.json.value;
    const base = { ...s.scenario };
    delete base.variants;
    if (!s.pins.length) return JSON.stringify(base);
    const labels = pinLabels(s.pins.map((p) => p.scenario));
    base.variants = s.pins.map((p, k) => ({ label: labels[k].label, patch: mergePatch(base, p.scenario) ?? {} }));
    return JSON.stringify(base);
  };

  /**
   * A link with variants: takes them out of the scenario, runs each and pins it, then
   * runs the scenario itself. Resolves when all are done.
   */
  page.runVariants = async (scenario) => {
    const variants = Array.isArray(scenario.variants) ? scenario.variants : [];
    delete scenario.variants;
    page.writeJson();
    if (!variants.length) return false;
    setPins([]);
    for (const v of variants.slice(0, MAX_PINS)) {
      const outcome = await page.runAndWait({ scenario: applyPatch(scenario, v.patch ?? {}) });
      if (outcome === 'done') pinLast(v.label);
    }
    await page.runAndWait({});
    return true;
  };

  setPins(loadPins(), { from: 'storage' });
}
