// A loaded flow as a graph of nodes and edges, read top to bottom like the YAML: the one traversal
// behind `leadflow graph` (Mermaid text, ./mermaid.ts) and the console's Flows page (SVG). Knows
// flows and node types, nothing of any domain.
//
// Nodes: the trigger first, then the steps in reading order (a `parallel`'s join node after its
// branches), then the end node when some path reaches the end of the flow. Node ids are
// `s_<step id>` made safe (only [A-Za-z0-9_]) and unique; `flow_start` and `flow_end` are the
// trigger and the end; `<parallel id>_join` and `<foreach id>_body` (a group) are derived.
// Edges, in reading order: from each step to the next; branch edges carry the branch label
// (`then`, `else`, case key, `default`, branch name, `each item`, `done`); the ends of a control
// step's branches all join into the step after it; a foreach body's ends loop back to the foreach
// (kind `loop`, label `next item`); `on_error: {goto}` adds an `error` edge labelled `on error`.
// A `stop` has no edge onwards; a `parallel` with a branch that always stops ends the flow once its
// branches settle (its join has no edge onwards); a `parallel` whose every branch stops has no join.
// A foreach with a non-empty body has a group holding the body's nodes (`parent` of each node).
import { type LoadedFlow, type LoadedStep, webhookRoutes } from '../types.js';

/** What a node stands for: the trigger, the end, a plain step, a control step, or a parallel's join. */
export type FlowNodeKind = 'trigger' | 'step' | 'if' | 'switch' | 'parallel' | 'join' | 'foreach' | 'stop' | 'end';

/** `normal`: the flow goes on; `error`: where `on_error: {goto}` jumps; `loop`: back to a foreach for its next item. */
export type FlowEdgeKind = 'normal' | 'error' | 'loop';

/** A node: the trigger, a step, a parallel's join, or the end. */
export interface FlowGraphNode {
  /** Unique and safe ([A-Za-z0-9_]). */
  id: string;
  kind: FlowNodeKind;
  /** The first line: the step id; the flow's name (trigger); `join`; `end`. */
  label: string;
  /** Further lines: the step's type, then its name (or a stop's reason), then `on error: continue`; the trigger's summary. */
  details: string[];
  /** The step's id (step nodes only). */
  step?: string;
  /** The step's node type (step nodes only). */
  type?: string;
  /** The group (foreach body) the node sits in, when it does. */
  parent?: string;
}

/** A foreach body: the nodes whose `parent` is its id. */
export interface FlowGraphGroup {
  id: string;
  /** `<foreach step id>: for each item`. */
  label: string;
  /** The node of the foreach step whose body this is. */
  of: string;
  /** The enclosing group, for a foreach inside another's body. */
  parent?: string;
}

/** An edge between two nodes, with its branch label when it has one. */
export interface FlowGraphEdge {
  from: string;
  to: string;
  label?: string;
  kind: FlowEdgeKind;
}

/** A flow's graph: what `flowGraph` gives. */
export interface FlowGraph {
  /** In reading order (the order `leadflow graph` declares them). */
  nodes: FlowGraphNode[];
  /** In reading order. */
  edges: FlowGraphEdge[];
  /** Foreach bodies, outer before inner. */
  groups: FlowGraphGroup[];
}

/** A pending edge: its source, its label, and the place in the edge list reserved for it when it was created. */
interface Exit {
  from: string;
  label?: string;
  slot: number;
}

const CONTROL_KINDS: Partial<Record<string, FlowNodeKind>> = {
  if: 'if',
  switch: 'switch',
  parallel: 'parallel',
  foreach: 'foreach',
  stop: 'stop',
};

class GraphBuilder {
  private readonly used = new Set<string>();
  private readonly stepIds = new Map<LoadedStep, string>();
  readonly nodes: FlowGraphNode[] = [];
  /** Edges in reading order; null marks a reserved slot whose target never came (a dropped exit). */
  readonly edges: Array<FlowGraphEdge | null> = [];
  readonly groups: FlowGraphGroup[] = [];
  /** The innermost open group. */
  private group: string | undefined;

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

  node(node: Omit<FlowGraphNode, 'parent'>): void {
    this.nodes.push(this.group ? { ...node, parent: this.group } : node);
  }

  edge(from: string, to: string, label: string | undefined, kind: FlowEdgeKind): void {
    this.edges.push({ from, to, ...(label !== undefined ? { label } : {}), kind });
  }

  /** An exit of `from` whose edge keeps its place in the reading order until its target is known. */
  exit(from: string, label?: string): Exit {
    this.edges.push(null);
    return { from, label, slot: this.edges.length - 1 };
  }

  connect(exit: Exit, to: string, fallbackLabel?: string, kind: FlowEdgeKind = 'normal'): void {
    const label = exit.label ?? fallbackLabel;
    this.edges[exit.slot] = { from: exit.from, to, ...(label !== undefined ? { label } : {}), kind };
  }

  /** Runs `draw` with a new group (of the foreach node `of`) open; returns what `draw` returns. */
  inGroup<T>(of: string, label: string, draw: () => T): T {
    const outer = this.group;
    const id = this.allocate(`${of}_body`);
    this.groups.push({ id, label, of, ...(outer ? { parent: outer } : {}) });
    this.group = id;
    try {
      return draw();
    } finally {
      this.group = outer;
    }
  }
}

/** The lines under a step's id: its type, its name (or a stop's reason), `on error: continue`. */
function stepDetails(step: LoadedStep): string[] {
  const lines = [step.type];
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
function drawList(g: GraphBuilder, list: LoadedStep[], entries: Exit[]): Exit[] {
  let pending = entries;
  for (const step of list) {
    const id = g.idOf(step);
    for (const e of pending) g.connect(e, id);
    pending = drawStep(g, step, id);
    if (typeof step.on_error === 'object') {
      const target = list.find((s) => s.id === (step.on_error as { goto: string }).goto);
      if (target) g.edge(id, g.idOf(target), 'on error', 'error');
    }
  }
  return pending;
}

function drawStep(g: GraphBuilder, step: LoadedStep, id: string): Exit[] {
  const kind = CONTROL_KINDS[step.type] ?? 'step';
  g.node({ id, kind, label: step.id, details: stepDetails(step), step: step.id, type: step.type });
  switch (kind) {
    case 'stop':
      return [];
    case 'if': {
      const exits = drawList(g, step.children.then ?? [], [g.exit(id, 'then')]);
      return [...exits, ...drawList(g, step.children.else ?? [], [g.exit(id, 'else')])];
    }
    case 'switch': {
      const exits = mapSlots(step, 'cases').flatMap(([key, list]) => drawList(g, list, [g.exit(id, key)]));
      return [...exits, ...drawList(g, step.children.default ?? [], [g.exit(id, 'default')])];
    }
    case 'parallel': {
      const branches = mapSlots(step, 'branches').map(([name, list]) => drawList(g, list, [g.exit(id, name)]));
      if (branches.every((exits) => exits.length === 0)) return [];
      const join = g.allocate(`${id}_join`);
      g.node({ id: join, kind: 'join', label: 'join', details: [] });
      for (const exits of branches) for (const e of exits) g.connect(e, join);
      // A branch that always stops ends the execution once every branch has settled.
      return branches.some((exits) => exits.length === 0) ? [] : [g.exit(join)];
    }
    case 'foreach': {
      const body = step.children.do ?? [];
      if (body.length > 0) {
        const exits = g.inGroup(id, `${step.id}: for each item`, () => drawList(g, body, [g.exit(id, 'each item')]));
        for (const e of exits) g.connect(e, id, 'next item', 'loop');
      }
      return [g.exit(id, 'done')];
    }
    default: {
      const slots = Object.entries(step.children);
      if (slots.length === 0) return [g.exit(id)];
      // A control type without a shape of its own (e.g. `lock`): each child list is a labelled branch.
      return slots.flatMap(([slot, list]) => drawList(g, list, [g.exit(id, slot)]));
    }
  }
}

/**
 * What starts the flow: its webhook's method and path (each route, joined by `, `, when it has
 * `routes`), its schedule (`cron 0 9 * * 1-5 America/Sao_Paulo`), or `start`.
 */
export function triggerLabel(flow: LoadedFlow): string {
  const hook = flow.trigger.webhook;
  const schedule = flow.trigger.schedule;
  if (hook)
    return webhookRoutes(hook)
      .map((r) => `${r.method} ${r.path}`)
      .join(', ');
  return schedule ? `cron ${schedule.cron} ${schedule.timezone}` : 'start';
}

/** The graph of `flow`. Never throws. */
export function flowGraph(flow: LoadedFlow): FlowGraph {
  const g = new GraphBuilder();
  const start = g.allocate('flow_start');
  const end = g.allocate('flow_end');
  g.allocateSteps(flow.steps);
  g.node({ id: start, kind: 'trigger', label: flow.name, details: [triggerLabel(flow)] });
  const exits = drawList(g, flow.steps, [g.exit(start)]);
  if (exits.length > 0) {
    g.node({ id: end, kind: 'end', label: 'end', details: [] });
    for (const e of exits) g.connect(e, end);
  }
  const edges = g.edges.filter((edge): edge is FlowGraphEdge => edge !== null);
  return { nodes: g.nodes, edges, groups: g.groups };
}
