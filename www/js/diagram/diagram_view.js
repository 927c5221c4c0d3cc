// The system diagram: each module a block with its input ports (left) and output ports
// (right), each connection an arrow named by the signal it carries, placed by dagre or by
// the scenario's `layout`. Edits: drag a block (its place goes into `layout`), drag from
// an output port to an input port to connect, select a block or arrow and press Delete,
// click a block to edit it in the form. By keyboard: Tab to a port, Enter on an output
// then Enter on an input connects; arrow keys move a focused block; Delete removes.
// The core's validation message is drawn on the arrow it names.

import dagre from '../../vendor/dagre.esm.js';
import { BLOCK_WIDTH, blockHeight, placeBlocks, portOffset, wirePath } from './geometry.js';
import { connect, deleteModule, disconnect, moveModule } from './edits.js';

const SVG = 'http://www.w3.org/2000/svg';
const MARGIN = 28;
const KEY_STEP = 10;

function svg(tag, attrs = {}, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** `connections[3].to: ...` -> 3 (the arrow a validation message is about), else null. */
export function connectionIndexOf(message) {
  const m = /^connections\[(\d+)\]/.exec(message ?? '');
  return m ? Number(m[1]) : null;
}

export class DiagramView {
  /**
   * `edit(fn)`: applies `fn(scenario)` as one undoable edit; `openModule(index)`: shows
   * the module's fields in the form; `status(text)`: announces what happened.
   */
  constructor(root, { edit, openModule, status }) {
    this.root = root;
    this.edit = edit;
    this.openModule = openModule;
    this.status = status;
    this.svg = svg('svg', { class: 'diagram-svg', role: 'group', 'aria-label': 'System diagram: modules, their ports and connections' });
    root.replaceChildren(this.svg);
    this.scenario = null;
    this.ports = [];        // [{name, model, inputs, outputs, error}]
    this.pos = new Map();
    this.selected = null;   // {kind:'block', name} | {kind:'wire', index}
    this.pending = null;    // keyboard connection: the output port chosen first
    this.error = null;      // {index, message} from validation
    this.drag = null;
    this.svg.addEventListener('pointermove', (e) => this.onMove(e));
    this.svg.addEventListener('pointerup', (e) => this.onUp(e));
    this.svg.addEventListener('pointercancel', () => this.cancelDrag());
    this.svg.addEventListener('keydown', (e) => this.onKey(e));
  }

  /** New scenario or ports: re-layout and redraw (keeping focus on the same element). */
  render(scenario, ports, error) {
    this.scenario = scenario;
    this.ports = ports;
    this.error = error;
    const focusKey = document.activeElement?.closest?.('[data-key]')?.dataset.key;
    this.pos = placeBlocks(dagre, ports, scenario.connections ?? [], scenario.layout);
    this.draw();
    if (focusKey) this.svg.querySelector(`[data-key="${CSS.escape(focusKey)}"]`)?.focus();
  }

  anchor(path, side) {
    const [mod, port] = [path.slice(0, path.indexOf('.')), path.slice(path.indexOf('.') + 1)];
    const block = this.ports.find((b) => b.name === mod);
    const p = this.pos.get(mod);
    if (!block || !p) return null;
    const list = side === 'in' ? block.inputs : block.outputs;
    const k = list.findIndex((v) => v.name === port);
    if (k < 0) return null;
    const o = portOffset(side, k);
    return { x: p.x + o.x, y: p.y + o.y, unit: list[k].unit };
  }

  draw() {
    const s = this.svg;
    s.replaceChildren();
    const defs = svg('defs');
    const marker = svg('marker', { id: 'diagram-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
    marker.append(svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head' }));
    defs.append(marker);
    s.append(defs);
    let maxX = 0, maxY = 0, minX = Infinity, minY = Infinity;
    for (const b of this.ports) {
      const p = this.pos.get(b.name);
      minX = Math.min(minX, p.x); minY = Math.min(minY, p.y);
      maxX = Math.max(maxX, p.x + BLOCK_WIDTH); maxY = Math.max(maxY, p.y + blockHeight(b));
    }
    if (!Number.isFinite(minX)) { minX = 0; minY = 0; maxX = 300; maxY = 120; }
    this.bottom = maxY;
    this.backward = 0;
    this.errorAt = null;
    const wires = svg('g', { class: 'wires' });
    (this.scenario.connections ?? []).forEach((c, i) => { const w = this.wire(c, i); if (w) wires.append(w); });
    const blocks = svg('g', { class: 'blocks' });
    this.ports.forEach((b, i) => blocks.append(this.block(b, i)));
    s.append(blocks, wires);
    // The core's message about an arrow: below the blocks, with a leader to the arrow.
    let extra = 0;
    if (this.errorAt) {
      const { mid, message, group } = this.errorAt;
      const y = maxY + 40 + 14 * this.backward;
      group.append(svg('path', { class: 'wire-leader', d: `M ${mid.x} ${mid.y} L ${mid.x} ${y - 14}` }));
      group.append(svg('text', { class: 'wire-error', x: mid.x, y, 'text-anchor': 'middle' }, message));
      extra = 40;
    }
    this.temp = svg('path', { class: 'wire wire-temp', d: '' });
    s.append(this.temp);
    const w = maxX - minX + 2 * MARGIN + 120, h = maxY - minY + 2 * MARGIN + 30 + 14 * this.backward + (this.backward ? 24 : 0) + extra;
    s.setAttribute('viewBox', `${minX - MARGIN - 60} ${minY - MARGIN - 10} ${w} ${h}`);
    s.style.aspectRatio = `${w} / ${h}`;
    s.style.maxWidth = `${Math.round(w * 1.25)}px`; // small systems are not blown up
  }

  block(b, index) {
    const p = this.pos.get(b.name);
    const height = blockHeight(b);
    const selected = this.selected?.kind === 'block' && this.selected.name === b.name;
    const g = svg('g', { class: `block${selected ? ' selected' : ''}${b.error ? ' broken' : ''}`, transform: `translate(${p.x} ${p.y})` });
    const body = svg('rect', { class: 'block-body', width: BLOCK_WIDTH, height, rx: 6, tabindex: 0, role: 'button',
      'data-key': `block:${b.name}`, 'aria-label': `Module ${b.name}, model ${b.model}${b.error ? `: ${b.error}` : ''}. Enter edits it; arrow keys move it; Delete removes it.` });
    body.append(svg('title', {}, `${b.name} (${b.model})${b.error ? `\n${b.error}` : ''}`));
    body.addEventListener('pointerdown', (e) => this.startBlockDrag(e, b.name));
    g.append(body, svg('text', { class: 'block-name', x: 10, y: 19 }, b.name));
    g.append(svg('text', { class: 'block-model', x: BLOCK_WIDTH - 8, y: 19, 'text-anchor': 'end' }, b.model.split('.').pop()));
    if (b.error) g.append(svg('text', { class: 'block-error', x: 10, y: height - 8 }, 'cannot be built (hover)'));
    b.inputs.forEach((v, k) => g.append(this.port(b, v, 'in', k)));
    b.outputs.forEach((v, k) => g.append(this.port(b, v, 'out', k)));
    g.dataset.module = b.name;
    g.dataset.index = String(index);
    return g;
  }

  port(b, v, side, k) {
    const o = portOffset(side, k);
    const path = `${b.name}.${v.name}`;
    const g = svg('g', { class: `port port-${side}` });
    const pending = this.pending === path;
    const c = svg('circle', { cx: o.x, cy: o.y, r: 7, class: `port-dot${pending ? ' pending' : ''}`, tabindex: 0, role: 'button',
      'data-key': `${side}:${path}`, 'data-port': path, 'data-side': side,
      'aria-label': `${side === 'in' ? 'Input' : 'Output'} ${path}${v.unit ? ` in ${v.unit}` : ''}${side === 'out' ? ': Enter, then Enter on an input, connects' : ''}` });
    c.append(svg('title', {}, `${path}${v.unit ? ` (${v.unit})` : ''}${v.description ? `\n${v.description}` : ''}`));
    if (side === 'out') c.addEventListener('pointerdown', (e) => this.startWire(e, path));
    const label = svg('text', { class: 'port-name', x: side === 'in' ? o.x + 12 : o.x - 12, y: o.y + 4, 'text-anchor': side === 'in' ? 'start' : 'end' },
      v.unit ? `${v.name} (${v.unit})` : v.name);
    g.append(c, label);
    return g;
  }

  wire(c, i) {
    const a = this.anchor(String(c?.from ?? ''), 'out');
    const b = this.anchor(String(c?.to ?? ''), 'in');
    if (!a || !b) return null;
    // Backward arrows run below everything, each a little lower than the one before.
    const { d, mid } = wirePath(a, b, this.bottom + 24 + 14 * (this.backward++));
    const selected = this.selected?.kind === 'wire' && this.selected.index === i;
    const error = this.error && this.error.index === i ? this.error.message : null;
    const g = svg('g', { class: `wire-group${selected ? ' selected' : ''}${error ? ' wire-invalid' : ''}` });
    g.dataset.index = String(i);
    const hit = svg('path', { d, class: 'wire-hit', tabindex: 0, role: 'button', 'data-key': `wire:${c.from}>${c.to}`,
      'aria-label': `Connection ${c.from} to ${c.to}${error ? `: ${error}` : ''}. Delete removes it.` });
    hit.addEventListener('pointerdown', (e) => { e.stopPropagation(); this.select({ kind: 'wire', index: i }); hit.focus(); });
    g.append(svg('path', { d, class: 'wire', 'marker-end': 'url(#diagram-arrow)' }), hit);
    g.append(svg('text', { class: 'wire-label', x: mid.x, y: mid.y - 6, 'text-anchor': 'middle' }, String(c.from).split('.').pop()));
    if (error) this.errorAt = { mid, message: error, group: g };
    return g;
  }

  select(sel) {
    this.selected = sel;
    for (const e of this.svg.querySelectorAll('.selected')) e.classList.remove('selected');
    if (sel?.kind === 'block') this.svg.querySelector(`.block[data-module="${CSS.escape(sel.name)}"]`)?.classList.add('selected');
    if (sel?.kind === 'wire') this.svg.querySelector(`.wire-group[data-index="${sel.index}"]`)?.classList.add('selected');
  }

  point(e) {
    const m = this.svg.getScreenCTM().inverse();
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m);
    return { x: p.x, y: p.y };
  }

  startBlockDrag(e, name) {
    e.preventDefault();
    const p = this.point(e);
    const at = this.pos.get(name);
    this.drag = { kind: 'block', name, dx: p.x - at.x, dy: p.y - at.y, moved: false, start: p };
    this.svg.setPointerCapture(e.pointerId);
    this.select({ kind: 'block', name });
  }

  startWire(e, from) {
    e.preventDefault();
    e.stopPropagation();
    this.drag = { kind: 'wire', from, a: this.anchor(from, 'out') };
    this.svg.setPointerCapture(e.pointerId);
  }

  onMove(e) {
    const d = this.drag;
    if (!d) return;
    const p = this.point(e);
    if (d.kind === 'block') {
      if (Math.hypot(p.x - d.start.x, p.y - d.start.y) > 3) d.moved = true;
      if (!d.moved) return;
      this.pos.set(d.name, { x: Math.round(p.x - d.dx), y: Math.round(p.y - d.dy) }); // as kept in the layout
      const keep = this.svg.getAttribute('viewBox');
      this.draw();
      this.svg.setAttribute('viewBox', keep); // the view stays put while dragging
    } else {
      this.temp.setAttribute('d', wirePath(d.a, p).d);
    }
  }

  onUp(e) {
    const d = this.drag;
    this.drag = null;
    if (!d) return;
    if (d.kind === 'block') {
      if (d.moved) {
        const at = this.pos.get(d.name);
        this.edit((s) => moveModule(s, d.name, at.x, at.y), `Moved ${d.name}.`);
      } else {
        const index = this.ports.findIndex((b) => b.name === d.name);
        this.openModule(index);
      }
      return;
    }
    this.temp.setAttribute('d', '');
    // The input under the pointer (pointer capture makes the svg the event target).
    const target = document.elementsFromPoint(e.clientX, e.clientY).find((el) => el.dataset?.side === 'in');
    if (target) this.connectTo(d.from, target.dataset.port);
  }

  cancelDrag() {
    this.drag = null;
    this.temp?.setAttribute('d', '');
  }

  connectTo(from, to) {
    this.edit((s) => connect(s, from, to), `Connected ${from} to ${to}.`);
  }

  onKey(e) {
    const t = e.target;
    const key = t.dataset?.key ?? '';
    if (e.key === 'Escape' && this.pending) {
      this.pending = null;
      this.status('Connection cancelled.');
      this.draw();
      return;
    }
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      if (t.dataset.side === 'out') {
        this.pending = t.dataset.port;
        this.status(`Connecting from ${this.pending}: Tab to an input and press Enter (Escape cancels).`);
        t.classList.add('pending');
      } else if (t.dataset.side === 'in' && this.pending) {
        const from = this.pending;
        this.pending = null;
        this.connectTo(from, t.dataset.port);
      } else if (key.startsWith('block:')) {
        this.openModule(this.ports.findIndex((b) => b.name === key.slice(6)));
      }
      return;
    }
    if (e.key === 'Delete' || e.key === 'Backspace') {
      e.preventDefault();
      if (key.startsWith('block:')) this.deleteBlock(key.slice(6));
      else if (key.startsWith('wire:')) this.deleteWire(Number(t.closest('.wire-group').dataset.index));
      return;
    }
    const arrows = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (arrows[e.key] && key.startsWith('block:')) {
      e.preventDefault();
      const name = key.slice(6);
      const at = this.pos.get(name);
      const [dx, dy] = arrows[e.key];
      this.edit((s) => moveModule(s, name, at.x + dx * KEY_STEP, at.y + dy * KEY_STEP), `Moved ${name}.`);
    }
  }

  deleteBlock(name) {
    this.selected = null;
    this.edit((s) => deleteModule(s, name), `Deleted module ${name} and its connections.`);
  }

  deleteWire(index) {
    const c = this.scenario.connections[index];
    this.selected = null;
    this.edit((s) => disconnect(s, index), `Deleted the connection ${c.from} to ${c.to}.`);
  }

  /** Deletes what is selected (toolbar button). */
  deleteSelected() {
    const sel = this.selected;
    if (sel?.kind === 'block') this.deleteBlock(sel.name);
    else if (sel?.kind === 'wire') this.deleteWire(sel.index);
    else this.status('Select a block or an arrow first.');
  }
}
