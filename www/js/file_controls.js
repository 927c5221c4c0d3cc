// Files and links: Copy link, Save JSON, the scenario and CSV downloads, opening a .json
// (button or drop) and adding a .fmu as a module.

import { shareLink } from './share.js';
import { initFileOpen } from './files.js';
import { withBinaryModule } from './fmu_upload.js';
import { downloadBlob } from './plots/export.js';
import { openScenarioText } from './opening.js';
import { setScenario } from './scenario_views.js';

export function bindFileControls(page) {
  const { store, ui, client, messages } = page;
  /** The scenario as the person sees it: the JSON view's text while it holds unapplied edits. */
  const scenarioText = (indent) => (store.state.jsonDirty ? ui.json.value : JSON.stringify(store.state.scenario, null, indent));

  ui.downloadScenario.addEventListener('click', () => {
    const blob = new Blob([JSON.stringify(store.state.scenario, null, 2)], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    ui.downloadScenario.href = url;
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });

  /** The scenario as a .json file named after its preset (or "scenario"). */
  const saveScenario = () => downloadBlob(new Blob([scenarioText(2)], { type: 'application/json' }), `${store.state.presetId ?? 'scenario'}.json`);
  ui.saveFile.addEventListener('click', saveScenario);
  ui.shareDownload.addEventListener('click', saveScenario);

  ui.copyLink.addEventListener('click', async () => {
    const r = await shareLink(client, page.linkText?.() ?? scenarioText(), {
      box: ui.shareBox, note: ui.shareNote, field: ui.shareField, input: ui.shareLink, download: ui.shareDownload,
    });
    if (r.message) messages.show(`No link: ${r.message}`, { source: 'validation' });
  });

  initFileOpen({
    button: ui.openFile, input: ui.fileInput, overlay: ui.dropOverlay,
    onText: (text, name) => {
      if (client.busy) client.cancel();
      if (openScenarioText(page, text, name)) {
        store.set({ address: '' });
        ui.status.textContent = `Opened ${name}. Press Run.`;
      }
    },
    onError: (message) => messages.show(message, { source: 'validation', path: null }),
    fmuButton: ui.addFmu, fmuInput: ui.fmuInput,
    onFmu: (bytes, fileName) => {
      if (client.busy) client.cancel();
      const [next, name] = withBinaryModule(store.state.scenario, bytes, fileName);
      messages.clear();
      store.set({ presetId: null });
      setScenario(store, next);
      // Connections are edited as JSON; validation names what is still unconnected.
      ui.jsonDetails.open = true;
      page.validator.soon();
      ui.status.textContent = `Added module ${name} from ${fileName}: connect it in the JSON view.`;
    },
  });

  // The CSV of the last run: inline with the result, or asked for when it was too long.
  let csvUrl = null;
  const setCsv = (text) => {
    if (csvUrl) URL.revokeObjectURL(csvUrl);
    csvUrl = text == null ? null : URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
    ui.downloadCsv.href = csvUrl ?? '#';
    ui.downloadCsv.hidden = false;
  };
  store.on('lastResult', (s) => { if (s.lastResult) setCsv(s.lastResult.csv); });
  ui.downloadCsv.addEventListener('click', async (e) => {
    const last = store.state.lastResult;
    if (last?.csv != null) return;
    e.preventDefault();
    const reply = await client.request('csv', {});
    if (reply.value == null) return;
    setCsv(reply.value);
    if (last) last.csv = reply.value;
    ui.downloadCsv.click();
  });
}
