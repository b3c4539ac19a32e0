// The validators the build generates for the node types' params, the gateways' event schemas and
// JSON Schema draft-07 (engine/run/prebuilt-validators.ts) judge every value as the validators ajv
// compiles at run time do: same verdict, same errors, same defaults filled in; a schema whose text
// differs from the one generated gets none. Validation through param-validator.ts takes them without
// compiling, and checks an input schema against draft-07 with the same message ajv gives.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { cloudEventSchema } from '../adapters/gateway/cloud/event-schema.js';
import { evolutionEventSchema } from '../adapters/gateway/evolution/event-schema.js';
import { uazapiEventSchema } from '../adapters/gateway/uazapi/event-schema.js';
import { listFlowFiles, loadFlowDirectory } from '../engine/load/loader.js';
import { YamlSource } from '../engine/load/yaml-source.js';
import { compileInputSchema, compileParamSchema, schemaCompilations } from '../engine/run/param-validator.js';
import { loadPrebuiltValidators, prebuiltValidators } from '../engine/run/prebuilt-validators.js';
import { prebuiltValidatorsSource } from '../engine/run/prebuilt-validators-source.js';
import { createRunAjv, DRAFT_07_ID } from '../engine/run/run-ajv.js';
import { defaultRegistry } from '../nodes/index.js';

// Inside the repository (dist/ is ignored by git): the generated code requires ajv's runtime helpers.
const SCRATCH = join(import.meta.dirname, '../dist');
mkdirSync(SCRATCH, { recursive: true });
const DIR = mkdtempSync(join(SCRATCH, 'test-prebuilt-validators-'));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

const registry = defaultRegistry();
const schemas = [...registry.all().map((def) => def.params), uazapiEventSchema, evolutionEventSchema, cloudEventSchema];
const file = join(DIR, 'schema-validators.generated.cjs');
writeFileSync(file, prebuiltValidatorsSource(schemas));
const prebuilt = loadPrebuiltValidators(file);
const ajv = createRunAjv();

/** Values to judge a params schema by: empty, its examples' shapes, and arbitrary JSON objects. */
const arbitraryParams = fc.dictionary(
  fc.constantFrom('values', 'url', 'text', 'to', 'ms', 'key', 'flow', 'x'),
  fc.jsonValue({ maxDepth: 3 }),
  {
    maxKeys: 4,
  },
);

describe('prebuilt validators', () => {
  it('exist for every generated schema, found by its exact JSON text only', () => {
    for (const schema of schemas) expect(prebuilt.forSchemaText(JSON.stringify(schema))).toBeTypeOf('function');
    const changed = { ...(schemas[0] as object), description: 'changed since the build' };
    expect(prebuilt.forSchemaText(JSON.stringify(changed))).toBeUndefined();
    expect(prebuilt.draft07).toBeTypeOf('function');
  });

  it('a missing file gives none', () => {
    const none = loadPrebuiltValidators(join(DIR, 'missing.cjs'));
    expect(none.forSchemaText(JSON.stringify(schemas[0]))).toBeUndefined();
    expect(none.draft07).toBeUndefined();
  });

  it.each(registry.all().map((def) => [def.type, def.params] as const))(
    '%s params: same verdict, errors and defaults as compiled',
    (_type, schema) => {
      const text = JSON.stringify(schema);
      const generated = prebuilt.forSchemaText(text)!;
      const compiled = ajv.compile(JSON.parse(text) as object);
      fc.assert(
        fc.property(arbitraryParams, (value) => {
          const [a, b] = [structuredClone(value), structuredClone(value)];
          expect(generated(a)).toBe(compiled(b));
          expect(structuredClone(generated.errors ?? null)).toEqual(structuredClone(compiled.errors ?? null));
          expect(a).toEqual(b);
        }),
        { numRuns: 40, seed: 17 },
      );
    },
  );

  it('draft-07: same verdict and errors as ajv checking a schema against its meta-schema', () => {
    const candidates: unknown[] = [
      { type: 'object', required: ['a'], properties: { a: { type: 'string', minLength: 1 } } },
      { type: 'objekt' },
      { type: 'object', required: 'a' },
      { properties: { a: { pattern: '(' } } },
      { minLength: -1, items: [{ type: 'string' }, 3] },
      { $ref: '#/definitions/x', definitions: { x: { enum: [] } } },
    ];
    for (const schema of candidates) {
      const expected = ajv.validateSchema(schema as object);
      const expectedErrors = structuredClone(ajv.errors ?? null);
      expect(prebuilt.draft07!(schema), JSON.stringify(schema)).toBe(expected);
      expect(structuredClone(prebuilt.draft07!.errors ?? null)).toEqual(expectedErrors);
    }
  });
});

describe('param-validator with the build’s prebuilt validators', () => {
  it('the build wrote them (npm run build), and the shipped node types compile nothing', () => {
    expect(prebuiltValidators().draft07, 'dist/engine/run/schema-validators.generated.cjs missing: run npm run build').toBeTypeOf(
      'function',
    );
    const before = schemaCompilations();
    for (const def of registry.all()) compileParamSchema(def);
    expect(schemaCompilations()).toBe(before);
  });

  it("the build prebuilt the shipped flows' trigger.input schemas: loading flows/ compiles nothing", () => {
    const inputs = listFlowFiles(join(import.meta.dirname, '../flows')).flatMap((file) => {
      const data = new YamlSource(file, readFileSync(file, 'utf8')).toJS() as { trigger?: { input?: object } };
      return data.trigger?.input ? [data.trigger.input] : [];
    });
    expect(inputs.length).toBeGreaterThanOrEqual(3);
    const before = schemaCompilations();
    const { flows, problems } = loadFlowDirectory(join(import.meta.dirname, '../flows'), registry);
    expect(problems).toEqual([]);
    expect(flows.size).toBeGreaterThanOrEqual(5);
    for (const input of inputs) compileInputSchema(input);
    expect(schemaCompilations()).toBe(before);
    // An edited input schema (not the text the build saw) still works: compiled once, when it loads.
    compileInputSchema({ ...inputs[0]!, description: 'edited since the build' });
    expect(schemaCompilations()).toBe(before + 1);
  });

  it("an input schema that is not a draft-07 schema fails with ajv's own message, and compiles nothing", () => {
    const bad = { type: 'object', properties: { telefone: { type: 'strin' } } };
    let expected = '';
    try {
      ajv.validateSchema(bad, true); // what ajv.compile does first when its validateSchema option is on
    } catch (err) {
      expected = (err as Error).message;
    }
    expect(expected).toMatch(/^schema is invalid: data\/properties\/telefone\/type/);
    const before = schemaCompilations();
    expect(() => compileInputSchema(bad)).toThrow(expected);
    expect(schemaCompilations()).toBe(before);
  });

  it('a schema naming draft-07 is checked the same way; one naming another meta-schema by ajv itself', () => {
    expect(() => compileInputSchema({ $schema: `${DRAFT_07_ID}#`, type: 'nope' })).toThrow(/^schema is invalid: data\/type/);
    expect(() => compileInputSchema({ $schema: 'https://example.test/unknown-meta', type: 'object' })).toThrow(/no schema with key or ref/);
  });

  it('a valid input schema compiles once', () => {
    const before = schemaCompilations();
    compileInputSchema({ type: 'object', required: ['prebuilt_test_field'] });
    compileInputSchema({ type: 'object', required: ['prebuilt_test_field'] });
    expect(schemaCompilations()).toBe(before + 1);
  });
});
