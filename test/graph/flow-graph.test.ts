// The graph model of a flow (engine/graph/flow-graph.ts): branches and their joins, parallel fork
// and join, foreach bodies as groups with a loop back, on_error goto edges, stops; on small flows and
// on flows/agent.yaml.
import { describe, expect, it } from 'vitest';
import { type FlowGraph, flowGraph } from '../../engine/graph/flow-graph.js';
import { loadFlowDirectory, loadFlowText } from '../../engine/load/loader.js';
import type { LoadedFlow, LoadedStep } from '../../engine/types.js';
import { defaultRegistry } from '../../nodes/index.js';

const registry = defaultRegistry();

function load(yaml: string): LoadedFlow {
  const result = loadFlowText('graph.yaml', yaml, registry);
  expect(result.problems).toEqual([]);
  return result.flow!;
}

/** `from -label-> to` (label `-` when none; `~>` for error edges, `=>` for loop edges), from one node. */
function out(graph: FlowGraph, from: string): string[] {
  return graph.edges
    .filter((e) => e.from === from)
    .map((e) => `${e.label ?? '-'} ${e.kind === 'error' ? '~>' : e.kind === 'loop' ? '=>' : '->'} ${e.to}`);
}

function node(graph: FlowGraph, id: string) {
  const found = graph.nodes.find((n) => n.id === id);
  expect(found, `node ${id}`).toBeDefined();
  return found!;
}

/** Every edge joins existing nodes; node ids are unique. */
function expectWellFormed(graph: FlowGraph): void {
  const ids = graph.nodes.map((n) => n.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const e of graph.edges) {
    expect(ids, `edge from ${e.from}`).toContain(e.from);
    expect(ids, `edge to ${e.to}`).toContain(e.to);
  }
  for (const n of graph.nodes) if (n.parent) expect(graph.groups.map((g) => g.id)).toContain(n.parent);
}

describe('flowGraph on small flows', () => {
  it('branches an if (then / else) and joins both ends into the next step', () => {
    const graph = flowGraph(
      load(`
name: branches
trigger: { webhook: { path: /b } }
steps:
  - id: check
    type: if
    params: { condition: "{{ trigger.body.ok }}" }
    then: [{ id: yes, type: set, params: { values: { a: 1 } } }]
    else: [{ id: no, type: set, params: { values: { a: 2 } } }]
  - { id: after, type: set, params: { values: { b: 1 } } }
`),
    );
    expectWellFormed(graph);
    expect(node(graph, 'flow_start')).toMatchObject({ kind: 'trigger', label: 'branches', details: ['POST /b'] });
    expect(node(graph, 's_check')).toMatchObject({ kind: 'if', label: 'check', step: 'check', type: 'if', details: ['if'] });
    expect(out(graph, 'flow_start')).toEqual(['- -> s_check']);
    expect(out(graph, 's_check')).toEqual(['then -> s_yes', 'else -> s_no']);
    expect(out(graph, 's_yes')).toEqual(['- -> s_after']);
    expect(out(graph, 's_no')).toEqual(['- -> s_after']);
    expect(out(graph, 's_after')).toEqual(['- -> flow_end']);
    expect(node(graph, 'flow_end').kind).toBe('end');
  });

  it('gives a switch one edge per case and default; an empty case or a missing default goes straight on', () => {
    const graph = flowGraph(
      load(`
name: cases
steps:
  - id: route
    type: switch
    params: { value: "{{ trigger.body.kind }}" }
    cases:
      clinic: [{ id: clinic_note, type: set, params: { values: { a: 1 } } }]
      spa: []
  - { id: after, type: set, params: { values: { b: 1 } } }
`),
    );
    expectWellFormed(graph);
    expect(node(graph, 's_route').kind).toBe('switch');
    expect(out(graph, 's_route')).toEqual(['clinic -> s_clinic_note', 'spa -> s_after', 'default -> s_after']);
    expect(out(graph, 's_clinic_note')).toEqual(['- -> s_after']);
    expect(node(graph, 'flow_start').details).toEqual(['start']);
  });

  it('forks a parallel by branch name and joins the branches in a join node before the next step', () => {
    const graph = flowGraph(
      load(`
name: forked
steps:
  - id: both
    type: parallel
    branches:
      flag: [{ id: mark, type: set, params: { values: { m: true } } }]
      fetch:
        - { id: history, type: set, params: { values: { rows: [] } } }
        - { id: count, type: set, params: { values: { n: 0 } } }
  - { id: after, type: set, params: { values: { b: 1 } } }
`),
    );
    expectWellFormed(graph);
    expect(node(graph, 's_both').kind).toBe('parallel');
    expect(out(graph, 's_both')).toEqual(['flag -> s_mark', 'fetch -> s_history']);
    expect(node(graph, 's_both_join')).toMatchObject({ kind: 'join', label: 'join' });
    expect(out(graph, 's_mark')).toEqual(['- -> s_both_join']);
    expect(out(graph, 's_count')).toEqual(['- -> s_both_join']);
    expect(out(graph, 's_both_join')).toEqual(['- -> s_after']);
    // The join comes after the branches in reading order.
    const order = graph.nodes.map((n) => n.id);
    expect(order.indexOf('s_both_join')).toBeGreaterThan(order.indexOf('s_count'));
    expect(order.indexOf('s_both_join')).toBeLessThan(order.indexOf('s_after'));
  });

  it('puts a foreach body in a group whose ends loop back; done goes on; nested bodies nest', () => {
    const graph = flowGraph(
      load(`
name: looped
steps:
  - id: each
    type: foreach
    params: { items: [1, 2] }
    do:
      - id: check
        type: if
        params: { condition: "{{ item > 1 }}" }
        then: [{ id: note, type: set, params: { values: { a: 1 } } }]
      - id: inner
        type: foreach
        params: { items: [3] }
        do: [{ id: deep, type: set, params: { values: { d: 1 } } }]
  - { id: after, type: set, params: { values: { b: 1 } } }
`),
    );
    expectWellFormed(graph);
    expect(graph.groups).toEqual([
      { id: 's_each_body', label: 'each: for each item', of: 's_each' },
      { id: 's_inner_body', label: 'inner: for each item', of: 's_inner', parent: 's_each_body' },
    ]);
    expect(node(graph, 's_each').parent).toBeUndefined();
    for (const id of ['s_check', 's_note', 's_inner']) expect(node(graph, id).parent).toBe('s_each_body');
    expect(node(graph, 's_deep').parent).toBe('s_inner_body');
    expect(node(graph, 's_after').parent).toBeUndefined();
    expect(out(graph, 's_each')).toEqual(['each item -> s_check', 'done -> s_after']);
    expect(out(graph, 's_check')).toEqual(['then -> s_note', 'else -> s_inner']);
    expect(out(graph, 's_inner')).toEqual(['each item -> s_deep', 'done => s_each']);
    expect(out(graph, 's_deep')).toEqual(['next item => s_inner']);
  });

  it('draws on_error goto as an error edge besides the normal one, and on_error continue in the details', () => {
    const graph = flowGraph(
      load(`
name: recovering
steps:
  - id: send
    type: http.request
    params: { url: "https://gw.example/x" }
    on_error: { goto: fallback }
  - id: finish
    type: http.request
    name: Last try
    params: { url: "https://gw.example/y" }
    on_error: continue
  - { id: fallback, type: set, params: { values: { ok: false } } }
`),
    );
    expectWellFormed(graph);
    expect(out(graph, 's_send')).toEqual(['- -> s_finish', 'on error ~> s_fallback']);
    expect(node(graph, 's_finish').details).toEqual(['http.request', 'Last try', 'on error: continue']);
  });

  it('ends a path at a stop (its reason in the details) and has no end node when every path stops', () => {
    const graph = flowGraph(
      load(`
name: halt
trigger: { schedule: { cron: "0 9 * * 1-5", timezone: America/Sao_Paulo } }
steps:
  - id: check
    type: if
    params: { condition: true }
    then: [{ id: yes_stop, type: stop, params: { reason: known lead } }]
    else: [{ id: no_stop, type: stop, params: { reason: b } }]
`),
    );
    expectWellFormed(graph);
    expect(node(graph, 'flow_start').details).toEqual(['cron 0 9 * * 1-5 America/Sao_Paulo']);
    expect(node(graph, 's_yes_stop')).toMatchObject({ kind: 'stop', details: ['stop', 'known lead'] });
    expect(out(graph, 's_yes_stop')).toEqual([]);
    expect(out(graph, 's_no_stop')).toEqual([]);
    expect(graph.nodes.some((n) => n.kind === 'end')).toBe(false);
  });

  it('ends the flow after a parallel with a branch that always stops', () => {
    const graph = flowGraph(
      load(`
name: forked
steps:
  - id: fork
    type: parallel
    branches:
      quit: [{ id: halt, type: stop, params: { reason: done } }]
      work: [{ id: job, type: set, params: { values: { a: 1 } } }]
  - { id: after, type: set, params: { values: { a: 2 } } }
`),
    );
    expect(out(graph, 's_job')).toEqual(['- -> s_fork_join']);
    expect(out(graph, 's_fork_join')).toEqual([]);
    expect(graph.edges.some((e) => e.to === 's_after')).toBe(false);
  });
});

describe('flowGraph on flows/agent.yaml', () => {
  const { flows, problems } = loadFlowDirectory('flows', registry);
  const agent = flows.get('agent')!;
  const graph = flowGraph(agent);
  const steps = (list: LoadedStep[]): LoadedStep[] => list.flatMap((s) => [s, ...Object.values(s.children).flatMap(steps)]);

  it('loads, and has one node per step plus trigger and end, every edge between nodes', () => {
    expect(problems).toEqual([]);
    expectWellFormed(graph);
    const all = steps(agent.steps);
    expect(graph.nodes.filter((n) => n.step !== undefined).map((n) => n.step)).toEqual(all.map((s) => s.id));
    // the main route, then one per provider route (`trigger.webhook.routes`)
    expect(graph.nodes[0]).toMatchObject({
      kind: 'trigger',
      label: 'agent',
      details: [expect.stringMatching(/^POST \/leadagent(, POST \/leadagent\/[a-z]+)*$/)],
    });
    expect(graph.nodes[0]!.details![0]).toContain('POST /leadagent/evolution');
    expect(graph.nodes.at(-1)?.kind).toBe('end');
  });

  it('branches the command switch by its cases and default, and the takeover if by then / else', () => {
    const command = steps(agent.steps).find((s) => s.id === 'command')!;
    const cases = Object.keys(command.children)
      .filter((k) => k.startsWith('cases.'))
      .map((k) => k.slice('cases.'.length));
    expect(cases.length).toBeGreaterThan(1);
    expect(node(graph, 's_command').kind).toBe('switch');
    expect(graph.edges.filter((e) => e.from === 's_command').map((e) => e.label)).toEqual([...cases, 'default']);
    expect(node(graph, 's_takeover').kind).toBe('if');
    expect(graph.edges.filter((e) => e.from === 's_takeover').map((e) => e.label)).toEqual(['then', 'else']);
  });

  it('draws every stop as a dead end and the foreach over the burst as a group looping back', () => {
    for (const stop of graph.nodes.filter((n) => n.kind === 'stop')) expect(out(graph, stop.id)).toEqual([]);
    const loops = graph.groups.map((g) => g.of);
    expect(loops.length).toBeGreaterThan(0);
    for (const of of loops) {
      expect(node(graph, of).kind).toBe('foreach');
      const back = graph.edges.filter((e) => e.to === of && e.kind === 'loop');
      expect(back.length).toBeGreaterThan(0);
      for (const e of back) expect(node(graph, e.from).parent).toBeDefined();
      expect(graph.edges.filter((e) => e.from === of).map((e) => e.label)).toEqual(['each item', 'done']);
    }
  });
});
