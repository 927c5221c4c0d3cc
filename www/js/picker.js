// The preset picker: presets grouped by topic (<optgroup>, in the order the core lists
// them), plus a disabled entry that stands for a scenario that is not a preset (opened
// from a link or a file, or written in the JSON view).

/** Fills `select` with the presets; `customValue` is the value of the custom entry. */
export function fillPicker(select, presets, customValue) {
  const groups = new Map();
  for (const p of presets) {
    const topic = p.topic || 'Other';
    if (!groups.has(topic)) groups.set(topic, []);
    const o = document.createElement('option');
    o.value = p.id;
    o.textContent = p.title || p.id;
    groups.get(topic).push(o);
  }
  const custom = document.createElement('option');
  custom.value = customValue;
  custom.textContent = 'Custom scenario (link, file or JSON)';
  custom.disabled = true;
  select.replaceChildren(...[...groups].map(([topic, options]) => {
    const g = document.createElement('optgroup');
    g.label = topic;
    g.append(...options);
    return g;
  }), custom);
}

/** The id of the preset whose scenario equals `scenario` exactly, or null. */
export function presetMatching(presets, scenario) {
  const text = JSON.stringify(scenario);
  return presets.find((p) => JSON.stringify(JSON.parse(p.scenario)) === text)?.id ?? null;
}
