// Sharing by URL. The page never encodes or decodes links itself: the worker's wasm core
// does (cosim_core::scenario::link, the same code as `cosim link`). This file reads the
// address (`#s1.…` opens a shared scenario, `#preset=ID` a preset), builds the link for
// "Copy link", and falls back to a visible text field (no clipboard access) or to a JSON
// download (a link longer than browsers and chat tools reliably keep).

/** Longest link offered, in characters; longer scenarios are offered as a .json file. */
export const MAX_LINK_LENGTH = 8000;

/** What the address asks for: {kind:'link', link} | {kind:'preset', id} | null. */
export function readHash(hash = window.location.hash) {
  const h = hash.replace(/^#/, '');
  if (/^s\d+\./.test(h)) return { kind: 'link', link: h };
  const m = /^preset=([\w.-]+)$/.exec(h);
  if (m) return { kind: 'preset', id: decodeURIComponent(m[1]) };
  return null;
}

/** Replaces the address fragment without a new history entry or a hashchange event. */
export function setHash(fragment) {
  const url = `${window.location.pathname}${window.location.search}${fragment ? `#${fragment}` : ''}`;
  window.history.replaceState(null, '', url);
}

/** The full address of a link fragment on this page. */
export function linkUrl(fragment) {
  return `${window.location.origin}${window.location.pathname}${window.location.search}#${fragment}`;
}

/**
 * "Copy link": asks the worker for the link of `scenarioText`, then copies it, shows it
 * in the text field (always visible, selected, so it can be copied by hand), or offers
 * the download when it is too long. Resolves with {url} or {tooLong, length} or {message}.
 */
export async function shareLink(client, scenarioText, ui) {
  const reply = await client.request('encodeLink', { scenario: scenarioText });
  if (reply.message) return { message: reply.message };
  const url = linkUrl(reply.value);
  ui.box.hidden = false;
  if (url.length > MAX_LINK_LENGTH) {
    ui.field.hidden = true;
    ui.download.hidden = false;
    ui.note.textContent = `This scenario needs a ${url.length.toLocaleString('en')}-character link, longer than links reliably survive (${MAX_LINK_LENGTH.toLocaleString('en')}). Download it as a .json file and share the file instead.`;
    return { tooLong: true, length: url.length };
  }
  setHash(reply.value);
  ui.field.hidden = false;
  ui.download.hidden = true;
  ui.input.value = url;
  let copied = false;
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(url);
      copied = true;
    }
  } catch { /* permission refused: the field below is the fallback */ }
  ui.note.textContent = copied
    ? `Link copied (${url.length.toLocaleString('en')} characters). Anyone who opens it gets this scenario and runs it.`
    : 'Copy this link by hand (the browser did not allow copying to the clipboard):';
  ui.input.focus();
  ui.input.select();
  return { url, copied };
}
