// Undo and redo over every change of the scenario (form, JSON view, diagram, sliders):
// snapshots of the scenario as JSON, recorded from the store. Typing in one field within
// a moment is one step. Opening another scenario starts a new history.

import { setScenario } from './scenario_views.js';

const COALESCE_MS = 600;
const LIMIT = 200;

export class History {
  constructor(store) {
    this.store = store;
    this.undos = [];
    this.redos = [];
    this.current = null;
    this.last = { from: null, at: 0 };
    this.listeners = [];
    store.on('scenario', (s, meta) => this.record(s.scenario, meta));
  }

  record(scenario, meta) {
    if (!scenario || meta.from === 'history') return;
    const text = JSON.stringify(scenario);
    if (meta.from === 'open' || this.current === null) {
      this.undos = [];
      this.redos = [];
    } else if (text !== this.current) {
      const now = performance.now();
      const typing = meta.from === this.last.from && (meta.from === 'form' || meta.from === 'slider') && now - this.last.at < COALESCE_MS;
      if (!typing) this.undos.push(this.current);
      if (this.undos.length > LIMIT) this.undos.shift();
      this.redos = [];
      this.last = { from: meta.from, at: now };
    }
    this.current = text;
    this.changed();
  }

  get canUndo() { return this.undos.length > 0; }
  get canRedo() { return this.redos.length > 0; }

  undo() { this.step(this.undos, this.redos); }
  redo() { this.step(this.redos, this.undos); }

  step(from, to) {
    if (!from.length) return;
    to.push(this.current);
    this.current = from.pop();
    this.last = { from: null, at: 0 };
    setScenario(this.store, JSON.parse(this.current), { from: 'history', keepAnalysis: true });
    this.changed();
  }

  onChange(fn) { this.listeners.push(fn); }
  changed() { for (const fn of this.listeners) fn(this); }
}
