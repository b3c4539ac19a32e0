// The console's flow endpoints (GET /admin/flows, GET /admin/flows/:name) on the in-process stack:
// authentication, the list, the agent flow's graph and a step's raw params and `file:line` (the line
// found by searching flows/agent.yaml), 404 / 422; and, with the flows directory watched as
// `serve --watch` watches it, a broken file's problem listed with `file:line:col` until it is removed.
// These endpoints read the engine and the latest load, not the database: the embedded backend only.
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowDetailResponse, FlowsResponse } from '../../console/server/api-types.js';
import { type Stack, startStack } from '../e2e/stack.js';
import { ADMIN_TOKEN, signIn, type SignedIn, withBearer, withSession } from './support.js';

const AGENT_FILE = 'flows/agent.yaml';

/** 1-based line of `- id: <step>` in `text`. */
function stepLine(text: string, step: string): number {
  const index = text.split('\n').findIndex((line) => new RegExp(`^\\s*- id: ${step}\\s*$`).test(line));
  expect(index, `step ${step} in the YAML`).toBeGreaterThanOrEqual(0);
  return index + 1;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('console flows', () => {
  let stack: Stack;
  let session: SignedIn;
  beforeAll(async () => {
    stack = await startStack({ env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
    session = await signIn(stack);
  });
  afterAll(() => stack?.close());

  const get = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const res = await withSession(stack, session, path);
    return { status: res.status, body: (await res.json()) as T };
  };

  it('answers only with a session or the bearer token', async () => {
    expect((await fetch(`${stack.url}/admin/flows`)).status).toBe(401);
    expect((await fetch(`${stack.url}/admin/flows/agent`)).status).toBe(401);
    expect((await withBearer(stack, '/admin/flows')).status).toBe(200);
    expect((await withBearer(stack, '/admin/flows/agent')).status).toBe(200);
  });

  it('lists every served flow by name, with its file, version, trigger and step count, and no problems', async () => {
    const { status, body } = await get<FlowsResponse>('/admin/flows');
    expect(status).toBe(200);
    const served = stack.engine.listFlows();
    expect(body.flows.map((f) => f.name)).toEqual(served.map((f) => f.name).sort());
    const agent = body.flows.find((f) => f.name === 'agent')!;
    expect(agent).toMatchObject({
      file: AGENT_FILE,
      version: stack.engine.getFlow('agent')!.sourceHash,
      trigger: { kind: 'webhook', method: 'POST', path: '/leadagent' },
    });
    expect(agent.steps).toBe((readFileSync(AGENT_FILE, 'utf8').match(/^\s*- id: /gm) ?? []).length);
    expect(body.flows.find((f) => f.name === 'lead-action')?.trigger).toEqual({ kind: 'none' });
    expect(body.problems).toEqual([]);
    expect(Date.parse(body.loaded_at)).not.toBeNaN();
  });

  it("gives the agent flow's graph with its branches, and each step's raw params and file:line", async () => {
    const { status, body } = await get<FlowDetailResponse>('/admin/flows/agent');
    expect(status).toBe(200);
    expect(body.flow.name).toBe('agent');
    const { nodes, edges } = body.graph;
    expect(nodes.find((n) => n.id === 's_takeover')).toMatchObject({ kind: 'if', label: 'takeover', type: 'if' });
    expect(edges.filter((e) => e.from === 's_takeover').map((e) => e.label)).toEqual(['then', 'else']);
    expect(nodes.find((n) => n.id === 's_command')?.kind).toBe('switch');
    expect(edges.filter((e) => e.from === 's_command').map((e) => e.label)).toEqual(['reset', 'excluir', 'destrans', 'default']);
    expect(body.graph.groups.map((g) => g.of)).toContain('s_parts');
    expect(edges.some((e) => e.to === 's_parts' && e.kind === 'loop')).toBe(true);

    const text = readFileSync(AGENT_FILE, 'utf8');
    const takeover = body.steps.find((s) => s.id === 'takeover')!;
    expect(takeover).toMatchObject({
      node: 's_takeover',
      type: 'if',
      file: AGENT_FILE,
      line: stepLine(text, 'takeover'),
      params: { condition: '{{ steps.sender.operator }}' },
      retry: null,
      on_error: null,
    });
    const download = body.steps.find((s) => s.id === 'download')!;
    expect(download).toMatchObject({ line: stepLine(text, 'download'), on_error: 'continue' });
    // Every step of the file, in reading order, each on its own `- id:` line.
    expect(body.steps.map((s) => s.line)).toEqual(body.steps.map((s) => stepLine(text, s.id)));
    expect(body.steps.every((s) => nodes.some((n) => n.id === s.node && n.step === s.id))).toBe(true);
  });

  it('answers 404 for an unknown flow and 422 for a malformed name', async () => {
    const unknown = await get<{ error: string }>('/admin/flows/no-such-flow');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('no such flow');
    for (const bad of ['Agent', '1agent', 'agent.yaml', `a${'b'.repeat(100)}`, '%20agent']) {
      const res = await get<{ error: string; details: Array<{ path: string; message: string }> }>(`/admin/flows/${bad}`);
      expect(res.status, bad).toBe(422);
      expect(res.body.details.map((d) => d.path)).toEqual(['name']);
      expect(res.body.details[0]!.message).toMatch(/flow name/);
    }
  });
});

describe('console flows: a watched flows directory with a broken file', () => {
  let stack: Stack;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leadflow-flows-'));
    cpSync('flows', dir, { recursive: true });
    stack = await startStack({ env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN }, flowsDir: dir, watchFlows: true });
  });
  afterAll(async () => {
    await stack?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const list = async () => (await (await withBearer(stack, '/admin/flows')).json()) as FlowsResponse;

  it("lists the broken file's problem with file:line:col while the previous flows keep serving, and clears it when the file goes", async () => {
    expect((await list()).problems).toEqual([]);
    const broken = join(dir, 'broken.yaml');
    const text = 'name: broken\nsteps:\n  - id: first\n    type: no.such.node\n';
    writeFileSync(broken, text);
    const problems = await until('the problem listed', async () => {
      const body = await list();
      return body.problems.length > 0 ? body.problems : undefined;
    });
    expect(problems).toEqual([
      {
        file: relative(process.cwd(), broken),
        line: 4,
        col: text.split('\n')[3]!.indexOf('no.such.node') + 1,
        code: 'unknown-node-type',
        message: expect.stringContaining('no.such.node'),
      },
    ]);
    const served = await list();
    expect(served.flows.map((f) => f.name)).toContain('agent');
    expect(served.flows.map((f) => f.name)).not.toContain('broken');

    unlinkSync(broken);
    await until('the problem cleared', async () => ((await list()).problems.length === 0 ? true : undefined));
  });
});
