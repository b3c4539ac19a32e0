// Renders a loaded flow as a Mermaid `flowchart TD`, read top to bottom like the YAML, from its
// graph (./flow-graph.ts: which nodes, which edges, in which order).
//
// Shapes: trigger and end are stadiums, plain steps rectangles, `if` / `switch` diamonds, `parallel`
// a hexagon (fork) followed by a `join` circle, `foreach` a subroutine box whose body sits in a
// subgraph with a loop-back edge, `stop` a stadium with no edge onwards.
// Edges: `on error` edges (on_error goto) are dotted, every other edge solid.
// Output layout: the header, every node (body nodes inside their subgraph), then every edge, then
// styles. Edges come after all nodes so that no edge pulls a node into a subgraph.
// Labels are quoted with Mermaid entity codes for characters that could end a label; a node's
// lines are joined with `<br/>`.
import type { LoadedFlow } from '../types.js';
import { type FlowGraphEdge, type FlowGraphGroup, type FlowGraphNode, type FlowNodeKind, flowGraph } from './flow-graph.js';

/** Characters replaced by entity codes inside quoted labels (`#quot;` or `#<decimal>;`). */
const ESCAPES: Record<string, string> = {
  '"': '#quot;',
  '#': '#35;',
  '<': '#lt;',
  '>': '#gt;',
  '[': '#91;',
  ']': '#93;',
  '(': '#40;',
  ')': '#41;',
  '{': '#123;',
  '}': '#125;',
  '|': '#124;',
  '`': '#96;',
};

/** Label text safe inside `"…"` of a Mermaid node or edge label; newlines become spaces. */
export function escapeLabel(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/["#<>[\](){}|`]/g, (c) => ESCAPES[c]!);
}

function edgeLine(edge: FlowGraphEdge): string {
  const arrow = edge.kind === 'error' ? '-.->' : '-->';
  return `  ${edge.from} ${arrow}${edge.label !== undefined ? `|"${escapeLabel(edge.label)}"|` : ''} ${edge.to}`;
}

const SHAPES: Record<FlowNodeKind, [string, string]> = {
  trigger: ['(["', '"])'],
  end: ['(["', '"])'],
  stop: ['(["', '"])'],
  step: ['["', '"]'],
  if: ['{"', '"}'],
  switch: ['{"', '"}'],
  parallel: ['{{"', '"}}'],
  foreach: ['[["', '"]]'],
  join: ['(("', '"))'],
};

const CLASSES: Partial<Record<FlowNodeKind, string>> = {
  trigger: 'lfTrigger',
  end: 'lfTrigger',
  if: 'lfControl',
  switch: 'lfControl',
  parallel: 'lfControl',
  foreach: 'lfControl',
  stop: 'lfStop',
};

/** The groups holding `group`, outermost first, `group` last. */
function groupChain(group: string | undefined, groups: Map<string, FlowGraphGroup>): string[] {
  const chain: string[] = [];
  for (let at = group; at !== undefined; at = groups.get(at)?.parent) chain.unshift(at);
  return chain;
}

/** Node lines with `subgraph … end` around each foreach body, indented by depth. */
function nodeLines(nodes: FlowGraphNode[], groupList: FlowGraphGroup[]): string[] {
  const groups = new Map(groupList.map((group) => [group.id, group]));
  const lines: string[] = [];
  const open: string[] = [];
  const indent = () => '  '.repeat(open.length + 1);
  for (const node of nodes) {
    const chain = groupChain(node.parent, groups);
    let shared = 0;
    while (shared < open.length && shared < chain.length && open[shared] === chain[shared]) shared++;
    while (open.length > shared) {
      open.pop();
      lines.push(`${indent()}end`);
    }
    for (const id of chain.slice(shared)) {
      lines.push(`${indent()}subgraph ${id}["${escapeLabel(groups.get(id)!.label)}"]`);
      open.push(id);
    }
    const [start, close] = SHAPES[node.kind];
    lines.push(`${indent()}${node.id}${start}${[node.label, ...node.details].map(escapeLabel).join('<br/>')}${close}`);
  }
  while (open.length > 0) {
    open.pop();
    lines.push(`${indent()}end`);
  }
  return lines;
}

/** The Mermaid `flowchart TD` text of `flow`. */
export function flowToMermaid(flow: LoadedFlow): string {
  const graph = flowGraph(flow);
  const classes = new Map<string, string[]>();
  for (const node of graph.nodes) {
    const cls = CLASSES[node.kind];
    if (cls) classes.set(cls, [...(classes.get(cls) ?? []), node.id]);
  }
  const styles = [
    '  classDef lfTrigger fill:#e8f0fe,stroke:#3367d6',
    '  classDef lfControl fill:#fff4e5,stroke:#e8a33d',
    '  classDef lfStop fill:#fde8e8,stroke:#c0392b',
  ];
  const classLines = [...classes].map(([cls, ids]) => `  class ${ids.join(',')} ${cls}`);
  return ['flowchart TD', ...nodeLines(graph.nodes, graph.groups), ...graph.edges.map(edgeLine), ...styles, ...classLines].join('\n');
}
