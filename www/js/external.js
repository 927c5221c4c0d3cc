// Confirmation before a scenario makes the browser contact another site. A scenario may
// name files by address: a binary module (model "Binary") has its `.fmu` in `source`, as
// a path relative to the page or a URL (core/src/scenario/binary.rs). Files on the page's
// own origin (the presets' example modules) are part of the playground and load without
// asking; opening a shared link must not make the page contact any other site on its own,
// so every such address is listed (as text) in a dialog, and files are fetched, and the
// run starts, only after the person agrees. The fetched archive then travels to the
// worker inside the scenario, as the `data:` URL the core expects; the editor and links
// keep the short address.

/** Keys whose string values are addresses of files to fetch. */
const URL_KEYS = new Set(['url', 'href', 'src']);

/** The `model` of binary modules (core: scenario::binary::BINARY_MODEL). */
const BINARY_MODEL = 'Binary';

/** Modules whose archive must be fetched: [{index, address (absolute URL)}]. */
export function binarySources(scenario) {
  const modules = Array.isArray(scenario?.modules) ? scenario.modules : [];
  const out = [];
  modules.forEach((m, index) => {
    if (m?.model !== BINARY_MODEL || typeof m.source !== 'string' || m.source.startsWith('data:') || !m.source.trim()) return;
    let address;
    try { address = new URL(m.source.trim(), window.location.href).href; } catch { return; }
    out.push({ index, address });
  });
  return out;
}

/** True for an address on another origin than the page's. */
function foreign(address) {
  try { return new URL(address, window.location.href).origin !== window.location.origin; } catch { return true; }
}

/**
 * Every address on another site that a scenario would make the page fetch: binary module
 * sources, values under url/href/src keys, and any string that is a whole http(s) URL.
 */
export function externalUrls(scenario) {
  const found = new Set(binarySources(scenario).map((b) => b.address));
  const walk = (v, key) => {
    if (typeof v === 'string') {
      const t = v.trim();
      // A URL has no white space; equation sources (which may start with a `//` comment)
      // and other prose never match.
      if ((key && URL_KEYS.has(key) && t) || /^https?:\/\/\S+$/i.test(t)) found.add(t);
    } else if (Array.isArray(v)) {
      for (const x of v) walk(x, null);
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'title' || k === 'description') continue; // prose, never fetched
        walk(x, k);
      }
    }
  };
  walk(scenario, null);
  return [...found].filter(foreign);
}

const confirmed = new Set();

/**
 * Resolves true when every URL is allowed: already confirmed in this page, or confirmed
 * now in `dialog` (a <dialog> whose form buttons return 'load' or 'cancel').
 */
export function confirmExternal(dialog, list, urls) {
  const fresh = urls.filter((u) => !confirmed.has(u));
  if (!fresh.length) return Promise.resolve(true);
  list.replaceChildren(...fresh.map((u) => {
    const li = document.createElement('li');
    const code = document.createElement('code');
    code.textContent = u;
    li.append(code);
    return li;
  }));
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      const ok = dialog.returnValue === 'load';
      if (ok) for (const u of fresh) confirmed.add(u);
      resolve(ok);
    }, { once: true });
    dialog.returnValue = '';
    dialog.showModal();
  });
}

/** Base64 of bytes (chunked: String.fromCharCode takes a bounded number of arguments). */
function base64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** Largest archive fetched, in bytes (the core refuses larger scenarios anyway). */
const MAX_ARCHIVE_BYTES = 3 << 20;

/**
 * A copy of `scenario` whose binary modules carry their fetched archives as `data:` URLs.
 * Call only after `confirmExternal`. Rejects with an Error whose message names the field.
 */
export async function embedBinarySources(scenario) {
  const copy = structuredClone(scenario);
  for (const { index, address } of binarySources(scenario)) {
    const path = `modules[${index}].source`;
    let response;
    try {
      response = await fetch(address, { credentials: 'omit' });
    } catch (e) {
      throw new Error(`${path}: could not fetch ${address} (${e.message})`);
    }
    if (!response.ok) throw new Error(`${path}: could not fetch ${address}: HTTP ${response.status}`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length > MAX_ARCHIVE_BYTES) throw new Error(`${path}: ${address} is ${bytes.length} bytes; the limit is ${MAX_ARCHIVE_BYTES}`);
    copy.modules[index].source = `data:application/zip;base64,${base64(bytes)}`;
  }
  return copy;
}
