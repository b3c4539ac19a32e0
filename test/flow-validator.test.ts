// The flow schema's generated validator (ajv standalone code written by `npm run build`,
// engine/load/flow-validator.ts) judges every document as the validator compiled at run time does:
// same verdict, same errors, over the shipped flows and every load-error fixture. It is used only
// for the schema it was generated from.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { buildFlowSchema } from '../engine/flow-schema.js';
import { compileFlowValidator, generatedFlowValidator } from '../engine/load/flow-validator.js';
import { flowValidatorSource } from '../engine/load/flow-validator-source.js';
import { coreNodes, defaultRegistry } from '../nodes/index.js';
import { NodeRegistry } from '../engine/registry.js';

// Inside the repository (dist/ is ignored by git): the generated code requires ajv's runtime helpers.
const SCRATCH = join(import.meta.dirname, '../dist');
mkdirSync(SCRATCH, { recursive: true });
const DIR = mkdtempSync(join(SCRATCH, 'test-flow-validator-'));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

const schema = buildFlowSchema(defaultRegistry());
const file = join(DIR, 'flow-validator.generated.cjs');
writeFileSync(file, flowValidatorSource(schema));

/** Every YAML document of the shipped flows and of the load-error fixtures (those that parse). */
function documents(): Array<[string, unknown]> {
  const dirs = [join(import.meta.dirname, '../flows'), join(import.meta.dirname, 'fixtures/load-errors')];
  return dirs.flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => /\.ya?ml$/.test(f))
      .flatMap((f): Array<[string, unknown]> => {
        try {
          return [[f, parse(readFileSync(join(dir, f), 'utf8'))]];
        } catch {
          return [];
        }
      }),
  );
}

describe('generated flow validator', () => {
  const generated = generatedFlowValidator(schema, file);
  const compiled = compileFlowValidator(schema);

  it('is used for the schema it was generated from', () => {
    expect(generated).toBeTypeOf('function');
  });

  it("by default is the one the build wrote, found from the package's root (from source here; from dist/cli's bundle in the CLI)", () => {
    expect(generatedFlowValidator(schema)).toBeTypeOf('function');
  });

  it('is not used for another schema (another node set), nor when the file is missing', () => {
    expect(generatedFlowValidator(buildFlowSchema(new NodeRegistry(coreNodes)), file)).toBeUndefined();
    expect(generatedFlowValidator(schema, join(DIR, 'missing.cjs'))).toBeUndefined();
  });

  const docs = documents();
  it('has documents to compare, valid and invalid', () => {
    const verdicts = docs.map(([, doc]) => compiled(doc));
    expect(verdicts).toContain(true);
    expect(verdicts).toContain(false);
  });

  it.each(docs)('%s: same verdict and errors as the compiled validator', (_name, doc) => {
    const expected = compiled(doc);
    const expectedErrors = structuredClone(compiled.errors ?? null);
    expect(generated!(doc)).toBe(expected);
    expect(structuredClone(generated!.errors ?? null)).toEqual(expectedErrors);
  });
});
