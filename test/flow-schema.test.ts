// The flow schema generated from the node definitions: the checked-in copy is current, every node
// type honours the definition contract (descriptions, defaults, examples that load), and the
// schema is valid draft-07 that accepts real flows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import AjvModule from 'ajv';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildFlowSchema, renderFlowSchema } from '../engine/flow-schema.js';
import { loadFlowText } from '../engine/load/loader.js';
import { NodeRegistry } from '../engine/registry.js';
import { formatProblem } from '../engine/load/yaml-source.js';
import { defaultRegistry } from '../nodes/index.js';

const Ajv = AjvModule.default ?? AjvModule;
const registry = defaultRegistry();
const SCHEMA_FILE = join(import.meta.dirname, '../flows/flow.schema.json');

type Schema = Record<string, unknown>;

describe('flows/flow.schema.json', () => {
  it('is current with the node definitions', () => {
    let checkedIn = '';
    try {
      checkedIn = readFileSync(SCHEMA_FILE, 'utf8');
    } catch {
      /* a missing file is stale too */
    }
    const current = renderFlowSchema(registry);
    expect(checkedIn === current, 'flows/flow.schema.json is stale: run `npm run schema` and commit the result').toBe(true);
  });
});

/**
 * Optional parameters whose absence means something no value can say, so they have no default
 * (a default would be filled in before the node runs). Each entry states what leaving it out does.
 */
const NO_DEFAULT_ON_PURPOSE: Record<string, Record<string, string>> = {
  'http.request': { body: 'leaving it out sends no body at all' },
  'flow.start': { key: "leaving it out uses the started flow's concurrency.key" },
  'flow.cancel': { reason: 'leaving it out records which execution and step cancelled' },
  wait: { ms: 'exactly one of ms and until is given', until: 'exactly one of ms and until is given' },
  'hours.check': { at: "leaving it out checks now, by the host's clock" },
};

const fragments = new Ajv({ allErrors: true, strict: false }).addSchema(buildFlowSchema(registry));

/** Validator for one location inside the flow schema, e.g. `#/$defs/step.wait`. */
function schemaValidator(pointer: string) {
  return fragments.compile({ $ref: `https://leadflow.local/flow.schema.json${pointer}` });
}

describe('node definition contract', () => {
  it('the registry holds the core node types', () => {
    expect(registry.types()).toEqual(
      expect.arrayContaining(['call-flow', 'foreach', 'http.request', 'if', 'parallel', 'respond', 'set', 'stop', 'switch', 'wait']),
    );
  });

  it('lists node types in code unit order, whatever the locale, and again after a register', () => {
    const def = registry.get('set')!;
    const mixed = new NodeRegistry(['b.x', 'a.b', 'aB', 'a-b', 'Z'].map((type) => ({ ...def, type })));
    expect(mixed.types()).toEqual(['Z', 'a-b', 'a.b', 'aB', 'b.x']);
    mixed.register({ ...def, type: 'a_b' });
    expect(mixed.types()).toEqual(['Z', 'a-b', 'a.b', 'aB', 'a_b', 'b.x']);
    // A copy each time: changing one does not change the registry.
    mixed.all().pop();
    expect(mixed.all()).toHaveLength(6);
  });

  it('checks parameter values against the parameter schema (expressions allowed)', () => {
    const ms = schemaValidator('#/$defs/step.wait/properties/params/properties/ms');
    expect([ms(5000), ms('{{ env.DELAY }}'), ms('soon'), ms(-1)]).toEqual([true, true, false, false]);
  });

  for (const def of registry.all()) {
    describe(def.type, () => {
      const params = JSON.parse(JSON.stringify(def.params)) as Schema & { properties?: Record<string, Schema>; required?: string[] };
      const properties = Object.entries(params.properties ?? {});
      const required = new Set(params.required ?? []);

      it('has a description', () => {
        expect(def.description.trim().length).toBeGreaterThan(20);
      });

      it('takes params as an object schema without extra fields', () => {
        expect(params.type).toBe('object');
        expect(params.additionalProperties).toBe(false);
      });

      it('describes every parameter with a description and examples', () => {
        for (const [name, prop] of properties) {
          expect(typeof prop.description === 'string' && prop.description.trim() !== '', `${def.type}.${name} has no description`).toBe(
            true,
          );
          expect(Array.isArray(prop.examples) && prop.examples.length > 0, `${def.type}.${name} has no examples`).toBe(true);
        }
      });

      it('gives every optional parameter a default', () => {
        const exempt = NO_DEFAULT_ON_PURPOSE[def.type] ?? {};
        for (const [name, prop] of properties) {
          if (required.has(name)) continue;
          if (name in exempt) {
            expect(prop.default, `${def.type}.${name} is exempt from a default; drop the exemption`).toBeUndefined();
            continue;
          }
          expect('default' in prop, `${def.type}.${name} is optional but has no default`).toBe(true);
        }
        for (const name of Object.keys(exempt))
          expect(params.properties?.[name], `${def.type}.${name} exempt but not a parameter`).toBeDefined();
      });

      it('gives parameter examples that are valid values of their parameter', () => {
        for (const [name, prop] of properties) {
          const validate = schemaValidator(`#/$defs/step.${def.type}/properties/params/properties/${name}`);
          for (const example of (prop.examples as unknown[] | undefined) ?? []) {
            expect(validate(example), `${def.type}.${name} example ${JSON.stringify(example)}: ${JSON.stringify(validate.errors)}`).toBe(
              true,
            );
          }
        }
      });

      it('describes its output', () => {
        expect(def.output.description.trim().length).toBeGreaterThan(5);
      });

      it('has at least one example, each of its own type with a title', () => {
        expect(def.examples.length).toBeGreaterThan(0);
        for (const example of def.examples) {
          expect(example.title.trim()).not.toBe('');
          expect(example.step.type).toBe(def.type);
        }
      });

      for (const example of def.examples) {
        it(`example "${example.title}" loads as a flow without problems`, () => {
          const step = { id: 'example', ...example.step };
          const { flow, problems } = loadFlowText(`${def.type}.yaml`, stringify({ name: 'x', steps: [step] }), registry);
          expect(problems.map(formatProblem)).toEqual([]);
          expect(flow?.steps[0]?.type).toBe(def.type);
        });
      }
    });
  }
});

const FULL_FLOW = {
  name: 'intake',
  description: 'Every top-level section and a step of each kind.',
  trigger: {
    webhook: {
      method: 'POST',
      path: '/intake',
      auth: 'form-signature',
      respond: { mode: 'immediately', status: 202, body: { id: '{{ execution.id }}' } },
    },
    input: { type: 'object', required: ['nome'], properties: { nome: { type: 'string' } } },
  },
  env: { LEADFLOW_INTAKE_DELAY_MS: 0, LEADFLOW_GATEWAY_URL: 'https://gw.example', LEADFLOW_DRY: false },
  vars: { tries: 0 },
  output: '{{ steps.fields }}',
  steps: [
    { id: 'fields', type: 'set', name: 'Normalise', params: { values: { nome: '{{ $trim(trigger.body.nome) }}' }, vars: true } },
    { id: 'settle', type: 'wait', params: { ms: '{{ env.LEADFLOW_INTAKE_DELAY_MS }}' } },
    {
      id: 'notify',
      type: 'http.request',
      params: {
        method: 'POST',
        url: '{{ env.LEADFLOW_GATEWAY_URL }}/send',
        headers: { token: 'abc' },
        query: { page: 1 },
        body: { text: 'Olá {{ steps.fields.nome }}' },
        timeout_ms: 5000,
      },
      retry: { attempts: 3, delay_ms: 500, backoff: 2, max_delay_ms: 5000, jitter: 0.1, when: '{{ error.status >= 500 }}' },
      on_error: { goto: 'fallback' },
    },
    { id: 'fallback', type: 'respond', params: { status: 200, body: { ok: true } }, on_error: 'continue' },
    {
      id: 'route',
      type: 'switch',
      params: { value: '{{ trigger.body.kind }}' },
      cases: {
        form: [
          {
            id: 'each',
            type: 'foreach',
            params: { items: '{{ trigger.body.items }}', concurrency: 2 },
            do: [{ id: 'item_out', type: 'set', params: { values: { v: '{{ item }}' } } }],
          },
        ],
      },
      default: [
        {
          id: 'both',
          type: 'parallel',
          branches: {
            a: [{ id: 'a1', type: 'set', params: { values: {} } }],
            b: [{ id: 'b1', type: 'call-flow', params: { flow: 'handoff' } }],
          },
        },
      ],
    },
    {
      id: 'gate',
      type: 'if',
      params: { condition: '{{ vars.tries > 3 }}' },
      then: [{ id: 'give_up', type: 'stop', params: { reason: 'too many tries' } }],
      else: [],
    },
  ],
};

describe('the schema as JSON Schema', () => {
  const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Schema;

  it('is valid draft-07 and compiles under ajv strict mode', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    const ajv = new Ajv({ strict: true, allowUnionTypes: true });
    expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
    expect(() => ajv.compile(schema)).not.toThrow();
  });

  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

  it('accepts a full valid flow, which the loader accepts too', () => {
    expect(validate(FULL_FLOW), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(loadFlowText('intake.yaml', stringify(FULL_FLOW), registry).problems.map(formatProblem)).toEqual([]);
  });

  it('rejects an unknown step type', () => {
    const flow = { name: 'x', steps: [{ id: 'a', type: 'sett', params: {} }] };
    expect(validate(flow)).toBe(false);
    expect(validate.errors).toContainEqual(expect.objectContaining({ instancePath: '/steps/0/type', keyword: 'enum' }));
  });

  it('rejects an unknown parameter and a wrong-typed one, at their paths', () => {
    expect(validate({ name: 'x', steps: [{ id: 'a', type: 'wait', params: { ms: 'soon', extra: 1 } }] })).toBe(false);
    expect(validate.errors).toContainEqual(
      expect.objectContaining({
        instancePath: '/steps/0/params',
        keyword: 'additionalProperties',
        params: { additionalProperty: 'extra' },
      }),
    );
    expect(validate.errors).toContainEqual(expect.objectContaining({ instancePath: '/steps/0/params/ms', keyword: 'type' }));
  });

  it('rejects a nested step of an unknown type and a missing required slot', () => {
    expect(validate({ name: 'x', steps: [{ id: 'a', type: 'if', params: { condition: true }, then: [{ id: 'b', type: 'nope' }] }] })).toBe(
      false,
    );
    expect(validate.errors).toContainEqual(expect.objectContaining({ instancePath: '/steps/0/then/0/type', keyword: 'enum' }));
    expect(validate({ name: 'x', steps: [{ id: 'a', type: 'if', params: { condition: true } }] })).toBe(false);
    expect(validate.errors).toContainEqual(
      expect.objectContaining({ instancePath: '/steps/0', keyword: 'required', params: { missingProperty: 'then' } }),
    );
  });

  it('accepts an expression wherever a typed value is due, but not plain text', () => {
    const wait = (ms: unknown) => validate({ name: 'x', steps: [{ id: 'a', type: 'wait', params: { ms } }] });
    expect(wait(1000)).toBe(true);
    expect(wait('{{ env.DELAY }}')).toBe(true);
    expect(wait('1000')).toBe(false);
    expect(wait(-1)).toBe(false);
  });
});
