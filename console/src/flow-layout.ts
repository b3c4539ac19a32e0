// Places a flow's graph (GET /admin/flows/:name) for drawing as SVG, top to bottom like the YAML,
// with dagre (@dagrejs/dagre: a layered layout; foreach bodies as compound clusters). Pure: the
// caller gives each node's text lines and each edge's label and a text measurer (pixels).
// Units are SVG user units (pixels at 100 %); x/y of nodes, groups and labels are their centres.
import dagre from '@dagrejs/dagre';
import type { FlowGraphEdgeView, FlowGraphGroupView, FlowGraphNodeView, FlowGraphView } from '../server/api-types.js';

/** One line of text in a node: `title` (the step id, bold) or `sub` (type, name…). */
export interface NodeLine {
  text: string;
  style: 'title' | 'sub';
  /** An identifier (a step id or node type), not words for a person: drawn with `data-code`. */
  code?: boolean;
}

/** A point in SVG user units (pixels at 100 %). */
export interface Point {
  x: number;
  y: number;
}

/** A graph node placed: its lines and its box (x, y its centre). */
export interface PlacedNode {
  node: FlowGraphNodeView;
  /** The lines as drawn (cut to LINE_MAX characters). */
  lines: NodeLine[];
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An edge placed: the polyline dagre routed, and its label's box (centre) when it has one. */
export interface PlacedEdge {
  edge: FlowGraphEdgeView;
  points: Point[];
  label?: { text: string; x: number; y: number; width: number; height: number };
}

/** A foreach body placed: the box around its nodes (x, y its centre) and its label. */
export interface PlacedGroup {
  group: FlowGraphGroupView;
  label: string;
  /** Width of the label's text, px. */
  labelWidth: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A whole graph placed: the drawing's size and every node, edge and group in it. */
export interface FlowLayout {
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  groups: PlacedGroup[];
}

/** Font sizes (px) the SVG draws with; the measurer is asked with these. */
export const FONT = { title: 13, sub: 12, edge: 11, group: 11 } as const;
/** Line heights (px). */
export const LINE_HEIGHT = { title: 18, sub: 16 } as const;
const PAD_X = 12;
const PAD_Y = 8;
/** Extra width of the pointed sides of an if / switch node. */
const DECISION_TIP = 14;
/** Diameter of a parallel's join. */
const JOIN_SIZE = 18;
/** Longest line drawn in a node or on an edge, characters; longer ones end in "…". */
export const LINE_MAX = 34;

/** What dagre reads and writes on graphs, nodes and edges (its own typings do not resolve under NodeNext). */
interface Box {
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  [key: string]: unknown;
}

interface EdgeBox extends Box {
  points?: Point[];
}

/** What layoutFlow needs: the graph, the texts to draw and a way to measure them. */
export interface LayoutInput {
  graph: FlowGraphView;
  /** The lines of a node (the first is usually the title). */
  linesOf: (node: FlowGraphNodeView) => NodeLine[];
  /** The label drawn on an edge, if any. */
  edgeLabel: (edge: FlowGraphEdgeView) => string | undefined;
  /** The label of a foreach body. */
  groupLabel: (group: FlowGraphGroupView) => string;
  /** Width in px of `text` at `size` px (`bold` for titles). */
  measure: (text: string, size: number, bold: boolean) => number;
}

/** `text` cut to LINE_MAX characters, ending in "…" when cut. */
export function clip(text: string): string {
  const chars = [...text];
  return chars.length > LINE_MAX ? `${chars.slice(0, LINE_MAX - 1).join('')}…` : text;
}

/** Places `graph` top to bottom with dagre: each node sized to its lines (cut to LINE_MAX), edge labels sized by `measure`; pure. */
export function layoutFlow({ graph, linesOf, edgeLabel, groupLabel, measure }: LayoutInput): FlowLayout {
  const g = new dagre.graphlib.Graph<Box, Box, EdgeBox>({ multigraph: true, compound: true });
  g.setGraph({ rankdir: 'TB', nodesep: 28, ranksep: 34, edgesep: 14, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));

  const sized = graph.nodes.map((node) => {
    const lines = linesOf(node).map((line) => ({ ...line, text: clip(line.text) }));
    if (node.kind === 'join') return { node, lines, width: JOIN_SIZE, height: JOIN_SIZE };
    const textWidth = Math.max(0, ...lines.map((l) => measure(l.text, FONT[l.style], l.style === 'title')));
    const tips = node.kind === 'if' || node.kind === 'switch' ? 2 * DECISION_TIP : 0;
    const height = 2 * PAD_Y + lines.reduce((sum, l) => sum + LINE_HEIGHT[l.style], 0);
    return { node, lines, width: Math.ceil(Math.max(textWidth + 2 * PAD_X + tips, 56)), height };
  });
  for (const group of graph.groups) g.setNode(group.id, {});
  for (const group of graph.groups) if (group.parent) g.setParent(group.id, group.parent);
  for (const s of sized) {
    g.setNode(s.node.id, { width: s.width, height: s.height });
    if (s.node.parent) g.setParent(s.node.id, s.node.parent);
  }
  const labels = new Map<string, string>();
  graph.edges.forEach((edge, index) => {
    const name = `e${index}`;
    const text = edgeLabel(edge);
    if (text === undefined) {
      g.setEdge(edge.from, edge.to, { weight: edge.kind === 'normal' ? 2 : 1 }, name);
      return;
    }
    const clipped = clip(text);
    labels.set(name, clipped);
    const width = Math.ceil(measure(clipped, FONT.edge, false)) + 10;
    g.setEdge(edge.from, edge.to, { width, height: 16, labelpos: 'c', weight: edge.kind === 'normal' ? 2 : 1 }, name);
  });

  dagre.layout(g);

  const nodes: PlacedNode[] = sized.map((s) => {
    const placed = g.node(s.node.id);
    return { ...s, x: placed.x ?? 0, y: placed.y ?? 0 };
  });
  const edges: PlacedEdge[] = graph.edges.map((edge, index) => {
    const name = `e${index}`;
    const placed = g.edge({ v: edge.from, w: edge.to, name });
    const text = labels.get(name);
    return {
      edge,
      points: (placed.points ?? []).map((p: Point) => ({ x: p.x, y: p.y })),
      ...(text !== undefined && placed.x !== undefined && placed.y !== undefined
        ? { label: { text, x: placed.x, y: placed.y, width: placed.width ?? 0, height: placed.height ?? 0 } }
        : {}),
    };
  });
  const groups: PlacedGroup[] = graph.groups.map((group) => {
    const placed = g.node(group.id);
    const label = clip(groupLabel(group));
    return {
      group,
      label,
      labelWidth: Math.ceil(measure(label, FONT.group, true)),
      x: placed.x ?? 0,
      y: placed.y ?? 0,
      width: placed.width ?? 0,
      height: placed.height ?? 0,
    };
  });
  const size = g.graph();
  return { width: Math.ceil(size.width ?? 0), height: Math.ceil(size.height ?? 0), nodes, edges, groups };
}
