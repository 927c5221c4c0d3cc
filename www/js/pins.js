// Pinned runs: a finished run kept for comparison. Holds the data a pin needs (time,
// each output's co-simulation and reference, the summary numbers, the scenario it ran),
// names what differs between pins ("order 0 -> 1, ΔT 1e-4 -> 3.16e-4"), stores the pins
// in localStorage so they survive a reload, and writes them as one CSV.

export const PIN_STORAGE_KEY = 'cosim-pins';
/** As many pins as there are distinct styles (plots/pin_styles.js). */
export const MAX_PINS = 6;

/** Scenario fields that do not change a run's numbers (or are shown elsewhere). */
const IGNORED = new Set(['title', 'description', 'plot', 'analysis', 'layout', 'variants', 'schema_version']);

/** Short names of the fields a teacher changes most. */
const SHORT = {
  'master.macro_step': 'ΔT', 'master.extrapolation_order': 'order', 'master.correction': 'correction',
  'master.algorithm': 'scheme', 'run.stop': 'stop', 'run.start': 'start',
};

/** A number in at most three significant digits (1e-4, 3.16e-4, 200000 -> 2e5). */
export function shortNumber(v) {
  if (typeof v !== 'number') return String(v);
  if (v === 0) return '0';
  const a = Math.abs(v);
  const p = Number(v.toPrecision(3));
  return a < 1e-2 || a >= 1e4 ? p.toExponential().replace('e+', 'e') : String(p);
}

/** Scenario -> Map(field path -> display value), module parameters named by module. */
export function settingsOf(scenario) {
  const out = new Map();
  const walk = (v, path, name) => {
    if (path === 'master.correction') {
      out.set(path, v && typeof v === 'object' ? `α ${shortNumber(v.alpha ?? 1)}` : 'off');
    } else if (Array.isArray(v) && v.every((x) => typeof x !== 'object')) {
      out.set(path, { name, text: v.join(', ') });
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (!path && IGNORED.has(k)) continue;
        const p = Array.isArray(v) ? `${path}[${k}]` : path ? `${path}.${k}` : k;
        // modules[1].parameters.ck is shown as mass2.ck.
        const modName = path === 'modules' ? x?.name : null;
        const n = modName ? modName : name && !Array.isArray(v) ? `${name}.${k}` : (SHORT[p] ?? p);
        walk(x, p, k === 'parameters' && name ? name : n);
      }
      return;
    } else {
      out.set(path, { name, text: typeof v === 'number' ? shortNumber(v) : String(v) });
    }
  };
  walk(scenario, '', '');
  // Normalise: every value {name, text}; correction always present.
  const norm = new Map();
  for (const [p, v] of out) norm.set(p, typeof v === 'string' ? { name: SHORT[p] ?? p, text: v } : { name: SHORT[p] ?? v.name ?? p, text: v.text });
  if (!norm.has('master.correction')) norm.set('master.correction', { name: 'correction', text: 'off' });
  return norm;
}

/** Field paths whose values differ between any two of the scenarios, in first-seen order. */
export function differingFields(scenarios) {
  const all = scenarios.map(settingsOf);
  const paths = [...new Set(all.flatMap((m) => [...m.keys()]))];
  return paths.filter((p) => new Set(all.map((m) => m.get(p)?.text ?? '–')).size > 1)
    .map((p) => ({ path: p, name: all.find((m) => m.has(p)).get(p).name }));
}

/**
 * Legend labels: each pin's own values of the fields that differ ("#2 order 1"), and
 * what changed from the first pin ("order 0 -> 1").
 */
export function pinLabels(scenarios) {
  const fields = differingFields(scenarios);
  const all = scenarios.map(settingsOf);
  const value = (m, p) => m.get(p)?.text ?? '–';
  return all.map((m, i) => {
    const own = fields.map((f) => `${f.name} ${value(m, f.path)}`).join(', ');
    const changes = fields.filter((f) => value(m, f.path) !== value(all[0], f.path))
      .map((f) => `${f.name} ${value(all[0], f.path)} -> ${value(m, f.path)}`).join(', ');
    return { label: own ? `#${i + 1} ${own}` : `#${i + 1}`, changes };
  });
}

/** JSON with sorted keys, without the presentation fields: equal for runs that compute the same. */
export function runKey(scenario) {
  const canon = (v, top) => {
    if (Array.isArray(v)) return `[${v.map((x) => canon(x, false)).join(',')}]`;
    if (v && typeof v === 'object') {
      return `{${Object.keys(v).filter((k) => !(top && IGNORED.has(k))).sort().map((k) => `${JSON.stringify(k)}:${canon(v[k], false)}`).join(',')}}`;
    }
    return JSON.stringify(v);
  };
  return canon(scenario, true);
}

/** A pin from the store's lastResult (plain arrays, so it can be stored as JSON). */
export function pinFromResult(result, id) {
  return {
    id,
    scenario: result.scenario,
    time: Array.from(result.time),
    signals: result.signals.map((s) => ({
      name: s.name, unit: s.unit, cosim: Array.from(s.cosim), reference: s.reference ? Array.from(s.reference) : null,
      // Integer, boolean, enumeration and clock outputs are drawn as steps after a reload too.
      ...(s.type && s.type !== 'Float64' ? { type: s.type } : {}),
    })),
    globalNrmse: result.globalNrmse ?? null,
    macroSteps: result.stats?.accepted ?? result.stepsDone,
    rejected: result.stats?.rejected ?? 0,
    elapsedMs: result.elapsedMs ?? null,
  };
}

export function loadPins(storage = globalThis.localStorage) {
  try {
    const list = JSON.parse(storage?.getItem(PIN_STORAGE_KEY) ?? '[]');
    return Array.isArray(list) ? list.filter((p) => p && Array.isArray(p.time) && Array.isArray(p.signals)) : [];
  } catch {
    return [];
  }
}

/** Saves the pins; false when the browser refused (no storage, or over its quota). */
export function savePins(pins, storage = globalThis.localStorage) {
  try {
    if (pins.length) storage.setItem(PIN_STORAGE_KEY, JSON.stringify(pins));
    else storage.removeItem(PIN_STORAGE_KEY);
    return true;
  } catch {
    return false;
  }
}

/**
 * All pins as one CSV in long form (pins may have different time grids): pin, label,
 * time, then each output's co-simulation and reference columns (empty where a pin lacks one).
 */
export function pinsCsv(pins) {
  const labels = pinLabels(pins.map((p) => p.scenario));
  const names = [...new Set(pins.flatMap((p) => p.signals.map((s) => s.name)))];
  const withRef = names.filter((n) => pins.some((p) => p.signals.find((s) => s.name === n)?.reference));
  const quote = (t) => (/[",\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t);
  const lines = [['pin', 'label', 'time', ...names, ...withRef.map((n) => `${n}:reference`)].join(',')];
  pins.forEach((p, k) => {
    const cols = names.map((n) => p.signals.find((s) => s.name === n)?.cosim ?? null);
    const refs = withRef.map((n) => p.signals.find((s) => s.name === n)?.reference ?? null);
    p.time.forEach((t, i) => {
      const cell = (c) => (c ? String(c[i]) : '');
      lines.push([k + 1, quote(labels[k].label), String(t), ...cols.map(cell), ...refs.map(cell)].join(','));
    });
  });
  return `${lines.join('\n')}\n`;
}

/** RFC 7396 merge patch turning `base` into `target` (null removes a field). */
export function mergePatch(base, target) {
  if (!target || typeof target !== 'object' || Array.isArray(target) || !base || typeof base !== 'object' || Array.isArray(base)) {
    return JSON.stringify(base) === JSON.stringify(target) ? undefined : target;
  }
  const patch = {};
  for (const k of Object.keys(base)) if (!(k in target)) patch[k] = null;
  for (const [k, v] of Object.entries(target)) {
    const d = k in base ? mergePatch(base[k], v) : v;
    if (d !== undefined) patch[k] = d;
  }
  return Object.keys(patch).length ? patch : undefined;
}

/** Applies an RFC 7396 merge patch (returns a new value). */
export function applyPatch(base, patch) {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out = base && typeof base === 'object' && !Array.isArray(base) ? { ...base } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k]; else out[k] = applyPatch(out[k], v);
  }
  return out;
}
