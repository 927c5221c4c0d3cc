// Light and dark theme: follows prefers-color-scheme until the person picks one with the
// toggle (kept in localStorage). The chosen theme is `data-theme` on <html>; CSS reads it,
// and listeners (the plots) are told so they can redraw in the new colours.

const KEY = 'cosim-theme';
const ORDER = ['auto', 'light', 'dark'];
const LABELS = { auto: 'Theme: auto', light: 'Theme: light', dark: 'Theme: dark' };
const media = window.matchMedia('(prefers-color-scheme: dark)');
const listeners = new Set();

function stored() {
  try { return localStorage.getItem(KEY); } catch { return null; }
}

let choice = ORDER.includes(stored()) ? stored() : 'auto';

/** 'light' or 'dark', as shown now. */
export function currentTheme() {
  return choice === 'auto' ? (media.matches ? 'dark' : 'light') : choice;
}

function apply() {
  document.documentElement.dataset.theme = currentTheme();
  document.documentElement.dataset.themeChoice = choice;
  for (const f of listeners) f(currentTheme());
}

/** Calls `f(theme)` whenever the shown theme changes. */
export function onThemeChange(f) {
  listeners.add(f);
}

/** Wires the toggle button (cycles auto → light → dark). */
export function initTheme(button) {
  const show = () => {
    button.textContent = LABELS[choice];
    button.setAttribute('aria-label', `${LABELS[choice]} (change)`);
  };
  button.addEventListener('click', () => {
    choice = ORDER[(ORDER.indexOf(choice) + 1) % ORDER.length];
    try { localStorage.setItem(KEY, choice); } catch { /* private mode: not kept */ }
    show();
    apply();
  });
  media.addEventListener('change', () => { if (choice === 'auto') apply(); });
  show();
  apply();
}

/** A CSS custom property of the page, e.g. cssColor('--ink'). */
export function cssColor(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}
