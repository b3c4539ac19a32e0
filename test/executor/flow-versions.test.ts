// Pinned flow versions in one process: an execution records the version it started on and finishes
// on it after the flow is edited (setFlows) or in another engine serving another file on the same
// store; a version that is not stored or no longer loads fails its execution with the reason; a
// record without a version runs on the current flow. Versions include the files a flow reads.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { loadFlowFile } from '../../engine/load/loader.js';
import { NodeRegistry } from '../../engine/registry.js';
import { MemoryExecutionStore } from '../../engine/store/memory-store.js';
import { defineNode, type ExecutionRecord, type LoadedFlow } from '../../engine/types.js';
import { coreNodes } from '../../nodes/index.js';
import { loadFlow, shutdownEngines, waitForEnd } from '../helpers/run-flow.js';

const engines: Engine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.shutdown()));
  await shutdownEngines();
});

const V1 = `
name: paused
steps:
  - { id: a, type: set, params: { values: { from: old } } }
  - { id: pause, type: wait, params: { ms: 150 } }
  - { id: b, type: set, params: { values: { from: old } } }
`;
const V2 = `
name: paused
steps:
  - { id: first, type: set, params: { values: { from: new } } }
  - { id: pause2, type: wait, params: { ms: 10 } }
  - { id: b, type: set, params: { values: { from: new } } }
`;

/** Test only: a node type a later build of the code no longer has. */
const retired = defineNode({
  type: 'test.retired',
  description: 'Test only: outputs {ok: true}; missing from the second registry of these tests.',
  params: Type.Object({}, { additionalProperties: false }),
  output: { description: '`{ok: true}`.' },
  examples: [{ title: 'Retired', step: { type: 'test.retired', params: {} } }],
  async run() {
    return { ok: true };
  },
});

function engineOf(flow: LoadedFlow, store: MemoryExecutionStore, registry?: NodeRegistry): Engine {
  const engine = new Engine({ registry: registry ?? new NodeRegistry(coreNodes), flows: new Map([[flow.name, flow]]), store });
  engines.push(engine);
  return engine;
}

const keys = (r: ExecutionRecord) => r.steps.map((s) => s.key);
const outputOf = (r: ExecutionRecord, key: string) => r.steps.find((s) => s.key === key)?.output;

describe('pinned flow versions', () => {
  it('a waiting execution finishes on its version after an edit; a new one runs the new version', async () => {
    const v1 = loadFlow(V1);
    const v2 = loadFlow(V2);
    expect(v1.sourceHash).not.toBe(v2.sourceHash);
    const engine = engineOf(v1, new MemoryExecutionStore());
    await engine.startScheduler();
    const old = await engine.start('paused', { body: {} });
    expect((await old.settled).status).toBe('waiting');
    engine.setFlows(new Map([['paused', v2]]));
    const done = await waitForEnd(engine, old.id);
    expect(done.status).toBe('success');
    expect(done.flow_version).toBe(v1.sourceHash);
    expect(keys(done)).toEqual(['a', 'pause', 'b']);
    expect(outputOf(done, 'b')).toEqual({ from: 'old' });
    const fresh = await waitForEnd(engine, (await engine.start('paused', { body: {} })).id);
    expect(fresh.flow_version).toBe(v2.sourceHash);
    expect(keys(fresh)).toEqual(['first', 'pause2', 'b']);
  });

  it('another engine serving another file resumes it on the stored version', async () => {
    const store = new MemoryExecutionStore();
    const v1 = loadFlow(V1);
    const first = engineOf(v1, store);
    const handle = await first.start('paused', { body: {} });
    expect((await handle.settled).status).toBe('waiting');
    await first.shutdown();
    expect(JSON.parse((await store.getFlowVersion('paused', v1.sourceHash))!)).toMatchObject({ text: V1 });

    const second = engineOf(loadFlow(V2), store);
    await second.startScheduler();
    const done = await waitForEnd(second, handle.id);
    expect(keys(done)).toEqual(['a', 'pause', 'b']);
    expect(outputOf(done, 'b')).toEqual({ from: 'old' });
  });

  it('a version that no longer loads fails its execution with the reason, never runs another version', async () => {
    const store = new MemoryExecutionStore();
    const withRetired = new NodeRegistry([...coreNodes, retired]);
    const v1 = loadFlow(`${V1}  - { id: c, type: test.retired, params: {} }\n`, withRetired);
    const first = engineOf(v1, store, withRetired);
    const handle = await first.start('paused', { body: {} });
    expect((await handle.settled).status).toBe('waiting');
    await first.shutdown();

    const second = engineOf(loadFlow(V2), store);
    await second.startScheduler();
    const failed = await waitForEnd(second, handle.id);
    expect(failed.status).toBe('failed');
    expect(failed.error?.message).toMatch(
      /version [0-9a-f]{12} of flow "paused" can no longer be loaded: .*unknown node type "test\.retired"/,
    );
    expect(keys(failed)).toEqual(['a', 'pause']);
  });

  it('a version that is not stored fails its execution; a record without a version runs the current flow', async () => {
    const store = new MemoryExecutionStore();
    const engine = engineOf(loadFlow(V2), store);
    const base = { flow: 'paused', trigger: { body: {} }, vars: {}, steps: [], outbound: [], dry_run: false };
    const now = new Date().toISOString();
    await store.insert({
      ...base,
      id: 'unknown-version',
      status: 'waiting',
      wake_at: Date.now(),
      flow_version: 'f'.repeat(64),
      created_at: now,
      updated_at: now,
    });
    await store.insert({ ...base, id: 'no-version', status: 'waiting', wake_at: Date.now(), created_at: now, updated_at: now });
    await engine.startScheduler();
    const missing = await waitForEnd(engine, 'unknown-version');
    expect(missing.status).toBe('failed');
    expect(missing.error?.message).toBe(`version ${'f'.repeat(12)} of flow "paused" is not stored; it cannot be resumed`);
    const legacy = await waitForEnd(engine, 'no-version');
    expect(legacy.status).toBe('success');
    expect(keys(legacy)).toEqual(['first', 'pause2', 'b']);
  });

  it('the files a flow reads are part of its version and seen as files.NAME', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flow-files-'));
    try {
      writeFileSync(join(dir, 'prompt.md'), 'Olá {{nome}}');
      const yaml =
        'name: reads\nfiles: { greeting: prompt.md }\nsteps:\n  - { id: s, type: set, params: { values: { text: "{{ files.greeting }}" } } }\n';
      writeFileSync(join(dir, 'reads.yaml'), yaml);
      const registry = new NodeRegistry(coreNodes);
      const before = loadFlowFile(join(dir, 'reads.yaml'), registry).flow!;
      expect(before.source.files).toEqual({ 'prompt.md': 'Olá {{nome}}' });
      writeFileSync(join(dir, 'prompt.md'), 'Oi {{nome}}');
      const after = loadFlowFile(join(dir, 'reads.yaml'), registry).flow!;
      expect(after.sourceHash).not.toBe(before.sourceHash);
      const engine = engineOf(before, new MemoryExecutionStore());
      const record = await waitForEnd(engine, (await engine.start('reads', { body: {} })).id);
      expect(outputOf(record, 's')).toEqual({ text: 'Olá {{nome}}' });

      writeFileSync(
        join(dir, 'escape.yaml'),
        'name: escape\nfiles: { x: ../secret.md, y: missing.md }\nsteps:\n  - { id: s, type: stop }\n',
      );
      const problems = loadFlowFile(join(dir, 'escape.yaml'), registry, 'escape.yaml').problems.map((p) => `${p.code} ${p.message}`);
      expect(problems).toEqual([
        `invalid-value files.x: "../secret.md" must be a path inside the flow's directory`,
        expect.stringMatching(/^unreadable-file files\.y: cannot read "missing\.md"/),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
