// Validates a step's resolved parameters against its node's schema (strict types, defaults filled in),
// and webhook bodies against trigger input schemas.
//
// Contract: every schema is compiled once per process. Validators are found by schema object (a
// WeakMap: the per-request lookup), else by the schema's JSON text: a schema equal to one compiled
// before (a flow reloaded, another version of it) reuses that validator; a schema the build
// generated a validator for (each shipped node type's params: prebuilt-validators.ts) takes it; only
// a schema never seen is compiled, and is kept for the life of the process. The loader compiles the
// schemas of the node types a flow uses and its `trigger.input` when it loads the flow
// (compileParamSchema, compileInputSchema), so requests find them compiled. A schema is checked
// against its meta-schema before it compiles (draft-07 unless its `$schema` says otherwise), and
// fails with ajv's "schema is invalid: …" message when it is not one.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ParamValidationError } from '../errors/param-validation-error.js';
import type { JsonValue, LoadedStep, NodeDefinition } from '../types.js';
import { prebuiltValidators } from './prebuilt-validators.js';
import { createRunAjv, DRAFT_07_ID, type RunAjv } from './run-ajv.js';
import { alternativeOf, alternativesAt } from './schema-alternatives.js';

const byObject = new WeakMap<object, ValidateFunction>();
const byText = new Map<string, ValidateFunction>();
let compilations = 0;
let runAjv: RunAjv | undefined;

/** The process's ajv instance, created on the first schema to compile (none when every schema is prebuilt). */
function compiler(): RunAjv {
  runAjv ??= createRunAjv();
  return runAjv;
}

/** How many schemas this process compiled so far (each distinct schema once; prebuilt ones are not compiled). */
export function schemaCompilations(): number {
  return compilations;
}

/**
 * Throws ajv's `schema is invalid: …` when `schema` does not satisfy its meta-schema: the prebuilt
 * draft-07 validator for a schema without `$schema` or with draft-07's, ajv's own check otherwise.
 */
function checkAgainstMetaSchema(schema: object): void {
  const declared = (schema as { $schema?: unknown }).$schema;
  const draft07 = prebuiltValidators().draft07;
  if (draft07 && (declared === undefined || (typeof declared === 'string' && declared.replace(/#$/, '') === DRAFT_07_ID))) {
    if (!draft07(schema)) throw new Error(`schema is invalid: ${compiler().errorsText(draft07.errors)}`);
    return;
  }
  compiler().validateSchema(schema, true);
}

/**
 * The validator of `schema`: prebuilt, or compiled when no equal schema was compiled before. The
 * schema is compiled from its JSON text (a copy: symbol keys such as TypeBox's are left out, and the
 * caller's object is never kept by ajv). Throws when it is not a valid JSON Schema.
 */
function validatorOf(schema: object): ValidateFunction {
  let validate = byObject.get(schema);
  if (validate) return validate;
  const text = JSON.stringify(schema);
  validate = byText.get(text) ?? prebuiltValidators().forSchemaText(text);
  if (!validate) {
    const copy = JSON.parse(text) as object;
    checkAgainstMetaSchema(copy);
    validate = compiler().compile(copy);
    compilations++;
  }
  byText.set(text, validate);
  byObject.set(schema, validate);
  return validate;
}

/**
 * The compiled validator of a JSON Schema (for callers that read ajv's errors themselves, such as
 * the gateway event parsers): compiled once per process, shared with schemaProblems. Its `errors`
 * belong to its latest call: read them right after it. Throws when the schema does not compile.
 */
export function schemaValidator(schema: object): ValidateFunction {
  return validatorOf(schema);
}

/** Compiles the params schema of a node type now (at load) rather than at its first step. Throws when it does not compile. */
export function compileParamSchema(def: NodeDefinition): void {
  validatorOf(def.params);
}

/** Compiles a trigger input schema now (at load). Throws (ajv's message) when it is not a valid JSON Schema. */
export function compileInputSchema(schema: object): void {
  validatorOf(schema);
}

/** Returns the params with defaults applied; throws ParamValidationError listing each problem. */
export function validateParams(
  def: NodeDefinition,
  params: JsonValue | undefined,
  stepId: string,
  written: string[] = [],
): Record<string, JsonValue> {
  const validate = validatorOf(def.params);
  const value = (params && typeof params === 'object' && !Array.isArray(params) ? params : {}) as Record<string, JsonValue>;
  // A required parameter written in the YAML whose expression found nothing (e.g. a missing field)
  // is null, not missing: `if: {{ trigger.body.absent }}` is false rather than a broken step.
  const schema = def.params as { required?: string[]; properties?: Record<string, { default?: unknown }> };
  for (const key of written) {
    if (!(key in value) && schema.required?.includes(key) && schema.properties?.[key]?.default === undefined) value[key] = null;
  }
  if (!validate(value)) {
    const details = (validate.errors ?? []).map((e) => ({
      path: `params${e.instancePath.replace(/\//g, '.')}${e.keyword === 'required' ? `.${(e.params as { missingProperty: string }).missingProperty}` : ''}`,
      message: e.keyword === 'required' ? 'is required' : (e.message ?? 'is invalid'),
    }));
    throw new ParamValidationError(`step "${stepId}" (${def.type}): ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`, details);
  }
  return value;
}

/**
 * Validates a value against a JSON Schema (trigger inputs) and returns the problems, empty when
 * valid: `path` dotted (`(body)` for the whole value), `message` in words, naming the titled
 * `anyOf` / `oneOf` alternative a problem belongs to (schema-alternatives.ts); each problem once.
 * Throws when the schema itself does not compile.
 */
export function schemaProblems(schema: object, value: unknown): Array<{ path: string; message: string }> {
  const validate = validatorOf(schema);
  if (validate(value)) return [];
  const problems = new Map<string, { path: string; message: string }>();
  for (const e of validate.errors ?? []) {
    const base = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const missing = e.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty : '';
    const path = [base, missing].filter(Boolean).join('.') || '(body)';
    const problem = { path, message: problemMessage(schema, e) };
    problems.set(`${problem.path}\0${problem.message}`, problem);
  }
  return [...problems.values()];
}

function problemMessage(schema: object, e: ErrorObject): string {
  const alternatives = e.keyword === 'anyOf' || e.keyword === 'oneOf' ? alternativesAt(schema, e.schemaPath) : undefined;
  const said = alternatives
    ? `must match ${e.keyword === 'oneOf' ? 'exactly ' : ''}one of the alternatives: ${alternatives.join(', ')}`
    : e.keyword === 'required'
      ? 'is required'
      : (e.message ?? 'is invalid');
  const within = alternativeOf(schema, e.schemaPath);
  return within ? `${said} (alternative "${within}")` : said;
}

/** The param names a step writes in its YAML, by step (found once per loaded step). */
const writtenKeysByStep = new WeakMap<LoadedStep, string[]>();

/** The param names `step` writes in its YAML (what validateParams reports as written, not defaulted). */
export function writtenKeys(step: LoadedStep): string[] {
  let keys = writtenKeysByStep.get(step);
  if (!keys) {
    keys = step.compiledParams.kind === 'object' ? step.compiledParams.entries.map(([k]) => k) : [];
    writtenKeysByStep.set(step, keys);
  }
  return keys;
}
