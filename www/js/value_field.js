// A form field for a binary module's parameter that is not a number (FMI 3.0 Boolean,
// String, Binary, an array, an integer beyond 2^53): the value as JSON text (`true`,
// `[1, 2, 3]`) or plain text for a string. The core checks the type and names the path.

/** Text shown for `value`: strings as they are, everything else as JSON. */
export function valueText(value) {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The value of `text`: JSON when it parses to a boolean, number or array, else the text. */
export function parseValue(text) {
  const t = text.trim();
  try {
    const v = JSON.parse(t);
    if (typeof v === 'boolean' || typeof v === 'number' || Array.isArray(v)) return v;
  } catch { /* plain text */ }
  return text;
}

/** A labelled text input for `value` that calls `set(parsed)` and `onChange()` on input. */
export function valueField({ id, label, path, value, hint, set, onChange }) {
  const field = document.createElement('div');
  field.className = 'field';
  const labelEl = document.createElement('label');
  labelEl.htmlFor = id;
  labelEl.textContent = label;
  const input = document.createElement('input');
  Object.assign(input, { id, type: 'text', autocomplete: 'off', spellcheck: false, value: valueText(value) });
  input.dataset.path = path;
  input.addEventListener('input', () => { set(parseValue(input.value)); onChange(); });
  field.append(labelEl, input);
  if (hint) {
    const hintEl = document.createElement('small');
    Object.assign(hintEl, { id: `${id}-hint`, className: 'hint', textContent: hint });
    input.setAttribute('aria-describedby', hintEl.id);
    field.append(hintEl);
  }
  return field;
}
