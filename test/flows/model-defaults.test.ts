// The default models are declared once, in adapters/ai/model-config.ts (MODEL_DEFAULTS): a shipped
// flow declares each LEADFLOW_MODEL_* it reads under `env:` with no value of its own (null), and the
// hosts that run flows (serve, worker, run, replay, leadflow test) hand their engines the
// environment through withModelDefaults, so an unset or blank variable means the same model in
// every flow and in the AI service (media conversion, `leadflow chat`).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MODEL_DEFAULTS, MODEL_ENV, withModelDefaults } from '../../adapters/ai/model-config.js';
import { loadValidFlows } from '../../cli/host.js';
import { Engine } from '../../engine/engine.js';
import { defaultRegistry } from '../../nodes/index.js';

const FLOWS = join(import.meta.dirname, '../../flows');
const flowFiles = readdirSync(FLOWS).filter((f) => /\.ya?ml$/.test(f));
const roleOf = new Map(Object.entries(MODEL_ENV).map(([role, name]) => [name, role as keyof typeof MODEL_ENV]));
const declaredEnv = (file: string): Record<string, unknown> => parse(readFileSync(join(FLOWS, file), 'utf8')).env ?? {};

describe('model defaults of the shipped flows', () => {
  it('finds flows declaring models', () => {
    const declaring = flowFiles.filter((f) => Object.keys(declaredEnv(f)).some((n) => roleOf.has(n)));
    expect(declaring).toEqual(expect.arrayContaining(['agent.yaml', 'followup.yaml', 'intake.yaml', 'handoff.yaml']));
  });

  it.each(flowFiles)('%s: each LEADFLOW_MODEL_* is a model role, declared without a default of its own', (file) => {
    for (const [name, value] of Object.entries(declaredEnv(file))) {
      if (!name.startsWith('LEADFLOW_MODEL_')) continue;
      expect(roleOf.get(name), `${file}: ${name} is not a model role of adapters/ai/model-config.ts`).toBeDefined();
      expect(value, `${file}: ${name}`).toBeNull();
    }
  });

  it("an engine given withModelDefaults of the environment reads the role's default when unset or blank, and the value when set", () => {
    const { flows } = loadValidFlows(FLOWS);
    const env = { LEADFLOW_MODEL_PRIMARY: ' ', LEADFLOW_MODEL_FALLBACK: 'openai:gpt-4o', LEADFLOW_MODEL_HANDOFF: undefined };
    const engine = new Engine({ registry: defaultRegistry(), flows, env: withModelDefaults(env) });
    expect(engine.flowEnv(flows.get('intake')!)).toMatchObject({
      LEADFLOW_MODEL_PRIMARY: MODEL_DEFAULTS.primary,
      LEADFLOW_MODEL_FALLBACK: 'openai:gpt-4o',
      LEADFLOW_MODEL_HANDOFF: MODEL_DEFAULTS.handoff,
    });
    expect(engine.flowEnv(flows.get('handoff')!)).toMatchObject({ LEADFLOW_MODEL_SUMMARY: MODEL_DEFAULTS.summary });
    expect(engine.flowEnv(flows.get('agent')!)).toMatchObject({ LEADFLOW_MODEL_CONTINGENCY: MODEL_DEFAULTS.contingency });
  });

  it('withModelDefaults fills only the model roles, and leaves its argument as it was', () => {
    const env = { LEADFLOW_MODEL_SUMMARY: 'anthropic:claude-haiku-4-5', OTHER: 'x' };
    const filled = withModelDefaults(env);
    expect(filled).toMatchObject({
      LEADFLOW_MODEL_SUMMARY: 'anthropic:claude-haiku-4-5',
      OTHER: 'x',
      LEADFLOW_MODEL_VISION: MODEL_DEFAULTS.vision,
    });
    expect(
      Object.keys(filled)
        .filter((n) => n.startsWith('LEADFLOW_MODEL_'))
        .sort(),
    ).toEqual(Object.values(MODEL_ENV).sort());
    expect(env).toEqual({ LEADFLOW_MODEL_SUMMARY: 'anthropic:claude-haiku-4-5', OTHER: 'x' });
  });
});
