// The validator of the flow schema (engine/flow-schema.ts) the loader checks every flow file with.
// The schema is large (a branch per node type, nested steps): compiling it with ajv takes hundreds of
// milliseconds, on every CLI start. So `npm run build` also writes it as ajv standalone code next to
// this module (dist/engine/load/flow-validator.generated.cjs, by cli/write-validators.ts with
// flow-validator-source.ts), tagged with the SHA-256 of the schema it was generated from; a registry
// whose schema has that hash gets the generated validator, any other (a test's node set, definitions
// changed since the build, running from source) gets one compiled at run time, ajv's compiler loaded
// then. Both come from the same schema and the same options, so they accept the same documents with
// the same errors.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Options, ValidateFunction } from 'ajv';
import { buildFlowSchema } from '../flow-schema.js';
import { packageRoot } from '../package-root.js';
import type { NodeRegistry } from '../registry.js';
import { ajvClass } from '../run/run-ajv.js';

/**
 * ajv options of the flow schema, compiled or generated: every error (allErrors) with its schema and
 * data (verbose: the loader's messages read them). The code optimiser is off: it only simplifies the
 * generated code, and skipping it cuts the compile time by about 40%.
 */
export const FLOW_AJV_OPTIONS: Options = { allErrors: true, verbose: true, strict: false, code: { optimize: false } };

/** File name of the generated validator, in dist/engine/load/ of the package. */
export const GENERATED_FLOW_VALIDATOR = 'flow-validator.generated.cjs';

/**
 * Where the build writes the generated validator: `<package>/dist/engine/load/`, the package being
 * the nearest directory above this module holding package.json (this module may run from its own
 * file, from source, or from a bundle of the CLI elsewhere in dist/).
 */
function generatedValidatorFile(): string {
  return join(packageRoot(import.meta.dirname), 'dist', 'engine', 'load', GENERATED_FLOW_VALIDATOR);
}

/** SHA-256 (hex) of the schema's JSON text: what ties a generated validator to its schema. */
export function flowSchemaHash(schema: object): string {
  return createHash('sha256').update(JSON.stringify(schema)).digest('hex');
}

/**
 * The generated validator in `file` (default: the one the build wrote) when it was generated from
 * exactly `schema`; undefined when the file is missing or was generated from another schema.
 */
export function generatedFlowValidator(schema: object, file: string = generatedValidatorFile()): ValidateFunction | undefined {
  if (!existsSync(file)) return undefined;
  const generated = createRequire(import.meta.url)(file) as { default?: ValidateFunction; schemaHash?: string };
  return generated.schemaHash === flowSchemaHash(schema) ? generated.default : undefined;
}

/** The validator of `schema` compiled now (ajv's compiler is loaded on the first call). */
export function compileFlowValidator(schema: object): ValidateFunction {
  const Ajv = ajvClass();
  return new Ajv(FLOW_AJV_OPTIONS).compile(schema);
}

const validators = new WeakMap<NodeRegistry, ValidateFunction>();

/** The flow schema validator of `registry`: generated when it matches, else compiled; once per registry. */
export function flowValidator(registry: NodeRegistry): ValidateFunction {
  let validate = validators.get(registry);
  if (!validate) {
    const schema = buildFlowSchema(registry);
    validate = generatedFlowValidator(schema) ?? compileFlowValidator(schema);
    validators.set(registry, validate);
  }
  return validate;
}
