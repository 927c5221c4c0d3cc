// String and Binary outputs of binary modules (FMI 3.0): not numbers, so not charted.
// Shown under the charts as a table of value changes over time (time, output, value; a
// Binary value in hex), one row per change, in time order. The CSV has one column each.

/** Rows of the table: every change of every text output, by time then output order. */
export function changeRows(texts) {
  const rows = [];
  texts.forEach((t, k) => {
    for (const [time, value] of t.changes) rows.push({ time, name: t.name, binary: !!t.binary, value, k });
  });
  return rows.sort((a, b) => a.time - b.time || a.k - b.k);
}

/** Most rows drawn; the rest are counted (the CSV has all of them). */
export const MAX_ROWS = 500;

export class TextOutputsPanel {
  /** @param {HTMLElement} section the (hidden) section under the charts */
  constructor(section) {
    this.section = section;
  }

  clear() {
    this.section.hidden = true;
    this.section.replaceChildren();
  }

  /** Shows `texts` ([{name, binary, changes: [[time, value]]}]); hides the section when empty. */
  show(texts) {
    this.clear();
    if (!Array.isArray(texts) || texts.length === 0) return;
    const heading = document.createElement('h3');
    heading.id = 'text-outputs-heading';
    heading.textContent = 'String and Binary outputs (value changes)';
    this.section.setAttribute('aria-labelledby', heading.id);
    const table = document.createElement('table');
    table.className = 'text-outputs-table';
    const head = table.createTHead().insertRow();
    for (const label of ['t (s)', 'output', 'value']) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = label;
      head.append(th);
    }
    const body = table.createTBody();
    const rows = changeRows(texts);
    for (const r of rows.slice(0, MAX_ROWS)) {
      const tr = body.insertRow();
      tr.dataset.output = r.name;
      tr.insertCell().textContent = String(r.time);
      tr.insertCell().textContent = r.binary ? `${r.name} (Binary, hex)` : r.name;
      const cell = tr.insertCell();
      cell.className = r.binary ? 'hex' : 'text';
      // textContent: the module's strings are never parsed as HTML.
      cell.textContent = r.value;
    }
    this.section.append(heading, table);
    if (rows.length > MAX_ROWS) {
      const note = document.createElement('p');
      note.className = 'hint';
      note.textContent = `${rows.length - MAX_ROWS} more changes are in the CSV.`;
      this.section.append(note);
    }
    this.section.hidden = false;
  }
}
