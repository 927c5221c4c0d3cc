// Opening scenario files: a file picker and drag-and-drop anywhere on the page. The text
// goes to the same path as "Apply JSON" (the core validates it, errors name the field,
// and the text stays in the JSON view); nothing here interprets the scenario. A dropped
// or picked `.fmu` (binary module) is handed over as bytes instead (see fmu_upload.js), and
// so is an `.ssp` (an SSP system, which the core turns into a scenario of binary modules).

/** Larger files are refused before reading (the core's limit is 4 MiB too). */
const MAX_FILE_BYTES = 4 << 20;

/**
 * @param {object} o {button, input (type=file), overlay (shown while dragging),
 *   onText(text, fileName), onError(message), fmuButton, fmuInput, onFmu(bytes, fileName),
 *   onSsp(bytes, fileName)}
 */
export function initFileOpen({ button, input, overlay, onText, onError, fmuButton, fmuInput, onFmu, onSsp }) {
  async function open(file) {
    if (!file) return;
    const ssp = /\.ssp$/i.test(file.name);
    if (ssp || /\.fmu$/i.test(file.name)) {
      // base64 grows the archive by 4/3 and the scenario must stay under the core's limit.
      const max = Math.floor((MAX_FILE_BYTES * 3) / 4) - 4096;
      if (file.size > max) {
        onError(`${file.name}: the file is ${file.size.toLocaleString('en')} bytes; ${ssp ? 'an .ssp' : 'a .fmu'} in a scenario is at most ${max.toLocaleString('en')}`);
        return;
      }
      try {
        (ssp ? onSsp : onFmu)(new Uint8Array(await file.arrayBuffer()), file.name);
      } catch (e) {
        onError(`${file.name}: cannot read the file (${e.message})`);
      }
      return;
    }
    if (file.size > MAX_FILE_BYTES) {
      onError(`${file.name}: the file is ${file.size.toLocaleString('en')} bytes; scenarios are at most ${MAX_FILE_BYTES.toLocaleString('en')}`);
      return;
    }
    try {
      onText(await file.text(), file.name);
    } catch (e) {
      onError(`${file.name}: cannot read the file (${e.message})`);
    }
  }
  button.addEventListener('click', () => input.click());
  input.addEventListener('change', () => { open(input.files?.[0]); input.value = ''; });
  fmuButton.addEventListener('click', () => fmuInput.click());
  fmuInput.addEventListener('change', () => { open(fmuInput.files?.[0]); fmuInput.value = ''; });

  // Counting enter/leave pairs keeps the overlay steady while the pointer crosses children.
  let depth = 0;
  const hasFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes('Files');
  window.addEventListener('dragenter', (e) => { if (!hasFiles(e)) return; e.preventDefault(); depth += 1; overlay.hidden = false; });
  window.addEventListener('dragover', (e) => { if (hasFiles(e)) e.preventDefault(); });
  window.addEventListener('dragleave', () => { depth = Math.max(0, depth - 1); if (!depth) overlay.hidden = true; });
  window.addEventListener('drop', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth = 0;
    overlay.hidden = true;
    open(e.dataTransfer.files?.[0]);
  });
}
