// Validates a step's resolved parameters against its node's schema (strict types, defaults filled in).
import AjvModule, { type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ParamValidationError } from '../errors/param-validation-error.js';
import type { JsonValue, NodeDefinition } from '../types.js';

const Ajv = AjvModule.default ?? AjvModule;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  a: InstanceType<typeof Ajv>,
) => void;
const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true });
addFormats(ajv);
const cache = new WeakMap<NodeDefinition, ValidateFunction>();

/** Returns the params with defaults applied; throws ParamValidationError listing each problem. */
export function validateParams(
  def: NodeDefinition,
  params: JsonValue | undefined,
  stepId: string,
  written: string[] = [],
): Record<string, JsonValue> {
  let validate = cache.get(def);
  if (!validate) {
    validate = ajv.compile(JSON.parse(JSON.stringify(def.params)));
    cache.set(def, validate);
  }
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

/** Compiled trigger input schemas, by schema object. */
const inputValidators = new WeakMap<object, ValidateFunction>();

/**
 * Validates a value against a JSON Schema (trigger inputs; compiled once per schema object) and
 * returns the problems, empty when valid: `path` dotted (`(body)` for the whole value), `message` in
 * words. Throws when the schema itself does not compile.
 */
export function schemaProblems(schema: object, value: unknown): Array<{ path: string; message: string }> {
  let validate = inputValidators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    inputValidators.set(schema, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => {
    const base = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const missing = e.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty : '';
    const path = [base, missing].filter(Boolean).join('.');
    return { path: path || '(body)', message: e.keyword === 'required' ? 'is required' : (e.message ?? 'is invalid') };
  });
}
