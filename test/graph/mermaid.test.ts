import { describe, expect, it } from 'vitest';
import { escapeLabel, flowToMermaid } from '../../engine/graph/mermaid.js';
import { loadFlowText } from '../../engine/load/loader.js';
import type { LoadedFlow } from '../../engine/types.js';
import { defaultRegistry } from '../../nodes/index.js';

const registry = defaultRegistry();

function load(yaml: string): LoadedFlow {
  const result = loadFlowText('graph.yaml', yaml, registry);
  expect(result.problems).toEqual([]);
  return result.flow!;
}

interface Edge {
  from: string;
  to: string;
  label: string | undefined;
  dotted: boolean;
}

const ID = '[A-Za-z0-9_]+';
const LABEL = '[^"]*';
const NODE = new RegExp(
  `^\\s+(${ID})(\\["${LABEL}"\\]|\\{"${LABEL}"\\}|\\(\\["${LABEL}"\\]\\)|\\{\\{"${LABEL}"\\}\\}|\\[\\["${LABEL}"\\]\\]|\\(\\("${LABEL}"\\)\\))$`,
);
const EDGE = new RegExp(`^  (${ID}) (-->|-\\.->)(?:\\|"(${LABEL})"\\|)? (${ID})$`);
const SUBGRAPH = new RegExp(`^\\s+subgraph (${ID})\\["${LABEL}"\\]$`);
const OTHER = [/^flowchart TD$/, /^\s+end$/, /^ {2}classDef [A-Za-z]+ [^\s]+$/, new RegExp(`^  class ${ID}(,${ID})* [A-Za-z]+$`)];

/**
 * Loose syntax check without Mermaid: every line is a header, node, edge, subgraph, end or style
 * line; every edge joins declared nodes; subgraphs are balanced; labels hold no raw quote.
 */
function parseMermaid(text: string): { nodes: Map<string, string>; edges: Edge[] } {
  const nodes = new Map<string, string>();
  const edges: Edge[] = [];
  let open = 0;
  const lines = text.split('\n');
  expect(lines[0]).toBe('flowchart TD');
  for (const line of lines) {
    const node = NODE.exec(line);
    const edge = EDGE.exec(line);
    if (node) {
      expect(nodes.has(node[1]!), `node ${node[1]} declared twice`).toBe(false);
      nodes.set(node[1]!, node[2]!);
    } else if (edge) {
      edges.push({ from: edge[1]!, to: edge[4]!, label: edge[3], dotted: edge[2] === '-.->' });
    } else if (SUBGRAPH.test(line)) {
      open++;
    } else if (/^\s+end$/.test(line)) {
      open--;
      expect(open).toBeGreaterThanOrEqual(0);
    } else {
      expect(
        OTHER.some((re) => re.test(line)),
        `unexpected line: ${line}`,
      ).toBe(true);
    }
  }
  expect(open).toBe(0);
  for (const e of edges) {
    expect(nodes.has(e.from), `edge from undeclared ${e.from}`).toBe(true);
    expect(nodes.has(e.to), `edge to undeclared ${e.to}`).toBe(true);
  }
  return { nodes, edges };
}

function edgesFrom(edges: Edge[], from: string): Edge[] {
  return edges.filter((e) => e.from === from);
}

const CONTROL_FLOW = `
name: intake
trigger:
  webhook: { path: /form/intake }
steps:
  - id: lookup
    type: set
    params: { values: { found: false } }
  - id: known
    type: if
    params: { condition: "{{ steps.lookup.found }}" }
    then:
      - id: already
        type: stop
        params: { reason: known lead }
  - id: route
    type: switch
    params: { value: "{{ trigger.body.kind }}" }
    cases:
      clinic:
        - id: clinic_note
          type: set
          params: { values: { a: 1 } }
      spa: []
    default:
      - id: other_note
        type: set
        params: { values: { a: 2 } }
  - id: both
    type: parallel
    branches:
      flag:
        - id: mark
          type: set
          params: { values: { m: true } }
      fetch:
        - id: history
          type: set
          params: { values: { rows: [] } }
  - id: each
    type: foreach
    params: { items: [1, 2] }
    do:
      - id: post
        type: http.request
        params: { method: POST, url: "https://gw.example/send/text" }
        on_error: continue
  - id: send
    type: http.request
    params: { url: "https://gw.example/x" }
    on_error: { goto: fallback }
  - id: finish
    type: set
    params: { values: { ok: true } }
  - id: fallback
    type: set
    params: { values: { ok: false } }
`;

describe('flowToMermaid', () => {
  const text = flowToMermaid(load(CONTROL_FLOW));
  const { nodes, edges } = parseMermaid(text);

  it('starts with the trigger and draws one labelled node per step', () => {
    expect(nodes.get('flow_start')).toBe('(["intake<br/>POST /form/intake"])');
    expect(edgesFrom(edges, 'flow_start')).toEqual([{ from: 'flow_start', to: 's_lookup', label: undefined, dotted: false }]);
    expect(nodes.get('s_lookup')).toBe('["lookup<br/>set"]');
    expect(nodes.get('s_send')).toBe('["send<br/>http.request"]');
    for (const id of [
      'lookup',
      'known',
      'already',
      'route',
      'clinic_note',
      'other_note',
      'both',
      'mark',
      'history',
      'each',
      'post',
      'send',
      'finish',
      'fallback',
    ]) {
      expect(nodes.has(`s_${id}`), id).toBe(true);
    }
  });

  it('draws if as a diamond; a missing else goes straight to the next step', () => {
    expect(nodes.get('s_known')).toMatch(/^\{"known<br\/>if"\}$/);
    expect(edgesFrom(edges, 's_known')).toEqual([
      { from: 's_known', to: 's_already', label: 'then', dotted: false },
      { from: 's_known', to: 's_route', label: 'else', dotted: false },
    ]);
  });

  it('draws stop as a terminal node with no edge onwards', () => {
    expect(nodes.get('s_already')).toBe('(["already<br/>stop<br/>known lead"])');
    expect(edgesFrom(edges, 's_already')).toEqual([]);
  });

  it('draws switch with one edge per case and default; case ends join the next step', () => {
    expect(nodes.get('s_route')).toMatch(/^\{"/);
    expect(edgesFrom(edges, 's_route').map((e) => [e.label, e.to])).toEqual([
      ['clinic', 's_clinic_note'],
      ['spa', 's_both'],
      ['default', 's_other_note'],
    ]);
    expect(edgesFrom(edges, 's_clinic_note').map((e) => e.to)).toEqual(['s_both']);
    expect(edgesFrom(edges, 's_other_note').map((e) => e.to)).toEqual(['s_both']);
  });

  it('forks parallel branches by name and joins them before the next step', () => {
    expect(edgesFrom(edges, 's_both').map((e) => [e.label, e.to])).toEqual([
      ['flag', 's_mark'],
      ['fetch', 's_history'],
    ]);
    expect(nodes.get('s_both_join')).toBe('(("join"))');
    expect(edgesFrom(edges, 's_mark').map((e) => e.to)).toEqual(['s_both_join']);
    expect(edgesFrom(edges, 's_history').map((e) => e.to)).toEqual(['s_both_join']);
    expect(edgesFrom(edges, 's_both_join').map((e) => e.to)).toEqual(['s_each']);
  });

  it('draws foreach with its body in a subgraph and a loop back', () => {
    const lines = text.split('\n');
    const open = lines.findIndex((l) => /subgraph s_each_body\[/.test(l));
    expect(open).toBeGreaterThan(0);
    expect(lines[open + 1]).toMatch(/^\s+s_post\[/);
    expect(lines[open + 2]).toMatch(/^\s+end$/);
    expect(edgesFrom(edges, 's_each').map((e) => [e.label, e.to])).toEqual([
      ['each item', 's_post'],
      ['done', 's_send'],
    ]);
    expect(edgesFrom(edges, 's_post').map((e) => [e.label, e.to])).toEqual([['next item', 's_each']]);
    expect(nodes.get('s_post')).toContain('on error: continue');
  });

  it('draws on_error goto as a dotted edge labelled on error, besides the normal edge', () => {
    expect(edgesFrom(edges, 's_send')).toEqual([
      { from: 's_send', to: 's_finish', label: undefined, dotted: false },
      { from: 's_send', to: 's_fallback', label: 'on error', dotted: true },
    ]);
  });

  it('ends at an end node after the last step, every edge in reading order', () => {
    expect(nodes.get('flow_end')).toBe('(["end"])');
    expect(edges.map((e) => `${e.from} ${e.dotted ? '-.->' : '-->'}${e.label ? `|${e.label}|` : ''} ${e.to}`)).toEqual([
      'flow_start --> s_lookup',
      's_lookup --> s_known',
      's_known -->|then| s_already',
      's_known -->|else| s_route',
      's_route -->|clinic| s_clinic_note',
      's_clinic_note --> s_both',
      's_route -->|spa| s_both',
      's_route -->|default| s_other_note',
      's_other_note --> s_both',
      's_both -->|flag| s_mark',
      's_mark --> s_both_join',
      's_both -->|fetch| s_history',
      's_history --> s_both_join',
      's_both_join --> s_each',
      's_each -->|each item| s_post',
      's_post -->|next item| s_each',
      's_each -->|done| s_send',
      's_send --> s_finish',
      's_send -.->|on error| s_fallback',
      's_finish --> s_fallback',
      's_fallback --> flow_end',
    ]);
  });

  it('marks control, stop and trigger nodes with style classes', () => {
    expect(text).toContain('  class s_known,s_route,s_both,s_each lfControl');
    expect(text).toContain('  class s_already lfStop');
    expect(text).toContain('  class flow_start,flow_end lfTrigger');
  });

  it('has no end node when every path stops', () => {
    const flow = load(`
name: halt
steps:
  - id: check
    type: if
    params: { condition: true }
    then: [{ id: yes_stop, type: stop, params: { reason: a } }]
    else: [{ id: no_stop, type: stop, params: { reason: b } }]
`);
    const { nodes: n, edges: e } = parseMermaid(flowToMermaid(flow));
    expect(n.get('flow_start')).toBe('(["halt<br/>start"])');
    expect(n.has('flow_end')).toBe(false);
    expect(edgesFrom(e, 'yes_stop')).toEqual([]);
    expect(e.map((x) => x.label)).toEqual([undefined, 'then', 'else']);
  });

  it('does not continue after a parallel with a branch that always stops', () => {
    const flow = load(`
name: forked
steps:
  - id: fork
    type: parallel
    branches:
      quit: [{ id: halt, type: stop, params: { reason: done } }]
      work: [{ id: job, type: set, params: { values: { a: 1 } } }]
  - id: after
    type: set
    params: { values: { a: 2 } }
`);
    const { nodes: n, edges: e } = parseMermaid(flowToMermaid(flow));
    expect(edgesFrom(e, 's_job').map((x) => x.to)).toEqual(['s_fork_join']);
    expect(edgesFrom(e, 's_halt')).toEqual([]);
    expect(edgesFrom(e, 's_fork_join')).toEqual([]);
    expect(e.some((x) => x.to === 's_after')).toBe(false);
    expect(n.has('s_after')).toBe(true);
  });

  it('loops a foreach body back from each end of a branch inside it', () => {
    const flow = load(`
name: looped
steps:
  - id: each
    type: foreach
    params: { items: [1] }
    do:
      - id: check
        type: if
        params: { condition: "{{ item > 0 }}" }
        then: [{ id: note, type: set, params: { values: { a: 1 } } }]
`);
    const { edges: e } = parseMermaid(flowToMermaid(flow));
    expect(edgesFrom(e, 's_note').map((x) => [x.label, x.to])).toEqual([['next item', 's_each']]);
    expect(edgesFrom(e, 's_check').map((x) => [x.label, x.to])).toEqual([
      ['then', 's_note'],
      ['else', 's_each'],
    ]);
    expect(edgesFrom(e, 's_each').map((x) => [x.label, x.to])).toEqual([
      ['each item', 's_check'],
      ['done', 'flow_end'],
    ]);
  });

  it('escapes quotes and brackets in names and case keys', () => {
    const flow = load(`
name: odd
steps:
  - id: pick
    type: switch
    name: 'Say "hi" [now] {x} (y) | #1 <b>'
    params: { value: "{{ trigger.body.k }}" }
    cases:
      'a "b" [c]|d':
        - { id: inner, type: set, params: { values: { v: 1 } } }
`);
    const out = flowToMermaid(flow);
    const { nodes: n, edges: e } = parseMermaid(out);
    expect(n.get('s_pick')).toBe('{"pick<br/>switch<br/>Say #quot;hi#quot; #91;now#93; #123;x#125; #40;y#41; #124; #35;1 #lt;b#gt;"}');
    expect(e.find((x) => x.to === 's_inner')?.label).toBe('a #quot;b#quot; #91;c#93;#124;d');
    expect(escapeLabel('a\nb')).toBe('a b');
  });

  it('keeps node ids safe and unique', () => {
    const flow = load(`
name: ids
steps:
  - { id: flow_start, type: set, params: { values: { a: 1 } } }
  - { id: a_join, type: set, params: { values: { a: 1 } } }
  - id: a
    type: parallel
    branches:
      x: [{ id: b, type: set, params: { values: { a: 1 } } }]
`);
    // Hand-made duplicates and unsafe characters (a loaded flow never has them, the renderer copes anyway).
    flow.steps.push({ ...flow.steps[0]!, id: 'flow start!' }, { ...flow.steps[0]!, id: 'flow_start' });
    const { nodes: n } = parseMermaid(flowToMermaid(flow));
    expect([...n.keys()].sort()).toEqual(
      ['flow_end', 'flow_start', 's_a', 's_a_join', 's_a_join_2', 's_b', 's_flow_start', 's_flow_start_2', 's_flow_start_'].sort(),
    );
  });
});
