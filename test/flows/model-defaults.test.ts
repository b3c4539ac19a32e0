// The models a flow falls back to are the AI service's: every LEADFLOW_MODEL_* a shipped flow
// declares under `env:` defaults to that role's MODEL_DEFAULTS (adapters/ai/model-config.ts), the one
// declaration of the default models, so an unset variable means the same model in every flow and in
// the service (media conversion, `leadflow chat`).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MODEL_DEFAULTS, MODEL_ENV } from '../../adapters/ai/model-config.js';

const FLOWS = join(import.meta.dirname, '../../flows');
const flowFiles = readdirSync(FLOWS).filter((f) => /\.ya?ml$/.test(f));
const roleOf = new Map(Object.entries(MODEL_ENV).map(([role, name]) => [name, role as keyof typeof MODEL_ENV]));

describe('model defaults of the shipped flows', () => {
  it('finds flows declaring models', () => {
    const declaring = flowFiles.filter((f) =>
      Object.keys(parse(readFileSync(join(FLOWS, f), 'utf8')).env ?? {}).some((n) => roleOf.has(n)),
    );
    expect(declaring).toEqual(expect.arrayContaining(['agent.yaml', 'followup.yaml', 'intake.yaml', 'handoff.yaml']));
  });

  it.each(flowFiles)('%s: each LEADFLOW_MODEL_* defaults to MODEL_DEFAULTS', (file) => {
    const env: Record<string, unknown> = parse(readFileSync(join(FLOWS, file), 'utf8')).env ?? {};
    for (const [name, value] of Object.entries(env)) {
      if (!name.startsWith('LEADFLOW_MODEL_')) continue;
      const role = roleOf.get(name);
      expect(role, `${file}: ${name} is not a model role of adapters/ai/model-config.ts`).toBeDefined();
      expect(value, `${file}: ${name}`).toBe(MODEL_DEFAULTS[role!]);
    }
  });
});
