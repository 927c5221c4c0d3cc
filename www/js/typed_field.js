// Form fields for a binary module's parameters by their DECLARED FMI 3.0 type (the core's
// parameter list, fmu/parameter_list.rs): Boolean -> checkbox, Enumeration -> a list of the
// declared items, integers -> whole numbers checked against the type's range (Int64/UInt64
// beyond 2^53 kept exact as a string of digits), String -> text, Binary -> hex text,
// Float32/Float64 -> numbers, arrays -> one field per element. Wrong input is named at the
// field and not written to the scenario.

const big = (bits) => 2n ** BigInt(bits);
/** [min, max] of each integer type, as BigInt. */
export const INTEGER_RANGES = Object.fromEntries([8, 16, 32, 64].flatMap((b) => [
  [`Int${b}`, [-big(b - 1), big(b - 1) - 1n]],
  [`UInt${b}`, [0n, big(b) - 1n]],
]));
const EXACT = 2n ** 53n;

/**
 * The scenario value of `text` for a parameter of FMI type `type`: `{value}` or `{error}`
 * (what the type expects). Integers beyond 2^53 in magnitude stay strings of digits.
 */
export function parseTyped(type, text) {
  const t = String(text).trim();
  if (type === 'String') return { value: String(text) };
  if (type === 'Binary') {
    return /^([0-9a-fA-F]{2})*$/.test(t) ? { value: t.toLowerCase() }
      : { error: 'expects hexadecimal text, two digits a byte (e.g. 0a1b)' };
  }
  if (type === 'Boolean') {
    return t === 'true' || t === 'false' ? { value: t === 'true' } : { error: 'expects true or false' };
  }
  const range = INTEGER_RANGES[type] ?? (type === 'Enumeration' ? INTEGER_RANGES.Int64 : null);
  if (range) {
    const [min, max] = range;
    if (!/^[+-]?\d+$/.test(t)) return { error: `expects a whole number in ${min}..=${max}` };
    const n = BigInt(t);
    if (n < min || n > max) return { error: `expects a whole number in ${min}..=${max}` };
    return { value: n >= -EXACT && n <= EXACT ? Number(n) : n.toString() };
  }
  const x = Number(t);
  return t !== '' && Number.isFinite(x) ? { value: x } : { error: 'expects a finite number' };
}

/** A value as field text (booleans and numbers as written, big integers as their digits). */
function textOf(v) {
  return v === undefined || v === null ? '' : String(v);
}

/** The start value of element `k` of `param` as a scenario value. */
function startOf(param, k) {
  const s = param.start?.[k];
  if (s === undefined) return undefined;
  const parsed = parseTyped(param.type, s);
  return 'value' in parsed ? parsed.value : undefined;
}

/**
 * A field (or a group of element fields for an array) for `param`
 * ({name, type, extents, start, items, description, unit}).
 * @param {object} o {id: () => string, path, value (the scenario's, or undefined),
 *   set(value), report(path, message|null), onChange()}
 */
export function typedParameterField(param, { id, path, value, set, report, onChange }) {
  const count = (param.extents ?? []).reduce((a, n) => a * n, 1);
  const array = (param.extents ?? []).length > 0;
  const current = (k) => (array ? (Array.isArray(value) ? value[k] : undefined) : value) ?? startOf(param, k);
  const write = (k, v) => {
    if (!array) { set(v); return; }
    const all = Array.from({ length: count }, (_, j) => current(j));
    all[k] = v;
    set(all);
  };
  const controls = [];
  for (let k = 0; k < count; k++) {
    const label = array ? `${param.name}[${k + 1}]` : param.name;
    controls.push(control(param, { id: id(), label, path: array ? `${path}[${k}]` : path, value: current(k),
      write: (v) => write(k, v), report, onChange }));
  }
  if (!array) return controls[0];
  const group = document.createElement('div');
  group.className = 'field typed-array span-all';
  group.dataset.path = path;
  const caption = document.createElement('span');
  caption.className = 'typed-array-caption';
  caption.textContent = `${param.name}: ${param.type} array [${param.extents.join('×')}]`;
  group.append(caption, ...controls);
  return group;
}

function control(param, { id, label, path, value, write, report, onChange }) {
  const field = document.createElement('div');
  field.className = 'field';
  field.dataset.type = param.type;
  const labelEl = document.createElement('label');
  labelEl.htmlFor = id;
  labelEl.textContent = param.unit ? `${label} (${param.unit})` : label;
  const error = document.createElement('small');
  error.id = `${id}-error`;
  error.className = 'field-error';
  error.hidden = true;
  let input;
  if (param.type === 'Boolean') {
    input = document.createElement('input');
    input.type = 'checkbox';
    input.checked = value === true || value === 'true';
    input.addEventListener('change', () => { write(input.checked); onChange(); });
    field.classList.add('check');
    field.append(input, labelEl);
  } else if (param.type === 'Enumeration' && param.items?.length) {
    input = document.createElement('select');
    for (const item of param.items) {
      const o = document.createElement('option');
      o.value = String(item.value);
      o.textContent = `${item.name} (${item.value})`;
      input.append(o);
    }
    input.value = textOf(value);
    input.addEventListener('change', () => { write(Number(input.value)); onChange(); });
    field.append(labelEl, input);
  } else {
    input = document.createElement('input');
    input.type = 'text';
    input.autocomplete = 'off';
    input.spellcheck = false;
    if (/Int/.test(param.type)) input.inputMode = 'numeric';
    input.value = textOf(value);
    input.addEventListener('input', () => {
      const parsed = parseTyped(param.type, input.value);
      if ('error' in parsed) {
        const message = `${path}: ${param.type} ${parsed.error}, got "${input.value.trim()}"`;
        error.textContent = message;
        error.hidden = false;
        input.setAttribute('aria-invalid', 'true');
        input.classList.add('invalid');
        report(path, message);
        return;
      }
      error.hidden = true;
      input.removeAttribute('aria-invalid');
      input.classList.remove('invalid');
      report(path, null);
      write(parsed.value);
      onChange();
    });
    field.append(labelEl, input);
  }
  input.id = id;
  input.dataset.path = path;
  input.dataset.type = param.type;
  const hints = [error.id];
  field.append(error);
  if (param.description) {
    const hint = document.createElement('small');
    hint.id = `${id}-hint`;
    hint.className = 'hint';
    hint.textContent = `${param.type}: ${param.description}`;
    field.append(hint);
    hints.push(hint.id);
  }
  input.setAttribute('aria-describedby', hints.join(' '));
  return field;
}
