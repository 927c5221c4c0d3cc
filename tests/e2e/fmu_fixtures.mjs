// Broken `.fmu` archives for the page's binary-module tests, built here in JS so the tests
// need no wasm toolchain: a store-only zip writer (PKWARE APPNOTE 4.3: local headers,
// central directory, end record; CRC-32 with the reflected polynomial 0xEDB88320) and a
// hand-assembled minimal WebAssembly module (binary format, WebAssembly Core 1.0 §5) with
// the FMI 3.0 wasm32 exports core/src/fmu/abi.rs requires. They mirror the WAT of
// core/src/fmu/tests.rs, reduced to what a failing run needs.

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (ISO 3309 / zip) of `bytes`. */
export function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const u16 = (v) => [v & 0xff, (v >>> 8) & 0xff];
const u32 = (v) => [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff];

/** A zip archive holding `entries` ([name, Uint8Array | string]) uncompressed. */
export function zipStored(entries) {
  const enc = new TextEncoder();
  const local = [];
  const central = [];
  let offset = 0;
  for (const [name, content] of entries) {
    const data = typeof content === 'string' ? enc.encode(content) : content;
    const n = enc.encode(name);
    const crc = crc32(data);
    // version 2.0, no flags, method 0 (stored), time/date 0.
    const common = [...u16(20), ...u16(0), ...u16(0), ...u16(0), ...u16(0), ...u32(crc),
      ...u32(data.length), ...u32(data.length), ...u16(n.length), ...u16(0)];
    const header = [...u32(0x04034b50), ...common, ...n];
    local.push(Uint8Array.from(header), data);
    central.push(Uint8Array.from([...u32(0x02014b50), ...u16(20), ...common,
      ...u16(0), ...u16(0), ...u16(0), ...u32(0), ...u32(offset), ...n]));
    offset += header.length + data.length;
  }
  const cdSize = central.reduce((s, c) => s + c.length, 0);
  const end = Uint8Array.from([...u32(0x06054b50), ...u16(0), ...u16(0), ...u16(entries.length),
    ...u16(entries.length), ...u32(cdSize), ...u32(offset), ...u16(0)]);
  const parts = [...local, ...central, end];
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** Unsigned LEB128. */
function uleb(v) {
  const out = [];
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}

const str = (s) => [...uleb(s.length), ...new TextEncoder().encode(s)];
const vec = (items) => [...uleb(items.length), ...items.flat()];
const section = (id, body) => [id, ...uleb(body.length), ...body];

const I32 = 0x7f;
const F64 = 0x7c;
const fn = (params, results) => [0x60, ...vec(params.map((p) => [p])), ...vec(results.map((r) => [r]))];
const TYPES = [
  fn([I32], [I32]), // 0: malloc, exit init, terminate, reset
  fn([I32], []), // 1: free, free instance
  fn(Array(12).fill(I32), [I32]), // 2: instantiate co-simulation
  fn([I32, I32, F64, F64, I32, F64], [I32]), // 3: enter initialization mode
  fn([I32, I32, I32, I32, I32], [I32]), // 4: get/set Float64
  fn([I32, F64, F64, I32, I32, I32, I32, I32], [I32]), // 5: do step
];

const OK = [0x41, 0x00]; // i32.const 0 (fmi3OK)
/** Whether each entry of TYPES returns an i32. */
const TYPES_RESULT = [true, false, true, true, true, true];
/** Bump allocator: p = heap; heap = (heap + n + 15) & -16; return p. */
const MALLOC = [0x23, 0, 0x23, 0, 0x20, 0, 0x6a, 0x41, 15, 0x6a, 0x41, 0x70, 0x71, 0x24, 0];

/** The step bodies of the broken modules (each leaves the i32 status). */
export const STEPS = {
  ok: OK,
  trap: [0x00], // unreachable
  endless: [0x03, 0x40, 0x0c, 0x00, 0x0b, ...OK], // loop (br 0) end
  // drop (memory.grow (i32.const 4096)): 256 MiB more, one page past the default
  // RuntimeLimits::max_memory_bytes; the result (-1 if refused) is ignored.
  grow: [0x41, 0x80, 0x20, 0x40, 0x00, 0x1a, ...OK],
};

/** fmi3InstantiateCoSimulation bodies (each leaves the instance address 64). */
export const INSTANTIATE = {
  ok: [0x41, 0xc0, 0x00], // i32.const 64
  endless: [0x03, 0x40, 0x0c, 0x00, 0x0b, 0x41, 0xc0, 0x00], // loop (br 0) end, i32.const 64
};

/**
 * A minimal FMI 3.0 wasm32 module: every call returns fmi3OK, instance at address 64,
 * fmi3DoStep runs `step` (see STEPS), fmi3InstantiateCoSimulation `instantiate` (see
 * INSTANTIATE); exports named in `omit` are left out; `retype` gives functions another
 * type index (a wrong signature), with a body that fits it.
 */
export function lagWasm({ step = STEPS.ok, instantiate = INSTANTIATE.ok, omit = [], retype = {} } = {}) {
  const funcs = [
    ['malloc', 0, MALLOC],
    ['free', 1, []],
    ['fmi3InstantiateCoSimulation', 2, instantiate],
    ['fmi3EnterInitializationMode', 3, OK],
    ['fmi3ExitInitializationMode', 0, OK],
    ['fmi3SetFloat64', 4, OK],
    ['fmi3GetFloat64', 4, OK],
    ['fmi3DoStep', 5, step],
    ['fmi3Terminate', 0, OK],
    ['fmi3Reset', 0, OK],
    ['fmi3FreeInstance', 1, []],
  ];
  for (const f of funcs) {
    if (f[0] in retype) {
      f[1] = retype[f[0]];
      f[2] = TYPES_RESULT[f[1]] ? OK : []; // keep the body valid for the new type
    }
  }
  const exports = [[...str('memory'), 0x02, 0]];
  funcs.forEach(([name], i) => { if (!omit.includes(name)) exports.push([...str(name), 0x00, ...uleb(i)]); });
  const bodies = funcs.map(([, , code]) => {
    const body = [0x00, ...code, 0x0b]; // no locals, code, end
    return [...uleb(body.length), ...body];
  });
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec(TYPES)),
    ...section(3, vec(funcs.map(([, t]) => [t]))),
    ...section(5, vec([[0x00, 1]])), // one memory, min 1 page
    ...section(6, vec([[I32, 0x01, 0x41, 0x80, 0x08, 0x0b]])), // mut i32 heap = 1024
    ...section(7, vec(exports)),
    ...section(10, vec(bodies)),
  ]);
}

/** The modelDescription.xml of core/src/fmu/tests.rs: its lag with
 * the input left out, so the module runs alone. */
export const LAG_XML = `<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="Lag" instantiationToken="{lag-token}">
  <CoSimulation modelIdentifier="lag" canHandleVariableCommunicationStepSize="true"/>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="x" valueReference="1" causality="output" start="1" initial="exact"/>
    <Float64 name="tau" valueReference="3" causality="parameter" variability="fixed" start="0.5"/>
  </ModelVariables>
  <ModelStructure><Output valueReference="1" dependencies=""/></ModelStructure>
</fmiModelDescription>`;

/**
 * LAG_XML with the lag's input `u` declared, a force in N (an added module then needs a
 * connection, e.g. from a coupling force).
 */
export const LAG_XML_WITH_INPUT = LAG_XML
  .replace('  <ModelVariables>', '  <UnitDefinitions><Unit name="N"/></UnitDefinitions>\n'
    + '  <TypeDefinitions><Float64Type name="Force" unit="N"/></TypeDefinitions>\n  <ModelVariables>')
  .replace('  </ModelVariables>',
    '    <Float64 name="u" valueReference="2" causality="input" start="0" declaredType="Force"/>\n  </ModelVariables>');

/** A `.fmu` with `xml` (default LAG_XML) and `lagWasm(options)`. */
export function lagFmu({ xml = LAG_XML, ...options } = {}) {
  return zipStored([['modelDescription.xml', xml], ['binaries/wasm32/lag.wasm', lagWasm(options)]]);
}

/** `bytes` as the `data:` URL a binary module's `source` may carry. */
export function dataUrl(bytes) {
  return `data:application/zip;base64,${Buffer.from(bytes).toString('base64')}`;
}

/** A one-module scenario running the binary module `source` for a few steps. */
export function lagScenario(source) {
  return {
    schema_version: 1,
    title: 'broken binary module',
    modules: [{ name: 'lag', model: 'Binary', parameters: {}, solver: { method: 'default' }, source }],
    connections: [],
    master: { algorithm: 'jacobi', macro_step: 0.1, extrapolation_order: 0, sequence: [], start_up: 'ramp_up' },
    run: { start: 0, stop: 1 },
    reference: false,
    plot: ['lag.x'],
  };
}
