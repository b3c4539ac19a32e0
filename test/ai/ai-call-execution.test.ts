// Each AI provider call names the execution whose step made it (AiCallEvent.execution: the console's
// overview attributes calls with it): a step gets the AI service bound to its execution
// (nodes/services.ts), a child started by call-flow names the child, a dry run is marked, and a call
// made outside any step names none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AiCallEvent, type AiService, createAiService } from '../../adapters/ai/ai-service.js';
import { NodeRegistry } from '../../engine/registry.js';
import { aiNodes } from '../../nodes/ai/index.js';
import { coreNodes } from '../../nodes/index.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';
import { makeEngine, shutdownEngines, waitForEnd } from '../helpers/run-flow.js';

const registry = new NodeRegistry([...coreNodes, ...aiNodes]);
let openai: FakeOpenAi;
let ai: AiService;
const calls: AiCallEvent[] = [];

beforeAll(async () => {
  openai = await startFakeOpenAi();
  ai = createAiService({ OPENAI_API_KEY: 'sk-o', OPENAI_BASE_URL: openai.baseURL }, { onCall: (e) => calls.push(e) });
});

afterAll(async () => {
  await shutdownEngines();
  await openai.close();
});

const generate = (id: string) =>
  `  - { id: ${id}, type: ai.generate, params: { model: "openai:gpt-4.1-mini", prompt: "Oi", max_tokens: 50 } }`;

describe('AI calls and their execution', () => {
  it('name the step execution, the child under call-flow, a dry run; none outside a step', async () => {
    const engine = makeEngine(
      [
        `name: parent\nsteps:\n${generate('mine')}\n  - { id: child, type: call-flow, params: { flow: child, input: {} } }\n`,
        `name: child\nsteps:\n${generate('theirs')}\n`,
      ],
      { registry, services: { ai } },
    );
    await engine.startScheduler();
    const handle = await engine.start('parent', { body: {} });
    const parent = await waitForEnd(engine, handle.id);
    expect(parent.status).toBe('success');
    const [child] = await engine.store.list({ flow: 'child' });
    const childId = child!.id;
    expect(calls.map((c) => c.execution)).toEqual([
      { id: handle.id, flow: 'parent', dryRun: false },
      { id: childId, flow: 'child', dryRun: false },
    ]);
    expect(childId).not.toBe(handle.id);

    calls.length = 0;
    const dry = await engine.start('parent', { body: {} }, { dryRun: true });
    await waitForEnd(engine, dry.id);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => c.execution?.dryRun === true)).toBe(true);

    calls.length = 0;
    await ai.chat('openai:gpt-4.1-mini', { messages: [{ role: 'user', content: 'fora' }], max_tokens: 10 } as never);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.execution).toBeUndefined();
  });
});
