// The source of an equation module (model "Equations", core/src/models/equations/) as a
// monospace text area in the module's fieldset. The core's errors for it read
// `modules[i].source: line L, column C: ...` (SourceError, 1-based); the line named is
// highlighted in place (a band behind the text, scrolling with it) and quoted under the
// area, and the caret is put at the column.

/** The `model` of equation modules. */
export const EQUATIONS_MODEL = 'Equations';

/** Label + text area (data-path `${base}.source`) + error line; edits call `onChange()`. */
export function equationSourceField(mod, base, onChange) {
  const id = `eq-source-${base.replace(/\W/g, '-')}`;
  const label = document.createElement('label');
  label.htmlFor = id;
  label.textContent = 'Equations';
  const area = document.createElement('textarea');
  area.id = id;
  area.className = 'equation-source';
  area.spellcheck = false;
  area.wrap = 'off'; // one text line per source line, so the highlighted band matches
  area.value = typeof mod.source === 'string' ? mod.source : '';
  area.rows = Math.min(30, Math.max(6, area.value.split('\n').length + 1));
  area.dataset.path = `${base}.source`;
  const note = document.createElement('p');
  note.className = 'equation-error';
  note.hidden = true;
  area.addEventListener('input', () => {
    mod.source = area.value;
    onChange();
  });
  const wrap = document.createElement('div');
  wrap.className = 'field span-all equation-field';
  wrap.append(label, area, note);
  return wrap;
}

/** Highlights the line `message` names in `area` (a field from equationSourceField). */
export function markSourceLine(area, message) {
  const m = /line (\d+), column (\d+)/.exec(message ?? '');
  if (!m || !area?.classList?.contains('equation-source')) return;
  const line = Number(m[1]);
  const column = Number(m[2]);
  const lines = area.value.split('\n');
  if (line < 1 || line > lines.length) return;
  area.dataset.errorLine = String(line);
  area.style.setProperty('--error-line', String(line - 1));
  const note = area.parentElement?.querySelector('.equation-error');
  if (note) {
    note.textContent = `line ${line}: ${lines[line - 1]}`;
    note.hidden = false;
  }
  // The caret at the column, so focusing the field (Show the field) lands on the mistake.
  const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
  const at = Math.min(start + Math.max(0, column - 1), start + lines[line - 1].length);
  area.setSelectionRange(at, at);
}

/** Removes a line highlight set by markSourceLine. */
export function clearSourceLine(area) {
  if (!area?.dataset?.errorLine) return;
  delete area.dataset.errorLine;
  area.style.removeProperty('--error-line');
  const note = area.parentElement?.querySelector('.equation-error');
  if (note) note.hidden = true;
}
