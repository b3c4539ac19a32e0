import { afterEach, describe, expect, it } from 'vitest';
import { runFlow, shutdownEngines, stepRecord } from '../helpers/run-flow.js';

afterEach(shutdownEngines);

describe('set', () => {
  it('outputs the computed values: literals, expressions of any JSON type and templates', async () => {
    const { record } = await runFlow(
      `
name: set-values
steps:
  - id: fields
    type: set
    params:
      values:
        literal: 7
        phone: "{{ $replace(trigger.body.telefone, /\\\\D/, '') }}"
        name: "{{ $trim(trigger.body.nome) }}"
        greeting: "Olá, {{ $trim(trigger.body.nome) }}! Tags: {{ trigger.body.tags }}"
        tags: "{{ trigger.body.tags }}"
        nested: { upper: "{{ $uppercase(trigger.body.nome) }}", list: [1, "{{ 1 + 1 }}"] }
        missing: "{{ trigger.body.nothing }}"
`,
      { body: { telefone: '+55 (11) 98765-4321', nome: '  Ana ', tags: ['a', 'b'] } },
    );
    expect(record.status).toBe('success');
    expect(stepRecord(record, 'fields').output).toEqual({
      literal: 7,
      phone: '5511987654321',
      name: 'Ana',
      greeting: 'Olá, Ana! Tags: ["a","b"]',
      tags: ['a', 'b'],
      nested: { upper: '  ANA ', list: [1, 2] },
    });
    expect(record.vars).toEqual({});
  });

  it('with vars: true merges the values into vars, keeping other vars', async () => {
    const { record } = await runFlow(`
name: set-vars
vars: { keep: "k", tries: 1 }
steps:
  - id: count
    type: set
    params: { values: { tries: "{{ vars.tries + 1 }}", added: true }, vars: true }
  - id: plain
    type: set
    params: { values: { tries: 1000 } }
  - id: read
    type: set
    params: { values: { tries: "{{ vars.tries }}", keep: "{{ vars.keep }}", added: "{{ vars.added }}" } }
`);
    expect(record.vars).toEqual({ keep: 'k', tries: 2, added: true });
    expect(stepRecord(record, 'count').output).toEqual({ tries: 2, added: true });
    expect(stepRecord(record, 'read').output).toEqual({ tries: 2, keep: 'k', added: true });
  });

  it('refuses a non-object values at run time', async () => {
    const { record } = await runFlow(`
name: set-bad
steps:
  - id: bad
    type: set
    params: { values: "{{ [1, 2] }}" }
`);
    expect(record.status).toBe('failed');
    expect(record.error?.message).toContain('step "bad" (set): params.values must be object');
  });
});
