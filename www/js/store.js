// The page's one state. Views never keep their own copy of the scenario or the last run:
// they subscribe to the keys they show and render from `store.state`. A change says where
// it came from (`from`), so the view that made an edit does not re-render under the
// user's cursor (the form keeps focus while its scenario object is edited in place).

/**
 * @typedef {object} PageState
 * @property {object[]} presets         the core's built-in presets ({id, title, scenario, tryNext})
 * @property {string|null} presetId     the preset the scenario started from, if any
 * @property {object|null} scenario     the scenario the form, diagram, JSON view and URL show
 * @property {boolean} edited           the scenario differs from what was opened
 * @property {boolean} jsonDirty        the JSON view holds text not yet applied
 * @property {string|null} address      the address fragment the page shows (null: leave it)
 * @property {object|null} lastResult   the last finished run (see run_controller.js)
 * @property {object|null} lastError    {kind, message, run} of the last failed run
 * @property {object[]} signals         the running scenario's outputs ({name, unit, hasReference})
 * @property {object[]} pins            pinned runs (pins.js)
 */

export class Store {
  constructor(initial) {
    /** @type {PageState} */
    this.state = { ...initial };
    this.listeners = new Map(); // key -> Set(fn(state, meta))
  }

  /** Calls `fn(state, meta)` whenever one of `keys` changes; returns an unsubscribe. */
  on(keys, fn) {
    for (const k of [].concat(keys)) {
      if (!this.listeners.has(k)) this.listeners.set(k, new Set());
      this.listeners.get(k).add(fn);
    }
    return () => { for (const k of [].concat(keys)) this.listeners.get(k)?.delete(fn); };
  }

  /**
   * Sets the keys of `patch` and notifies each listener once. `meta.from` names the view
   * that made the change; other meta fields are hints for the renderers.
   */
  set(patch, meta = {}) {
    Object.assign(this.state, patch);
    this.notify(Object.keys(patch), meta);
  }

  /** A value was changed in place (the form edits the scenario object): notify only. */
  touch(key, meta = {}) {
    this.notify([key], meta);
  }

  notify(keys, meta) {
    const called = new Set();
    for (const k of keys) {
      for (const fn of this.listeners.get(k) ?? []) {
        if (called.has(fn)) continue;
        called.add(fn);
        fn(this.state, { ...meta, keys });
      }
    }
  }
}
