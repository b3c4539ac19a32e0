// The ajv instance of the schemas a run validates against (node params, trigger inputs, gateway
// events): one set of options and formats, shared by the validators compiled at run time
// (param-validator.ts) and those generated at build (prebuilt-validators-source.ts), so both accept
// the same values with the same defaults and errors.
//
// ajv's compiler (~260 KB of code) is required on the first createRunAjv() call, not with this module:
// a process whose schemas are all prebuilt (the shipped flows and node types) never loads it.
import { createRequire } from 'node:module';
import type { Ajv, CodeOptions, Options } from 'ajv';

type AjvClass = typeof Ajv;

/** An ajv instance. */
export type RunAjv = InstanceType<AjvClass>;

/**
 * Every error (allErrors), unknown keywords tolerated (strict off), defaults filled in (useDefaults),
 * compiled schemas not registered by `$id` (addUsedSchema off: two versions of a schema with the same
 * `$id` both compile). A schema is checked against its meta-schema by param-validator.ts itself
 * (validateSchema off here), with the prebuilt draft-07 validator when there is one.
 */
export const RUN_AJV_OPTIONS: Options = { allErrors: true, strict: false, useDefaults: true, addUsedSchema: false, validateSchema: false };

/** `$id` of JSON Schema draft-07, ajv's default meta-schema (without the trailing `#`). */
export const DRAFT_07_ID = 'http://json-schema.org/draft-07/schema';

/** Requires npm packages from this module's place (CommonJS, synchronously). */
const requirePackage = createRequire(import.meta.url);

/** ajv's class, required (CommonJS, synchronously, from node_modules) on first use. */
export function ajvClass(): AjvClass {
  return (requirePackage('ajv') as { Ajv: AjvClass }).Ajv;
}

/** A new instance with RUN_AJV_OPTIONS and ajv-formats' formats; `code`: ajv's code options (e.g. standalone source). */
export function createRunAjv(code?: CodeOptions): RunAjv {
  const Ajv = ajvClass();
  const ajv = new Ajv({ ...RUN_AJV_OPTIONS, ...(code ? { code } : {}) });
  const formats = requirePackage('ajv-formats') as ((a: RunAjv) => void) & { default?: (a: RunAjv) => void };
  (formats.default ?? formats)(ajv);
  return ajv;
}
