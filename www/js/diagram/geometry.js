// Geometry of the system diagram: block sizes from their port counts, port anchor points,
// arrow paths, and the automatic layout (dagre, left to right) that places every block
// the scenario's `layout` field does not place.

export const BLOCK_WIDTH = 168;
const HEADER = 30;
const ROW = 24;

/** Height of a block with `ports` = {inputs, outputs}. */
export function blockHeight(ports) {
  return HEADER + Math.max(1, ports.inputs.length, ports.outputs.length) * ROW + 8;
}

/** Where port `k` of side 'in' (left edge) or 'out' (right edge) sits, relative to the block. */
export function portOffset(side, k) {
  return { x: side === 'in' ? 0 : BLOCK_WIDTH, y: HEADER + ROW / 2 + k * ROW };
}

/**
 * Top-left corner of every block: `saved` (scenario.layout) where given, otherwise from
 * dagre's layered layout of the module graph (edges from each connection).
 */
export function placeBlocks(dagre, blocks, connections, saved) {
  const pos = new Map();
  const missing = blocks.filter((b) => !Array.isArray(saved?.[b.name]));
  if (missing.length) {
    const g = new dagre.graphlib.Graph({ multigraph: true });
    g.setGraph({ rankdir: 'LR', nodesep: 36, ranksep: 110, marginx: 16, marginy: 16 });
    g.setDefaultEdgeLabel(() => ({}));
    for (const b of blocks) g.setNode(b.name, { width: BLOCK_WIDTH, height: blockHeight(b) });
    connections.forEach((c, i) => {
      const from = String(c?.from ?? '').split('.')[0];
      const to = String(c?.to ?? '').split('.')[0];
      if (g.hasNode(from) && g.hasNode(to) && from !== to) g.setEdge(from, to, {}, `c${i}`);
    });
    dagre.layout(g);
    for (const b of blocks) {
      const n = g.node(b.name);
      pos.set(b.name, { x: Math.round(n.x - n.width / 2), y: Math.round(n.y - n.height / 2) });
    }
  }
  for (const b of blocks) {
    const s = saved?.[b.name];
    if (Array.isArray(s) && s.length === 2 && s.every(Number.isFinite)) pos.set(b.name, { x: s[0], y: s[1] });
  }
  return pos;
}

/**
 * An arrow from an output anchor to an input anchor: a cubic curve, horizontal at both
 * ends; a backward arrow (into a block to the left) runs below the blocks at `below`.
 */
export function wirePath(a, b, below = null) {
  if (below !== null && b.x < a.x + 24) {
    const r = 18;
    const x1 = a.x + r, x2 = b.x - r;
    const d = `M ${a.x} ${a.y} L ${x1} ${a.y} L ${x1} ${below} L ${x2} ${below} L ${x2} ${b.y} L ${b.x} ${b.y}`;
    return { d, mid: { x: (x1 + x2) / 2, y: below } };
  }
  const dx = Math.max(48, Math.abs(b.x - a.x) / 2);
  const p1 = { x: a.x + dx, y: a.y };
  const p2 = { x: b.x - dx, y: b.y };
  const mid = { x: (a.x + 3 * p1.x + 3 * p2.x + b.x) / 8, y: (a.y + 3 * p1.y + 3 * p2.y + b.y) / 8 };
  return { d: `M ${a.x} ${a.y} C ${p1.x} ${p1.y}, ${p2.x} ${p2.y}, ${b.x} ${b.y}`, mid };
}
