// Confirmation before a scenario makes the browser fetch anything from elsewhere. A
// scenario may name files by URL (for example a binary module's `fmu: {url}`); opening a
// shared link must not make the page contact another site on its own. Every such URL is
// listed (as text) in a dialog, and the run starts only after the person agrees.

/** Keys whose string values are addresses of files to fetch. */
const URL_KEYS = new Set(['url', 'href', 'src']);

/** Every external address in a scenario object: values under url/href/src keys and any string that is an http(s) URL. */
export function externalUrls(scenario) {
  const found = new Set();
  const walk = (v, key) => {
    if (typeof v === 'string') {
      const t = v.trim();
      if ((key && URL_KEYS.has(key) && t) || /^(https?:)?\/\//i.test(t)) found.add(t);
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
  return [...found];
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
