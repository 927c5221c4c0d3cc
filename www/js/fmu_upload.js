// Adding a binary module from a local `.fmu` (file picker or drag-and-drop): the archive
// goes into the scenario as the `data:` URL the core reads (core/src/scenario/binary.rs),
// as a new module `{name, model: "Binary", source}`. Its connections are edited in the
// JSON view; the core's validation then names the module's inputs that are still
// unconnected, and which variables exist.

/** The `model` of binary modules (core: scenario::binary::BINARY_MODEL). */
const BINARY_MODEL = 'Binary';

/** `bytes` (Uint8Array) as `data:application/zip;base64,...`. */
export function fmuDataUrl(bytes) {
  let binary = '';
  // String.fromCharCode takes arguments; chunks keep the call under engines' limits.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:application/zip;base64,${btoa(binary)}`;
}

/** A module name from the file name: letters, digits and `_`, not yet used in `scenario`. */
export function moduleName(scenario, fileName) {
  let base = fileName.replace(/\.fmu$/i, '').replace(/[^A-Za-z0-9_]/g, '_').replace(/^(?=[0-9_]|$)/, 'm');
  const used = new Set((Array.isArray(scenario?.modules) ? scenario.modules : []).map((m) => m?.name));
  let name = base;
  for (let k = 2; used.has(name); k++) name = `${base}_${k}`;
  return name;
}

/** A copy of `scenario` with the binary module from `bytes` appended; returns [scenario, name]. */
export function withBinaryModule(scenario, bytes, fileName) {
  const next = structuredClone(scenario ?? {});
  if (!Array.isArray(next.modules)) next.modules = [];
  const name = moduleName(next, fileName);
  next.modules.push({ name, model: BINARY_MODEL, parameters: {}, solver: { method: 'default' }, source: fmuDataUrl(bytes) });
  return [next, name];
}
