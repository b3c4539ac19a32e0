// The ajv instance of the schemas a run validates against (node params, trigger inputs, gateway
// events): one set of options and formats, shared by the validators compiled at run time
// (param-validator.ts) and those generated at build (prebuilt-validators.ts), so both accept the same
// values with the same defaults and errors.
import AjvModule, { type CodeOptions, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';

const Ajv = AjvModule.default ?? AjvModule;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  a: InstanceType<typeof Ajv>,
) => void;

/** An ajv instance. */
export type RunAjv = InstanceType<typeof Ajv>;

/**
 * Every error (allErrors), unknown keywords tolerated (strict off), defaults filled in (useDefaults),
 * compiled schemas not registered by `$id` (addUsedSchema off: two versions of a schema with the same
 * `$id` both compile). A schema is checked against its meta-schema by param-validator.ts itself
 * (validateSchema off here), with the prebuilt draft-07 validator when there is one.
 */
export const RUN_AJV_OPTIONS: Options = { allErrors: true, strict: false, useDefaults: true, addUsedSchema: false, validateSchema: false };

/** `$id` of JSON Schema draft-07, ajv's default meta-schema (without the trailing `#`). */
export const DRAFT_07_ID = 'http://json-schema.org/draft-07/schema';

/** A new instance with RUN_AJV_OPTIONS and ajv-formats' formats; `code`: ajv's code options (e.g. standalone source). */
export function createRunAjv(code?: CodeOptions): RunAjv {
  const ajv = new Ajv({ ...RUN_AJV_OPTIONS, ...(code ? { code } : {}) });
  addFormats(ajv);
  return ajv;
}
