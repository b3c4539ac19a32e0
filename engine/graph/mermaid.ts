// Renders a loaded flow as a Mermaid `flowchart TD`, read top to bottom like the YAML.
//
// Shapes: trigger and end are stadiums, plain steps rectangles, `if` / `switch` diamonds, `parallel`
// a hexagon (fork) followed by a `join` circle, `foreach` a subroutine box whose body sits in a
// subgraph with a loop-back edge, `stop` a stadium with no edge onwards.
// Edges: in step order; branch edges carry the branch label (`then`, `else`, case key, `default`,
// branch name, `each item`, `next item`, `done`); `on_error: {goto}` is a dotted `on error` edge.
// The ends of a control step's branches all join into the step after it.
// Output layout: the header, every node (body nodes inside their subgraph), then every edge, then
// styles. Edges come after all nodes so that no edge pulls a node into a subgraph.
// Node ids are `s_<step id>` made safe (only [A-Za-z0-9_]) and unique; labels are quoted with
// Mermaid entity codes for characters that could end a label.
import type { LoadedFlow, LoadedStep } from '../types.js';

/** A pending edge: its source, its label, and the place in the edge list reserved for it when it was created. */
interface Exit {
  from: string;
  label?: string;
  slot: number;
}

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

function edgeLine(from: string, to: string, label: string | undefined, dotted: boolean): string {
  const arrow = dotted ? '-.->' : '-->';
  return `  ${from} ${arrow}${label !== undefined ? `|"${escapeLabel(label)}"|` : ''} ${to}`;
}

type Shape = 'rect' | 'diamond' | 'stadium' | 'hexagon' | 'subroutine' | 'circle';

const OPEN_CLOSE: Record<Shape, [string, string]> = {
  rect: ['["', '"]'],
  diamond: ['{"', '"}'],
  stadium: ['(["', '"])'],
  hexagon: ['{{"', '"}}'],
  subroutine: ['[["', '"]]'],
  circle: ['(("', '"))'],
};

class MermaidWriter {
  private readonly used = new Set<string>();
  private readonly stepIds = new Map<LoadedStep, string>();
  readonly nodes: string[] = [];
  /** Edge lines in reading order; null marks a reserved slot whose target never came (a dropped exit). */
  readonly edges: Array<string | null> = [];
  readonly classes = new Map<string, string[]>();
  private depth = 1;

  /** A unique, safe node id derived from `base`. */
  allocate(base: string): string {
    const safe = base.replace(/[^A-Za-z0-9_]/g, '_');
    let id = safe;
    for (let n = 2; this.used.has(id); n++) id = `${safe}_${n}`;
    this.used.add(id);
    return id;
  }

  /** Allocates ids for every step first, so `goto` edges can point forward. */
  allocateSteps(steps: LoadedStep[]): void {
    for (const step of steps) {
      this.stepIds.set(step, this.allocate(`s_${step.id}`));
      for (const list of Object.values(step.children)) this.allocateSteps(list);
    }
  }

  idOf(step: LoadedStep): string {
    return this.stepIds.get(step)!;
  }

  node(id: string, shape: Shape, lines: string[], cls?: string): void {
    const [open, close] = OPEN_CLOSE[shape];
    this.nodes.push(`${'  '.repeat(this.depth)}${id}${open}${lines.map(escapeLabel).join('<br/>')}${close}`);
    if (cls) this.classes.set(cls, [...(this.classes.get(cls) ?? []), id]);
  }

  edge(from: string, to: string, label?: string, dotted = false): void {
    this.edges.push(edgeLine(from, to, label, dotted));
  }

  /** An exit of `from` whose edge keeps its place in the reading order until its target is known. */
  exit(from: string, label?: string): Exit {
    this.edges.push(null);
    return { from, label, slot: this.edges.length - 1 };
  }

  connect(exit: Exit, to: string, fallbackLabel?: string): void {
    this.edges[exit.slot] = edgeLine(exit.from, to, exit.label ?? fallbackLabel, false);
  }

  openSubgraph(id: string, title: string): void {
    this.nodes.push(`${'  '.repeat(this.depth)}subgraph ${id}["${escapeLabel(title)}"]`);
    this.depth++;
  }

  closeSubgraph(): void {
    this.depth--;
    this.nodes.push(`${'  '.repeat(this.depth)}end`);
  }
}

function stepLines(step: LoadedStep): string[] {
  const lines = [step.id, step.type];
  const reason = step.params.reason;
  if (step.name) lines.push(step.name);
  else if (step.type === 'stop' && typeof reason === 'string') lines.push(reason);
  if (step.on_error === 'continue') lines.push('on error: continue');
  return lines;
}

/** Child slots of a map-shaped slot (`cases.<key>`, `branches.<name>`), in declaration order. */
function mapSlots(step: LoadedStep, slot: string): Array<[string, LoadedStep[]]> {
  const prefix = `${slot}.`;
  return Object.entries(step.children)
    .filter(([key]) => key.startsWith(prefix))
    .map(([key, list]) => [key.slice(prefix.length), list]);
}

/** Draws `list` fed by `entries`; returns the exits that flow on to whatever follows the list. */
function drawList(w: MermaidWriter, list: LoadedStep[], entries: Exit[]): Exit[] {
  let pending = entries;
  for (const step of list) {
    const id = w.idOf(step);
    for (const e of pending) w.connect(e, id);
    pending = drawStep(w, step, id);
    if (typeof step.on_error === 'object') {
      const target = list.find((s) => s.id === (step.on_error as { goto: string }).goto);
      if (target) w.edge(id, w.idOf(target), 'on error', true);
    }
  }
  return pending;
}

function drawStep(w: MermaidWriter, step: LoadedStep, id: string): Exit[] {
  const lines = stepLines(step);
  switch (step.type) {
    case 'stop':
      w.node(id, 'stadium', lines, 'lfStop');
      return [];
    case 'if': {
      w.node(id, 'diamond', lines, 'lfControl');
      const exits = drawList(w, step.children.then ?? [], [w.exit(id, 'then')]);
      return [...exits, ...drawList(w, step.children.else ?? [], [w.exit(id, 'else')])];
    }
    case 'switch': {
      w.node(id, 'diamond', lines, 'lfControl');
      const exits = mapSlots(step, 'cases').flatMap(([key, list]) => drawList(w, list, [w.exit(id, key)]));
      return [...exits, ...drawList(w, step.children.default ?? [], [w.exit(id, 'default')])];
    }
    case 'parallel': {
      w.node(id, 'hexagon', lines, 'lfControl');
      const branches = mapSlots(step, 'branches').map(([name, list]) => drawList(w, list, [w.exit(id, name)]));
      if (branches.every((exits) => exits.length === 0)) return [];
      const join = w.allocate(`${id}_join`);
      w.node(join, 'circle', ['join']);
      for (const exits of branches) for (const e of exits) w.connect(e, join);
      // A branch that always stops ends the execution once every branch has settled.
      return branches.some((exits) => exits.length === 0) ? [] : [w.exit(join)];
    }
    case 'foreach': {
      w.node(id, 'subroutine', lines, 'lfControl');
      const body = step.children.do ?? [];
      if (body.length > 0) {
        w.openSubgraph(w.allocate(`${id}_body`), `${step.id}: for each item`);
        const exits = drawList(w, body, [w.exit(id, 'each item')]);
        w.closeSubgraph();
        for (const e of exits) w.connect(e, id, 'next item');
      }
      return [w.exit(id, 'done')];
    }
    default: {
      const slots = Object.entries(step.children);
      w.node(id, 'rect', lines);
      if (slots.length === 0) return [w.exit(id)];
      // A control type this renderer does not know: each child list is a labelled branch.
      return slots.flatMap(([slot, list]) => drawList(w, list, [w.exit(id, slot)]));
    }
  }
}

/** What starts the flow: its webhook's method and path, its schedule (`cron 0 9 * * 1-5 America/Sao_Paulo`), or `start`. */
function triggerLabel(flow: LoadedFlow): string {
  const hook = flow.trigger.webhook;
  const schedule = flow.trigger.schedule;
  if (hook) return `${hook.method} ${hook.path}`;
  return schedule ? `cron ${schedule.cron} ${schedule.timezone}` : 'start';
}

/** The Mermaid `flowchart TD` text of `flow`. */
export function flowToMermaid(flow: LoadedFlow): string {
  const w = new MermaidWriter();
  const start = w.allocate('flow_start');
  const end = w.allocate('flow_end');
  w.allocateSteps(flow.steps);
  w.node(start, 'stadium', [flow.name, triggerLabel(flow)], 'lfTrigger');
  const exits = drawList(w, flow.steps, [w.exit(start)]);
  if (exits.length > 0) {
    w.node(end, 'stadium', ['end'], 'lfTrigger');
    for (const e of exits) w.connect(e, end);
  }
  const styles = [
    '  classDef lfTrigger fill:#e8f0fe,stroke:#3367d6',
    '  classDef lfControl fill:#fff4e5,stroke:#e8a33d',
    '  classDef lfStop fill:#fde8e8,stroke:#c0392b',
  ];
  const classLines = [...w.classes].map(([cls, ids]) => `  class ${ids.join(',')} ${cls}`);
  const edges = w.edges.filter((line): line is string => line !== null);
  return ['flowchart TD', ...w.nodes, ...edges, ...styles, ...classLines].join('\n');
}
